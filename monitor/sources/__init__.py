"""Sources: where dialogs and trace events come from (files, Kafka)."""
