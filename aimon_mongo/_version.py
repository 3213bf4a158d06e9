"""The package version, in a module of its own so that anything (telemetry included) can read it without
importing the package's lazy names."""

__version__ = "0.1.0"
