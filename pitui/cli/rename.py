"""``pitui rename PATH|ID-PREFIX NAME``: name a session as pi's ``/name`` does (empty clears)."""

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
    "rename",
    context_settings=CONTEXT_SETTINGS,
    short_help="set or clear a session's name (a session_info entry, as pi writes it)",
)
@session_argument
@session_dir_option
@click.argument("name", metavar="NAME")
@json_option()
@force_option
def command(**params: Any) -> int:
    """Append a session_info entry, as pi's /name and the picker's rename do. The name is trimmed
    and line breaks become spaces; an empty NAME ("") clears the name, so the picker shows the
    first message again. A v1/v2 file is first migrated, as pi would."""
    return run(arguments(**params))


def run(args: argparse.Namespace) -> int:
    from pitui.core import actions
    from pitui.core.lookup import find_session
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
