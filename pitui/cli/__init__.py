"""The ``pitui`` command line: the click group in :mod:`pitui.cli.main`, one module per command.

``main`` and ``entry_point`` are re-exported (``from pitui.cli import main``), so the package's
attribute ``main`` is the function; the module is ``sys.modules["pitui.cli.main"]``, which is
what ``from pitui.cli.main import …`` reads.
"""

from pitui.cli.main import entry_point, main

__all__ = ["entry_point", "main"]
