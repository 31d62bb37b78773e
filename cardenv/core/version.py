"""The version of cardenv (also ``cardenv.__version__``; pyproject.toml holds the same)."""

__version__ = "0.1.0"
