"""``pitui switch PATH ENTRY-ID [--summary TEXT]``: make pi resume at an entry.

pi keeps its position in a session (the leaf) in memory only and, on open, resumes at the last
line of the file (format §7.3). So this appends one entry whose parent is the point to resume at:
a context-neutral ``custom`` marker, or, with ``--summary``, a ``branch_summary`` holding the text
(it goes into the model's context, like pi's own branch summaries). The point follows pi's rule
for a selected entry (ui-behaviour §3.13): a user message or custom message resumes at its parent
(its text is what pi would put back in the editor); any other entry resumes at itself.
"""

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
    "switch",
    context_settings=CONTEXT_SETTINGS,
    short_help="make pi resume a session at an entry (a marker entry, or a branch summary)",
)
@session_argument
@session_dir_option
@click.argument("entry", metavar="ENTRY-ID")
@click.option(
    "--summary", metavar="TEXT", help="summary of the branch being left (enters the context)"
)
@json_option()
@force_option
def command(**params: Any) -> int:
    """Append what makes pi resume at ENTRY-ID (an entry id or a unique prefix): a custom marker
    entry (not part of the model's context), or with --summary a branch summary that is. A user
    or custom message resumes at its parent, as in pi's tree; its text is reported."""
    return run(arguments(**params))


def run(args: argparse.Namespace) -> int:
    from pitui.core import actions
    from pitui.core.lookup import find_entry, find_session
    from pitui.core.session import Session

    summary = args.summary if args.summary and args.summary.strip() else None
    try:
        path = find_session(args.session)
        with Session.open(path) as session:
            session.refresh()  # the entry is looked up in what is on disk now
            plan = actions.plan_switch(session, find_entry(session, args.entry))
            resume_at = plan.resume_at.uid if plan.resume_at is not None else None
            written: str | None = None
            notice = kept = None
            if not plan.already_there:
                done = actions.switch(session, resume_at, summary=summary, force=args.force)
                written, notice, kept = done.entry_id, done.notice, done.original_kept
            editor_text = plan.editor_text
            report = {
                "path": path,
                "selected": plan.selected.uid,
                "resumeAt": resume_at,
                "entryId": written,
                "written": written is not None,
                "editorText": editor_text,
            }
            if kept:  # a lossy migration: where the original went
                report["originalKept"] = kept
    except (actions.WriteError, LookupError) as exc:
        raise CommandError(str(exc)) from exc
    if args.json:
        emit_json(report)
        return 0
    if notice:
        out(notice)
    if written is None:
        out(f"already at this point: pi resumes {path} there; nothing written")
    else:
        where = report["resumeAt"] or "a new root (before the first message)"
        kind = "branch summary" if summary else "marker"
        out(f"pi will resume {path} at {where} ({kind} {written})")
    if editor_text:
        out(f"text of the selected message (pi would put it in the editor): {editor_text}")
    return 0
