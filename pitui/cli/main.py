"""The ``pitui`` command: one click group; exit codes 0 ok, 1 user-facing error (one line on
stderr), 2 usage error.

Each sub-command lives in a module of its own (:data:`COMMANDS`), imported only when it runs:
``pitui list`` imports the listing and neither the app nor the other commands (``pitui --help``
imports them all, for their one-line help). The bare ``pitui`` is the picker; its options are the
group's. ``--session-dir`` is accepted before the sub-command and after it.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

import click

from pitui import __version__
from pitui.cli.common import CONTEXT_SETTINGS, CommandError, session_dir_option

# Sub-command → the module defining it (as ``command``), in the order ``pitui --help`` lists them.
COMMANDS: dict[str, str] = {
    "open": "pitui.cli.app",
    "list": "pitui.cli.list",
    "inspect": "pitui.cli.inspect",
    "doctor": "pitui.cli.doctor",
    "rename": "pitui.cli.rename",
    "label": "pitui.cli.label",
    "labels": "pitui.cli.labels",
    "switch": "pitui.cli.switch",
    "extract": "pitui.cli.extract",
    "prune": "pitui.cli.prune",
    "rm": "pitui.cli.rm",
    "restore": "pitui.cli.restore",
    "export": "pitui.cli.export",
    "diff": "pitui.cli.diff",
    "stats": "pitui.cli.stats",
}

# The picker's options: given with a sub-command they would be ignored, so they are refused.
_PICKER_OPTIONS = {
    "all": "--all",
    "print_only": "--print",
    "demo": "--demo",
    "no_watch": "--no-watch",
    "no_index": "--no-index",
    "current": "--current",
}


class LazyGroup(click.Group):
    """A group whose commands are imported when one is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is None:
            return None
        command = importlib.import_module(module).command
        if not isinstance(command, click.Command) or command.name != cmd_name:
            raise TypeError(f"{module}.command is not the {cmd_name!r} command")
        return command


def _help_keys(ctx: click.Context, _param: click.Parameter, wanted: bool) -> None:
    if wanted and not ctx.resilient_parsing:
        from pitui.cli.help_keys import print_keys

        ctx.exit(print_keys())


@click.group(
    cls=LazyGroup,
    invoke_without_command=True,
    context_settings=CONTEXT_SETTINGS,
    epilog="Exit codes: 0 ok, 1 a user-facing error (one line on stderr), 2 a usage error.",
)
@click.version_option(__version__, "--version", prog_name="pitui", message="%(prog)s %(version)s")
@click.option(
    "--help-keys",
    is_flag=True,
    is_eager=True,
    expose_value=False,
    callback=_help_keys,
    help="list every key: its command's name for the config's [keymap], and your overrides",
)
@click.option("--all", is_flag=True, help="start on all folders' sessions")
@session_dir_option
@click.option(
    "--print",
    "print_only",
    is_flag=True,
    help='print the chosen session\'s path instead of resuming (pi --session "$(pitui --print)"); '
    "exit 1 when none was chosen",
)
@click.option("--demo", is_flag=True, help="browse a built-in demo store")
@click.option("--no-watch", is_flag=True, help="do not follow files while open")
@click.option("--no-index", is_flag=True, help="do not use the listing cache")
@click.option("--current", metavar="PATH", help="the session pi has open (shown, never deleted)")
@click.pass_context
def cli(ctx: click.Context, /, **params: Any) -> int:
    """A full-screen terminal browser for the session files of the pi coding agent.

    Without a command: the picker (pi's /resume, full screen). Every command takes a session
    file or an id prefix; see pitui COMMAND --help.
    """
    if ctx.invoked_subcommand is not None:
        given = [flag for name, flag in _PICKER_OPTIONS.items() if params[name]]
        if given:
            raise click.UsageError(
                f"{given[0]} is an option of the picker (pitui {given[0]}), not of "
                f"'pitui {ctx.invoked_subcommand}': give a command's options after its name"
            )
        return 0
    from pitui.cli.app import run_picker

    return run_picker(argparse.Namespace(**params))


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``pitui`` with ``argv`` (default: the process's); the exit code. A usage error is
    printed with the usage line and raises ``SystemExit(2)``, as argparse did."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    try:
        # (not cli.main: it would turn a reader gone away into exit 1, and ctrl+c into a message)
        with cli.make_context("pitui", arguments) as ctx:
            result = cli.invoke(ctx)
    except click.exceptions.Exit as exc:  # --help, --version
        return exc.exit_code
    except click.UsageError as exc:
        exc.show()
        raise SystemExit(exc.exit_code) from None
    except click.ClickException as exc:  # (a bad file argument and the like: user errors)
        _fail(exc.format_message())
        return 1
    except (click.Abort, KeyboardInterrupt):  # ctrl+c at a prompt, or anywhere
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
    return result if isinstance(result, int) else 0


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
    from pitui.core.memory import skip_exit_collection

    code = main()
    skip_exit_collection()
    sys.exit(code)


if __name__ == "__main__":
    entry_point()
