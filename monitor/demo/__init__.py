"""The local demo: embedded broker, sample traffic, monitor and a live terminal view."""
