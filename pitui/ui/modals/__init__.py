"""One modal dialog per module, each returning a typed result."""
