"""The version, in a leaf module so that internal modules need not import the package root."""

__version__ = "0.1.0"
