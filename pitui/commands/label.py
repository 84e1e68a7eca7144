"""``pitui label PATH ENTRY-ID LABEL|--clear``: set or clear a label as pi's tree does."""

from __future__ import annotations

import argparse
from typing import Any

from pitui.commands.common import CommandError, emit_json, out


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "label",
        help="set or clear the label of an entry (a label entry, as pi writes it)",
        description="Append a label entry, as pi's tree selector does: the label is trimmed; an "
        "empty label or --clear removes it. Labels are global to the session (every branch sees "
        "them) and never enter the model's context.",
    )
    parser.add_argument("session", metavar="PATH|ID-PREFIX", help="session file or id prefix")
    parser.add_argument("entry", metavar="ENTRY-ID", help="entry id (or a unique prefix)")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("label", metavar="LABEL", nargs="?", help="the label text")
    what.add_argument("--clear", action="store_true", help="remove the entry's label")
    parser.add_argument("--json", action="store_true", help="report as JSON")
    parser.add_argument(
        "--force", action="store_true", help="write even if pi wrote the file seconds ago"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pitui.core import actions
    from pitui.core.js import js_trim
    from pitui.core.manager import find_entry, find_session
    from pitui.core.session import Session

    text = None if args.clear else js_trim(args.label) or None
    try:
        path = find_session(args.session)
        with Session.open(path) as session:
            session.refresh()  # the entry is looked up in what is on disk now
            target = find_entry(session, args.entry)
            written = actions.label(session, target.uid, text, force=args.force)
            target_id = str(written.entries[-1]["targetId"])
            report = {
                "path": path,
                "targetId": target_id,
                "label": session.labels.get(target_id),
                "entryId": written.entry_id,
            }
            if written.original_kept:  # a lossy migration: where the original went
                report["originalKept"] = written.original_kept
    except (actions.WriteError, LookupError) as exc:
        raise CommandError(str(exc)) from exc
    if args.json:
        emit_json(report)
        return 0
    if written.notice:
        out(written.notice)
    if report["label"] is None:
        out(f"cleared the label of {report['targetId']} in {path}")
    else:
        out(f"labelled {report['targetId']} “{report['label']}” in {path}")
    return 0
