"""``pitui prune PATH|ID ENTRY`` and ``pitui prune PATH|ID --stale DAYS``: remove abandoned
branches from a session file.

The first form removes the subtree under ENTRY (the entry and everything under it); the second,
every branch with no label whose last entry is older than DAYS days. Every other line of the
file stays byte for byte and in order; the original goes to the trash first (``pitui restore
PATH`` brings it back). Refused, with the reason, for the active path (where pi continues), for
anything a kept entry depends on, and while pi is writing the file; ``--dry-run`` only says what
would go.
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

import click

from pitui.cli.common import (
    CONTEXT_SETTINGS,
    CommandError,
    arguments,
    emit_json,
    entry_label,
    force_option,
    json_option,
    out,
    session_argument,
    session_dir_option,
)

if TYPE_CHECKING:
    from pitui.core.actions import Pruned
    from pitui.core.prune import PrunePlan, StaleBranch, StalePlan


def _days(text: str) -> float:
    try:
        value = float(text.strip().removesuffix("d"))
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise click.BadParameter(f"not a number of days: {text!r} (examples: 30, 7.5, 90d)")
    return value


@click.command(
    "prune",
    context_settings=CONTEXT_SETTINGS,
    short_help="remove an abandoned branch (or every stale unlabelled one) from a session file",
)
@session_argument
@session_dir_option
@click.argument("entry", metavar="[ENTRY-ID]", required=False)
@click.option(
    "--stale",
    metavar="DAYS",
    type=_days,
    help="instead of ENTRY: every branch with no label that ended more than DAYS days ago",
)
@click.option("--dry-run", is_flag=True, help="say what would go, change nothing")
@click.option(
    "--drop-labels",
    is_flag=True,
    help="let the labels of kept entries that were set from inside the branch go with it",
)
@json_option()
@force_option
def command(**params: Any) -> int:
    """Remove the branch starting at ENTRY-ID (the entry and everything under it), or with
    --stale DAYS every branch that carries no label and whose last entry is older than DAYS
    days. Every other line stays byte for byte; the original goes to the trash first, and
    `pitui restore PATH` brings it back exactly. Refused for the active path (where pi
    continues), for anything a kept entry depends on (its parent, a compaction's first kept
    entry, a context edit's target), and while pi is writing the file. ENTRY-ID is an id or a
    unique prefix."""
    args = arguments(**params)
    if (args.entry is None) == (args.stale is None):
        args.parser.error("give an ENTRY-ID or --stale DAYS (one of them)")
    return run(args)


def _plan_json(plan: PrunePlan | None) -> dict[str, Any]:
    if plan is None:
        return {
            "entries": [],
            "entryCount": 0,
            "messageCount": 0,
            "labels": {},
            "keptLabelsDropped": {},
            "labelEntries": 0,
            "danglingLabels": 0,
            "bytesSaved": 0,
            "ended": None,
        }
    return {
        "entries": [meta.uid for meta in plan.entries],
        "entryCount": len(plan.entries),
        "messageCount": plan.messages,
        "labels": dict(plan.labels),
        "keptLabelsDropped": {
            target: {"label": before, "after": after}
            for target, (before, after) in plan.kept_labels.items()
        },
        "labelEntries": plan.label_entries,
        "danglingLabels": plan.dangling_labels,
        "bytesSaved": plan.bytes_saved,
        "ended": plan.ended,
    }


def _branch_json(branch: StaleBranch) -> dict[str, Any]:
    return {
        "top": branch.top.uid,
        "entryCount": branch.entries,
        "messageCount": branch.messages,
        "ended": branch.ended,
        "bytes": branch.bytes,
        "refused": branch.refused,
    }


def _written_json(pruned: Pruned | None) -> dict[str, Any]:
    if pruned is None:
        return {"sizeBefore": None, "sizeAfter": None, "originalKept": None}
    return {
        "sizeBefore": pruned.size_before,
        "sizeAfter": pruned.size_after,
        "originalKept": pruned.original_kept,
    }


def run(args: argparse.Namespace) -> int:
    from pitui.core import actions, prune
    from pitui.core.lookup import find_entry, find_session
    from pitui.core.session import Session, SessionError

    try:
        path = find_session(args.session)
        with Session.open(path) as session:
            session.refresh()
            stale: StalePlan | None = None
            if args.stale is not None:
                stale = prune.plan_stale(
                    session, args.stale, now=time.time(), drop_labels=args.drop_labels
                )
                plan = stale.plan
            else:
                target = find_entry(session, args.entry)
                plan = prune.plan_prune(session, [target.uid], drop_labels=args.drop_labels)
            pruned = None
            if plan is not None and not args.dry_run:
                tops = [meta.uid for meta in plan.tops]
                pruned = actions.prune(
                    session, tops, force=args.force, drop_labels=args.drop_labels
                )
                plan = pruned.plan
    except (actions.WriteError, SessionError, LookupError) as exc:
        raise CommandError(str(exc)) from exc
    if args.json:
        report: dict[str, Any] = {"path": path, "dryRun": bool(args.dry_run)}
        if stale is not None:
            report["staleDays"] = args.stale
            report["branches"] = [_branch_json(branch) for branch in stale.branches]
        else:
            report["tops"] = [meta.uid for meta in plan.tops] if plan else []
        report.update(_plan_json(plan))
        report.update(_written_json(pruned))
        emit_json(report)
        return 0
    _print(path, args, stale, plan, pruned)
    return 0


def _print(
    path: str,
    args: argparse.Namespace,
    stale: StalePlan | None,
    plan: PrunePlan | None,
    pruned: Pruned | None,
) -> None:
    from pitui.core.units import format_bytes

    if stale is not None:
        for branch in stale.branches:
            when = f"ended {branch.ended}" if branch.ended else "undated"
            what = f"{branch.entries} entries, {format_bytes(branch.bytes)}, {when}"
            if branch.refused is None:
                out(f"  {entry_label(branch.top)}: {what}")
            else:
                out(f"  {entry_label(branch.top)}: {what}: stays ({branch.refused})")
        if plan is None:
            out(
                f"no branch of {path} can go: none without a label ended over "
                f"{args.stale:g} days ago"
            )
            return
    assert plan is not None
    for target, (before, after) in plan.kept_labels.items():
        then = f"“{after}”" if after is not None else "no label"
        now = f"“{before}”" if before is not None else "no label"
        out(f"  the label of {target} (kept; set or cleared inside the branch): {now} → {then}")
    if pruned is None:
        tops = ", ".join(meta.uid for meta in plan.tops)
        out(f"would prune {plan.summary()} from {path} (the branch at {tops}); nothing changed")
        return
    out(
        f"pruned {plan.summary()} from {path}: {format_bytes(pruned.size_before)} → "
        f"{format_bytes(pruned.size_after)}; the original is in the trash (pitui restore "
        f"{path} brings it back)"
    )
