"""A terminal inspector and debugger for Model Context Protocol servers."""

__version__ = "0.1.0"
