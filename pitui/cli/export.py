"""``pitui export PATH|ID [--leaf ID] --format md|html|jsonl [-o FILE]``: one branch, exported.

Markdown and HTML show the context the model sees at the leaf (default: the file's leaf); JSONL
is a pi session holding just the branch. Without ``-o`` the export goes to stdout. Markdown and
HTML hold no control character by construction; JSONL written to a terminal has the characters
terminals act on written as ``\\u`` escapes (the same JSON). ``-o -`` is stdout too. An existing
file is refused unless ``--force`` (then replaced atomically); what is not a regular file, the
session itself and any other pi session are never replaced.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import click

from pitui.cli.common import (
    CONTEXT_SETTINGS,
    CommandError,
    arguments,
    out,
    session_argument,
    session_dir_option,
)
from pitui.core.safejson import escape_unsafe_bytes


@click.command(
    "export",
    context_settings=CONTEXT_SETTINGS,
    short_help="export one branch as Markdown, an HTML page, or a pi session (JSONL)",
)
@session_argument
@session_dir_option
@click.option("--leaf", metavar="ID", help="last entry of the branch (id or prefix)")
@click.option(
    "--format",
    "-f",
    type=click.Choice(("md", "html", "jsonl")),
    required=True,
    help="what to write",
)
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    help="write here instead of stdout (a folder: <session id>[-<leaf>].<format> in it; "
    "- for stdout); an existing file only with --force, never a session",
)
@click.option("--force", is_flag=True, help="replace an existing file (never a session)")
@click.option(
    "--width",
    type=int,
    default=100,
    metavar="N",
    show_default=True,
    help="columns messages are drawn at",
)
@click.option("--light", is_flag=True, help="html: light colours instead of pi's dark ones")
def command(**params: Any) -> int:
    """Export the branch ending at an entry (default: the session's leaf). md and html show the
    context the model sees there, drawn like the session view (renderer plug-ins apply); jsonl
    writes a valid pi session holding just that branch."""
    return run(arguments(**params))


def run(args: argparse.Namespace) -> int:
    from pitui.core.edit import WriteError
    from pitui.core.lookup import find_entry, find_session
    from pitui.core.session import Session
    from pitui.core.units import format_bytes
    from pitui.export import export_session, write_export

    if args.width < 20:
        raise CommandError("--width must be at least 20")
    try:
        path = find_session(args.session)
        with Session.open(path) as session:
            leaf = find_entry(session, args.leaf).uid if args.leaf else "default"
            if args.output in (None, "-"):
                data = export_session(
                    session, args.format, leaf, width=args.width, dark=not args.light
                )
                _to_stdout(data, args.format)
                return 0
            target = write_export(
                session,
                args.format,
                args.output,
                leaf,
                width=args.width,
                dark=not args.light,
                force=args.force,
            )
    except (LookupError, WriteError) as exc:
        raise CommandError(str(exc)) from exc
    out(f"wrote {target} ({format_bytes(os.path.getsize(target))})")
    return 0


def _to_stdout(data: bytes, fmt: str) -> None:
    if fmt == "jsonl" and sys.stdout.isatty():
        data = escape_unsafe_bytes(data)
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
