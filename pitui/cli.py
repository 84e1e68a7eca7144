"""The ``pitui`` command: sub-commands and exit codes (0 ok, 1 user-facing error, 2 usage error).

Heavy modules (the Textual app, the store) are imported only by the command that needs them, so
``pitui inspect`` or ``pitui --version`` start quickly. ``pitui list …`` (scripts run it often)
is parsed by a parser of that command alone, without importing the other commands; anything it
cannot parse goes to the whole parser, whose messages it then prints.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from pitui import __version__
from pitui.commands import list as list_command
from pitui.commands.common import CommandError

_TITLE, _METAVAR = "commands", "COMMAND"
# (a sub-command's name anywhere sends the arguments to the whole parser)
_SUBCOMMANDS = frozenset(
    ("open", "inspect", "doctor", "list", "rename", "label", "switch", "extract", "rm",
     "restore", "stats", "export")
)  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    from pitui.commands import app as app_command
    from pitui.commands import doctor as doctor_command
    from pitui.commands import export as export_command
    from pitui.commands import extract as extract_command
    from pitui.commands import inspect as inspect_command
    from pitui.commands import label as label_command
    from pitui.commands import rename as rename_command
    from pitui.commands import restore as restore_command
    from pitui.commands import rm as rm_command
    from pitui.commands import stats as stats_command
    from pitui.commands import switch as switch_command

    parser = argparse.ArgumentParser(
        prog="pitui",
        description="A full-screen terminal browser for the session files of the pi coding agent.",
    )
    parser.add_argument("--version", action="version", version=f"pitui {__version__}")
    app_command.add_app_options(parser)
    subparsers = parser.add_subparsers(title=_TITLE, metavar=_METAVAR)
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


class _NotQuick(Exception):
    """The quick parser met something only the whole parser answers (an error, ``-h``)."""


class _QuickParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _NotQuick(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise _NotQuick(message)

    def print_help(self, file: object = None) -> None:
        raise _NotQuick("help")


def _quick_parse(argv: Sequence[str]) -> argparse.Namespace | None:
    """``pitui list …`` parsed by that command's parser alone, and the picker's ``pitui
    [options]`` by the app's options alone (None: let the whole parser, which imports every
    command, answer: a sub-command, ``-h``, ``--version``, a mistake)."""
    parser = _QuickParser(prog="pitui", add_help=False)
    if argv and argv[0] == "list":
        subparsers = parser.add_subparsers(
            title=_TITLE, metavar=_METAVAR, parser_class=_QuickParser
        )
        list_command.add_parser(subparsers)
    elif not any(arg in _SUBCOMMANDS for arg in argv):
        from pitui.commands import app as app_command

        app_command.add_app_options(parser)
    else:
        return None
    try:
        return parser.parse_args(argv)
    except _NotQuick:
        return None


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    args = _quick_parse(arguments)
    if args is None:
        args = build_parser().parse_args(arguments)
    run = args.run
    try:
        code: int = run(args)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if isinstance(exc, CommandError) or _is_session_error(exc):
            _fail(str(exc))
            return 1
        if isinstance(exc, BrokenPipeError):
            # `pitui list | head`: the reader went away; not an error worth a message
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 0
        if isinstance(exc, OSError):
            _fail(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
            return 1
        raise
    return code


def _is_session_error(exc: BaseException) -> bool:
    """A :class:`pitui.core.session.SessionError`, without importing that module (when it is not
    loaded, nothing raised one)."""
    session = sys.modules.get("pitui.core.session")
    return session is not None and isinstance(exc, session.SessionError)


def _fail(message: str) -> None:
    from pitui.render.safe_text import sanitize_plain

    sys.stderr.write(
        "pitui: " + sanitize_plain(message, reveal_invisible=False).replace("\n", " ") + "\n"
    )


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
