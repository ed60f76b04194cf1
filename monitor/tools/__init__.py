"""What the command-line tools use beside the pipeline: the embedded broker, replay, redrive, topic reading."""
