"""Sub-commands of the ``pitui`` command line: one module per command, sharing the core."""
