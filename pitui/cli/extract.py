"""``pitui extract PATH ENTRY-ID [-o NEW]``: the branch ending at an entry as a new session file.

The same computation as ``SessionManager.create_branched_session`` (pi's ``/fork``, format §11.1,
without pi 0.73.1's orphans): labels dropped from the path and re-added after it with their
original time, the rest re-chained, ``parentSession`` pointing at the source.
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
    json_option,
    out,
    session_argument,
    session_dir_option,
)


@click.command(
    "extract",
    context_settings=CONTEXT_SETTINGS,
    short_help="write the branch ending at an entry as a new session file (pi's /fork)",
)
@session_argument
@session_dir_option
@click.argument("entry", metavar="ENTRY-ID")
@click.option("-o", "--output", metavar="NEW", help="the new file (must not exist)")
@json_option()
def command(**params: Any) -> int:
    """Write the path root → ENTRY-ID (the last entry of the branch) as a new session (new id,
    parentSession = the source), where pi would put it (the source's folder) unless -o names the
    file. The source file is not changed; an existing file is never overwritten."""
    return run(arguments(**params))


def run(args: argparse.Namespace) -> int:
    from pitui.core import actions
    from pitui.core.lookup import find_entry, find_session
    from pitui.core.session import Session

    try:
        path = find_session(args.session)
        with Session.open(path) as session:
            leaf = find_entry(session, args.entry)
            extracted = actions.extract(session, leaf.uid, args.output)
            cwd = session.cwd
    except (actions.WriteError, LookupError) as exc:
        raise CommandError(str(exc)) from exc
    target, header, entries = extracted.path, extracted.header, extracted.entries
    labels = sum(1 for e in entries if e["type"] == "label")
    report = {
        "path": target,
        "id": header["id"],
        "cwd": cwd,
        "parentSession": path,
        "leafId": entries[-1]["id"],
        "entries": len(entries),
        "labels": labels,
    }
    if args.json:
        emit_json(report)
    else:
        out(f"wrote {target}")
        from pitui.core.units import format_count

        kept = format_count(len(entries) - labels)
        out(f"  {kept} entries and {format_count(labels)} labels from {path}")
    return 0
