"""The ``pitui`` command: sub-commands and exit codes (0 ok, 1 user-facing error, 2 usage error).

Heavy modules (the Textual app, the store) are imported only by the command that needs them, so
``pitui inspect`` or ``pitui --version`` start quickly.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from pitui import __version__
from pitui.commands import app as app_command
from pitui.commands import doctor as doctor_command
from pitui.commands import export as export_command
from pitui.commands import extract as extract_command
from pitui.commands import inspect as inspect_command
from pitui.commands import label as label_command
from pitui.commands import list as list_command
from pitui.commands import rename as rename_command
from pitui.commands import restore as restore_command
from pitui.commands import rm as rm_command
from pitui.commands import stats as stats_command
from pitui.commands import switch as switch_command
from pitui.commands.common import CommandError
from pitui.core.session import SessionError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pitui",
        description="A full-screen terminal browser for the session files of the pi coding agent.",
    )
    parser.add_argument("--version", action="version", version=f"pitui {__version__}")
    app_command.add_app_options(parser)
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    app_command.add_parser(subparsers)
    inspect_command.add_parser(subparsers)
    doctor_command.add_parser(subparsers)
    list_command.add_parser(subparsers)
    rename_command.add_parser(subparsers)
    label_command.add_parser(subparsers)
    switch_command.add_parser(subparsers)
    extract_command.add_parser(subparsers)
    rm_command.add_parser(subparsers)
    restore_command.add_parser(subparsers)
    stats_command.add_parser(subparsers)
    export_command.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    run = args.run
    try:
        code: int = run(args)
    except (CommandError, SessionError) as exc:
        _fail(str(exc))
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `pitui list | head`: the reader went away; not an error worth a message
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:
        _fail(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
        return 1
    return code


def _fail(message: str) -> None:
    from pitui.render.safe_text import sanitize_plain

    sys.stderr.write(
        "pitui: " + sanitize_plain(message, reveal_invisible=False).replace("\n", " ") + "\n"
    )


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
