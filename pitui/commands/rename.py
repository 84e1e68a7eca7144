"""``pitui rename PATH|ID-PREFIX NAME``: name a session as pi's ``/name`` does (empty clears)."""

from __future__ import annotations

import argparse
from typing import Any

from pitui.commands.common import CommandError, emit_json, out


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "rename",
        help="set or clear a session's name (a session_info entry, as pi writes it)",
        description="Append a session_info entry, as pi's /name and the picker's rename do. The "
        "name is trimmed and line breaks become spaces; an empty NAME clears the name, so the "
        "picker shows the first message again. A v1/v2 file is first migrated, as pi would.",
    )
    parser.add_argument("session", metavar="PATH|ID-PREFIX", help="session file or id prefix")
    parser.add_argument("name", metavar="NAME", help='the new name ("" clears it)')
    parser.add_argument("--json", action="store_true", help="report as JSON")
    parser.add_argument(
        "--force", action="store_true", help="write even if pi wrote the file seconds ago"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pitui.core import actions
    from pitui.core.manager import find_session
    from pitui.core.session import Session

    try:
        path = find_session(args.session)
        with Session.open(path) as session:
            written = actions.rename(session, args.name, force=args.force)
            name = session.name
            report = {"path": path, "id": session.id, "name": name, "entryId": written.entry_id}
            if written.original_kept:  # a lossy migration: where the original went
                report["originalKept"] = written.original_kept
    except (actions.WriteError, LookupError) as exc:
        raise CommandError(str(exc)) from exc
    if args.json:
        emit_json(report)
        return 0
    if written.notice:
        out(written.notice)
    if name is None:
        out(f"cleared the name of {path}")
    else:
        out(f"renamed {path} to “{name}”")
    return 0
