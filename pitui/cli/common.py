"""What every command shares: the error type, the options and arguments several commands take,
safe printing, JSON output, a progress line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

if TYPE_CHECKING:
    from pitui.core.session import EntryMeta

F = TypeVar("F", bound=Callable[..., Any])

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

# A progress line shows only for work over this many files (a shorter one would only flicker).
PROGRESS_MIN_FILES = 200


class CommandError(Exception):
    """A user-facing failure: printed as one line on stderr, exit code 1."""


# ------------------------------------------------------------------------------ parsing


def session_dir_option(function: F) -> F:
    """``--session-dir DIR``: accepted by the group (before the command) and by the commands
    that read a store (after it); the one after the command wins."""
    option = click.option(
        "--session-dir",
        metavar="DIR",
        help="pi's custom session directory (also accepted before the command)",
    )
    return option(function)


def json_option(help: str = "report as JSON") -> Callable[[F], F]:
    return click.option("--json", is_flag=True, help=help)


def force_option(function: F) -> F:
    option = click.option(
        "--force", is_flag=True, help="write even if pi wrote the file seconds ago"
    )
    return option(function)


def session_argument(function: F) -> F:
    return click.argument("session", metavar="PATH|ID-PREFIX")(function)


class UsageErrors:
    """What a command body calls to refuse its arguments (argparse's ``parser.error``): a usage
    error, exit code 2, with the command's usage line."""

    def __init__(self, ctx: click.Context) -> None:
        self.ctx = ctx

    def error(self, message: str) -> NoReturn:
        raise click.UsageError(message, self.ctx)


def arguments(**params: Any) -> argparse.Namespace:
    """The parameters of the command being run, as the namespace its body reads: a
    ``--session-dir`` given before the command counts as given after it (and a ``session`` id
    prefix is looked up there); ``parser.error`` refuses the arguments."""
    ctx = click.get_current_context()
    if params.get("session_dir") is None:
        params["session_dir"] = ctx.find_root().params.get("session_dir")
    session_dir = params["session_dir"]
    if session_dir is not None:  # an id prefix is looked up in that folder (a path stays)
        from pitui.core.lookup import find_session

        try:
            if isinstance(params.get("session"), str):
                params["session"] = find_session(params["session"], session_dir=session_dir)
            if isinstance(params.get("sessions"), tuple):
                params["sessions"] = tuple(
                    find_session(arg, session_dir=session_dir) for arg in params["sessions"]
                )
        except LookupError as exc:
            raise CommandError(str(exc)) from exc
    return argparse.Namespace(**params, parser=UsageErrors(ctx))


class ProgressLine:
    """``{verb} n/total`` on stderr, redrawn in place; :meth:`end` clears it."""

    def __init__(self, verb: str) -> None:
        self.verb = verb
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if total < PROGRESS_MIN_FILES:
            return
        sys.stderr.write(f"\r{self.verb} {done}/{total}")
        sys.stderr.flush()
        self.shown = True

    def end(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.shown = False


@contextmanager
def progress_line(verb: str) -> Iterator[ProgressLine | None]:
    """A :class:`ProgressLine` while the block runs (``None`` when stderr is not a terminal),
    cleared when it ends, error or not."""
    progress = ProgressLine(verb) if sys.stderr.isatty() else None
    try:
        yield progress
    finally:
        if progress is not None:
            progress.end()


def out(text: str) -> None:
    """Print human output; session text in it can never act on the terminal."""
    # imported here: commands that print only JSON start without Rich and the renderers
    from pitui.render.safe_text import sanitize_plain

    sys.stdout.write(sanitize_plain(text, reveal_invisible=False) + "\n")


def json_text(value: Any, *, indent: bool = True) -> str:
    from pitui.core.safejson import dumps  # (here: `pitui list --json` may never need orjson)

    return dumps(value, indent=indent)


def emit_json(value: Any) -> None:
    """JSON on stdout, terminal-safe: no control character reaches the terminal raw."""
    sys.stdout.write(json_text(value) + "\n")
    sys.stdout.flush()


def emit_json_bytes(data: bytes) -> None:
    """Already terminal-safe JSON text (UTF-8) on stdout, and a newline, in one write."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("_", "-")
    if buffer is None or encoding not in ("utf-8", "utf8"):
        sys.stdout.write(data.decode() + "\n")
    else:
        buffer.write(data)  # (data + b"\n" would copy megabytes)
        buffer.write(b"\n")
        buffer.flush()
    sys.stdout.flush()


def entry_label(meta: EntryMeta) -> str:
    kind = f"{meta.type}/{meta.role}" if meta.role else meta.type
    return f"{meta.uid} ({kind}, line {meta.line})"
