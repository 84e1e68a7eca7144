"""``pitui restore PATH|--last``: bring a trashed session back to its exact path.

Works with the freedesktop.org trash (Linux): the trash's records say where each file was. A
path where something else lives now is refused, never overwritten.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from pitui.commands.common import CommandError, emit_json, out
from pitui.core import trash


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "restore",
        help="bring a trashed session back to where it was",
        description="Move a session file back from the trash to its exact original path: the "
        "one given, or with --last the sessions trashed last (the whole batch of the last "
        "pitui rm, or the session pi trashed last). Refuses if something else lives at that "
        "path now.",
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("path", metavar="PATH", nargs="?", help="where the session file was")
    what.add_argument("--last", action="store_true", help="the batch trashed most recently")
    parser.add_argument("--json", action="store_true", help="report as JSON")
    parser.set_defaults(run=run)


def _item_json(item: trash.TrashedItem) -> dict[str, Any]:
    return {"restored": item.original, "from": item.stored, "trashedAt": item.deleted_at}


def run(args: argparse.Namespace) -> int:
    from pitui.core import actions

    try:
        if not args.last:
            item = actions.restore(os.path.abspath(os.path.expanduser(args.path)))
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
