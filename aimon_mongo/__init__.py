"""aimon-mongo: shared state of multi-node AI-agent sessions, MongoDB first."""

__version__ = "0.1.0"
