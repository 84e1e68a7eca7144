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
from pitui.core.paths import sessions_root


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "restore",
        help="bring a trashed session back to where it was",
        description="Move a session file back from the trash to its exact original path: the "
        "one given, or with --last the session trashed most recently. Refuses if something "
        "else lives at that path now.",
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("path", metavar="PATH", nargs="?", help="where the session file was")
    what.add_argument("--last", action="store_true", help="the session trashed most recently")
    parser.add_argument("--json", action="store_true", help="report as JSON")
    parser.set_defaults(run=run)


def trashed_sessions() -> list[trash.TrashedItem]:
    """Every trashed ``.jsonl`` file in the home trash and the sessions root's volume trash,
    most recently trashed first (by the trash record's write time: its ``DeletionDate`` only has
    seconds, and a bulk ``rm`` trashes many files in one second)."""
    found: list[tuple[int, str, trash.TrashedItem]] = []
    seen: set[str] = set()
    # a file name under the sessions root picks that volume's trash directories
    for folder, topdir in trash._trash_dirs(str(sessions_root() / "x.jsonl")):
        info_dir = folder / "info"
        try:
            names = os.listdir(info_dir)
        except OSError:
            continue
        for name in names:
            info = info_dir / name
            if not name.endswith(".trashinfo") or str(info) in seen:
                continue
            seen.add(str(info))
            parsed = trash._parse_info(info, topdir)
            if parsed is None or not parsed[0].endswith(".jsonl"):
                continue
            stored = folder / "files" / name[: -len(".trashinfo")]
            try:
                stamp = os.stat(info).st_mtime_ns
            except OSError:
                continue
            if os.path.lexists(stored):
                item = trash.TrashedItem(parsed[0], str(stored), str(info), parsed[1])
                found.append((stamp, parsed[1], item))
    found.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return [item for _, _, item in found]


def run(args: argparse.Namespace) -> int:
    if not trash.restore_supported():
        raise CommandError("restoring from the trash needs the freedesktop trash (Linux)")
    try:
        if args.last:
            items = trashed_sessions()
            if not items:
                raise CommandError("the trash holds no session files")
            item = items[0]
            trash.restore(item)
        else:
            item = trash.restore_path(os.path.abspath(os.path.expanduser(args.path)))
    except trash.TrashError as exc:
        raise CommandError(str(exc)) from exc
    if args.json:
        emit_json({"restored": item.original, "from": item.stored, "trashedAt": item.deleted_at})
    else:
        out(f"restored {item.original}")
    return 0
