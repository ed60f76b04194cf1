"""AEM Monitor: turn-level Agent Evaluation Metric."""
