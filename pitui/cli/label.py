"""``pitui label PATH ENTRY-ID LABEL|--clear``: set or clear a label as pi's tree does."""

from __future__ import annotations

import argparse
from typing import Any

import click

from pitui.cli.common import (
    CONTEXT_SETTINGS,
    CommandError,
    arguments,
    emit_json,
    force_option,
    json_option,
    out,
    session_argument,
    session_dir_option,
)


@click.command(
    "label",
    context_settings=CONTEXT_SETTINGS,
    short_help="set or clear the label of an entry (a label entry, as pi writes it)",
)
@session_argument
@session_dir_option
@click.argument("entry", metavar="ENTRY-ID")
@click.argument("label", metavar="LABEL", required=False)
@click.option("--clear", is_flag=True, help="remove the entry's label")
@json_option()
@force_option
def command(**params: Any) -> int:
    """Append a label entry, as pi's tree selector does: the label is trimmed; an empty label or
    --clear removes it. Labels are global to the session (every branch sees them) and never enter
    the model's context. ENTRY-ID is an entry id or a unique prefix."""
    args = arguments(**params)
    if (args.label is None) == (not args.clear):
        args.parser.error("give a LABEL or --clear (one of them)")
    return run(args)


def run(args: argparse.Namespace) -> int:
    from pitui.core import actions
    from pitui.core.js import js_trim
    from pitui.core.lookup import find_entry, find_session
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
