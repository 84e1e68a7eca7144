"""``pitui inspect PATH [--json] [--leaf ID]``: what pitui (and pi) reads from one session file."""

from __future__ import annotations

import argparse
from collections import Counter
from typing import TYPE_CHECKING, Any

import click

from pitui.cli.common import (
    CONTEXT_SETTINGS,
    CommandError,
    arguments,
    emit_json_bytes,
    entry_label,
    json_option,
    out,
    session_argument,
    session_dir_option,
)
from pitui.core.facts import model_text

if TYPE_CHECKING:
    # (imported when run: building the parser, which every pitui command does, stays light)
    from pitui.core.facts import SessionFacts
    from pitui.core.session import Session


@click.command(
    "inspect",
    context_settings=CONTEXT_SETTINGS,
    short_help="summarise one session file: tree, active branch, context, labels, problems",
)
@session_argument
@session_dir_option
@json_option("one JSON object, keys named as pi names them")
@click.option("--leaf", metavar="ID", help="compute branch and context as if ID were the leaf")
def command(**params: Any) -> int:
    """Read one session file (never writing it) and report what pi would see."""
    return run(arguments(**params))


def inspect_json(session: Session, leaf: str | None = None) -> dict[str, Any]:
    """The ``--json`` report (also used by tests and the doctor)."""
    return _report(session, leaf)[0]


def _report(session: Session, leaf: str | None) -> tuple[dict[str, Any], SessionFacts]:
    """The ``--json`` report and the facts it was made from (the summary prints both)."""
    from pitui.core.context import build_session_context
    from pitui.core.facts import session_facts

    leaf_meta = session.get(leaf) if leaf is not None else session.leaf
    if leaf is not None and leaf_meta is None:
        raise CommandError(f"entry {leaf!r} is not in {session.path}")
    leaf_key = leaf_meta.uid if leaf_meta is not None else None
    facts = session_facts(session, leaf_meta)
    branch = facts.branch_entries
    context = build_session_context(session, leaf_key)
    report = {
        "path": session.path,
        "id": session.id,
        "cwd": session.cwd,
        "name": session.name,
        "parentSession": session.parent_session,
        "created": session.created,
        "version": session.original_version,
        "leafId": leaf_key,
        "branchIds": [m.uid for m in branch],
        "rootIds": [m.uid for m in session.roots],
        "entryCount": facts.entries,
        "pendingBytes": session.pending,
        "context": {
            "roles": [m.get("role") for m in context.messages],
            "model": context.model.to_json() if context.model else None,
            "thinkingLevel": context.thinking_level,
        },
        "labels": dict(session.labels),
        "labelTimestamps": dict(session.label_times),
        "treePreorder": [(m.uid, depth) for m, depth in session.iter_preorder()],
        "stats": {"branch": facts.branch.to_json(), "file": facts.file.to_json()},
        "problems": [
            {"line": p.line, "offset": p.offset, "kind": str(p.kind), "reason": p.reason}
            for p in session.problems
        ],
    }
    return report, facts


def run(args: argparse.Namespace) -> int:
    from pitui.core.lookup import find_session
    from pitui.core.memory import collector_paused
    from pitui.core.session import Session

    try:
        path = find_session(args.session)
    except LookupError as exc:
        raise CommandError(str(exc)) from exc
    # As every reader decides (Session.open): an unterminated last line is pending while the
    # file is fresh, an entry once it is quiet, so inspect and the others agree at any moment.
    # The report of a big session makes 100k+ rows; Python's collector would scan the whole
    # index (a million objects, 0.2 s) for cycles this short-lived command never makes, and
    # again when the process ends: paused, and what it built frozen out of its way at the end.
    with collector_paused(freeze=True), Session.open(path) as session:
        report, facts = _report(session, args.leaf)
        if args.json:
            from pitui.core.safejson import dumps_bytes

            emit_json_bytes(dumps_bytes(report))  # (megabytes for a big session: kept as bytes)
            return 0
        _print_summary(session, report, facts)
    return 0


def _print_summary(session: Session, report: dict[str, Any], facts: SessionFacts) -> None:
    from pitui.core.units import format_bytes, format_cost, format_count

    types = Counter(f"{m.role}" if m.type == "message" else m.type for m in session.entries)
    version = report["version"]
    out(f"{session.path}")
    out(f"  session   {report['id']}" + (f"  “{report['name']}”" if report["name"] else ""))
    out(f"  cwd       {report['cwd'] or '(none)'}")
    out(f"  created   {report['created'] or 'unknown time'}")
    if version != 3:
        out(f"  format    version {version}, read as 3 (the file is not changed)")
    if report["parentSession"]:
        out(f"  forked    from {report['parentSession']}")
    kinds = ", ".join(f"{format_count(n)} {t}" for t, n in types.most_common())
    out(f"  entries   {format_count(report['entryCount'])} ({kinds or 'none'})")
    if session.pending:
        out(
            f"  pending   the last line ({format_bytes(session.pending)}, no newline yet) is still "
            "being written; it is read once the file is quiet"
        )
    out(
        f"  tree      {format_count(facts.roots)} root(s), "
        f"{format_count(facts.branch_ends)} branch end(s)"
    )
    leaf = session.get(report["leafId"]) if report["leafId"] else None
    if leaf is not None:
        branch = format_count(len(facts.branch_entries))
        out(f"  leaf      {entry_label(leaf)}; active branch {branch} entries")
    ctx = report["context"]
    model = ctx["model"]
    model_name = model_text(model.get("provider"), model.get("modelId")) if model else None
    # (a role that is not a string, as a hostile file may hold, is counted under "?")
    roles = Counter(role if isinstance(role, str) else "?" for role in ctx["roles"])
    out(
        f"  context   {format_count(len(ctx['roles']))} messages ("
        + ", ".join(f"{format_count(n)} {r}" for r, n in roles.most_common())
        + f"); {model_name or 'no model'}, thinking {ctx['thinkingLevel']}"
    )
    spend = [
        f"{where} {format_count(stats['tokens']['total'])} tokens {format_cost(stats['cost'])}"
        for where, stats in report["stats"].items()  # branch, then file
    ]
    out(f"  spend     {'; '.join(spend)}")
    if report["labels"]:
        out("  labels")
        for target, label in report["labels"].items():
            out(f"    {target}  [{label}]  {report['labelTimestamps'].get(target, '')}")
    problems = report["problems"]
    out(f"  problems  {format_count(len(problems)) if problems else 'none'}")
    for problem in problems:
        out(f"    line {problem['line']} (byte {problem['offset']}): {problem['reason']}")
