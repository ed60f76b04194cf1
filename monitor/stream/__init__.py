"""The streaming monitor: Kafka source → decode → sessionize → score → sinks (verdict topic, Prometheus)."""
