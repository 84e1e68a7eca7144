"""pitui: a full-screen terminal browser for pi coding-agent sessions."""

__version__ = "0.1.0"
