"""``pitui restore PATH|--last``: bring a trashed session back to its exact path.

Works with the freedesktop.org trash (Linux): the trash's records say where each file was. A
path where something else lives now is refused, never overwritten, but for a session pitui
pruned: its original replaces the pruned file, if that is still exactly as the prune left it
(``--force``: even so; the file as it is then goes to the trash first).
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import click

from pitui.cli.common import (
    CONTEXT_SETTINGS,
    CommandError,
    arguments,
    emit_json,
    json_option,
    out,
)
from pitui.core import trash


@click.command(
    "restore",
    context_settings=CONTEXT_SETTINGS,
    short_help="bring a trashed session back to where it was",
)
@click.argument("path", metavar="PATH", required=False)
@click.option("--last", is_flag=True, help="the batch trashed most recently")
@click.option(
    "--force",
    is_flag=True,
    help="undo a prune even if the file changed since (it goes to the trash first)",
)
@json_option()
def command(**params: Any) -> int:
    """Move a session file back from the trash to its exact original path: the one given (PATH,
    where the session file was), or with --last the sessions trashed last (the whole batch of
    the last pitui rm, or the session pi trashed last). Refuses if something else lives at that
    path now. A session pitui pruned gets its original back (undoing the prune)."""
    args = arguments(**params)
    if (args.path is None) == (not args.last):
        args.parser.error("give the PATH the session was at, or --last (one of them)")
    return run(args)


def _item_json(item: trash.TrashedItem) -> dict[str, Any]:
    return {"restored": item.original, "from": item.stored, "trashedAt": item.deleted_at}


def run(args: argparse.Namespace) -> int:
    from pitui.core import actions

    try:
        if not args.last:
            item = actions.restore(os.path.abspath(os.path.expanduser(args.path)), force=args.force)
            if args.json:
                emit_json(_item_json(item))
            else:
                out(f"restored {item.original}")
            return 0
        outcome = actions.restore_last()
    except trash.TrashError as exc:
        raise CommandError(str(exc)) from exc
    if args.json:  # --last gives back a batch: the same fields per file, in a list
        emit_json(
            {
                "restored": [item.original for item in outcome.restored],
                "items": [_item_json(item) for item in outcome.restored],
                "failed": [{"path": i.original, "error": error} for i, error in outcome.failed],
            }
        )
    else:
        for item in outcome.restored:
            out(f"restored {item.original}")
    if outcome.failed:
        raise CommandError("; ".join(error for _, error in outcome.failed))
    return 0
