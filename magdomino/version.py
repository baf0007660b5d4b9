"""The package version (one place; ``magdomino.__version__`` reads it)."""

__version__ = "0.1.0"
