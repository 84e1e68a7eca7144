"""``pitui labels``: every label of every session of this folder (or all folders), newest first.

Read from the listing cache (the index keeps each session's resolved labels and when each was
set): no session file is opened unless it changed since it was last listed. ``--json`` prints
one object per label (``label``, ``entryId``, ``time``, ``path``, ``sessionId``,
``sessionName``, ``title``, ``cwd``); ``pitui open ID --entry ENTRY`` opens the session there.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from typing import TYPE_CHECKING, Any

import click

from pitui.cli.common import (
    CONTEXT_SETTINGS,
    arguments,
    json_option,
    progress_line,
    session_dir_option,
)

if TYPE_CHECKING:
    from pitui.core.labels import ListedLabel


@click.command(
    "labels",
    context_settings=CONTEXT_SETTINGS,
    short_help="every label of every session of this folder (or all folders), newest first",
)
@click.option("--all", is_flag=True, help="all folders")
@click.option("--cwd", metavar="DIR", help="current folder (default: this one)")
@session_dir_option
@json_option("a JSON array, one object per label")
@click.option("--no-index", is_flag=True, help="read every file; do not use or create the cache")
def command(**params: Any) -> int:
    """List the labels of the sessions (pi's rule: the latest label entry for an entry wins, an
    empty one clears it), newest first, with the session and the label's age."""
    return run(arguments(**params))


def run(args: argparse.Namespace) -> int:
    from pitui.core.labels import listed_labels
    from pitui.core.store import Store

    store = Store(
        cwd=args.cwd,
        session_dir=args.session_dir,
        use_index=not args.no_index,
        collect_texts=False,  # labels need no message text
    )
    try:
        with progress_line("Loading") as progress:
            sessions = store.load("all" if args.all else "current", progress=progress)
        rows = listed_labels(sessions)
        if args.json:
            from pitui.cli.common import emit_json

            emit_json([_as_json(row) for row in rows])
        else:
            _print_table(rows, all_scope=args.all)
    finally:
        for warning in store.warnings:
            sys.stderr.write(f"pitui: warning: {warning}\n")
        store.close()
    return 0


def _as_json(row: ListedLabel) -> dict[str, Any]:
    from pitui.core.search import display_title

    return {
        "label": row.label,
        "entryId": row.entry_id,
        "time": row.time or None,
        "path": row.path,
        "sessionId": row.session_id,
        "sessionName": row.session_name,
        "title": display_title(row.session_name, row.first_message),
        "cwd": row.cwd,
    }


def _print_table(rows: list[ListedLabel], *, all_scope: bool) -> None:
    from rich.cells import cell_len

    from pitui.cli.common import out
    from pitui.core.paths import shorten_home
    from pitui.core.search import display_title
    from pitui.core.units import format_age
    from pitui.render.safe_text import one_line

    if not rows:
        out("No labels found." if all_scope else "No labels in current folder.")
        return
    width = shutil.get_terminal_size((100, 24)).columns
    label_width = min(30, max(cell_len(one_line(row.label, 30)) for row in rows))
    for row in rows:
        age = format_age(row.time_ms) if row.time_ms is not None else "-"
        label = one_line(row.label, label_width)
        right = f"{row.session_id[:8]} {one_line(row.entry_id, 24)}"
        if all_scope and row.cwd:
            right = f"{one_line(shorten_home(row.cwd), 40)}  {right}"
        left = f"{age:>4}  {label}{' ' * (label_width - cell_len(label))}  "
        room = max(10, width - cell_len(left) - cell_len(right) - 2)
        title = one_line(display_title(row.session_name, row.first_message), room)
        pad = width - cell_len(left) - cell_len(title) - cell_len(right)
        out(f"{left}{title}{' ' * max(2, pad)}{right}")
