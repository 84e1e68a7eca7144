"""The ``pitui`` command line: the click group in :mod:`pitui.cli.main`, one module per command."""
