"""``pitui diff PATH|ID A B [--json]``: two branches of a session from their common ancestor.

A and B are entry ids (or unique prefixes). The report: where the two paths meet, then for each
side (A's path after the ancestor, then B's) its entries as the tree shows them, the files its
edit/write calls named, the tools it ran, and its messages, tokens and cost. Only the two paths
are read (:mod:`pitui.core.diff`).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

import click

from pitui.cli.common import (
    CONTEXT_SETTINGS,
    CommandError,
    arguments,
    emit_json,
    entry_label,
    json_option,
    out,
    session_argument,
    session_dir_option,
)

if TYPE_CHECKING:
    from pitui.core.diff import BranchDiff, Side

# How the relation of A to B reads after "A ... B:".
RELATION_TEXT = {
    "same": "the same entry",
    "ancestor": "A is an ancestor of B",
    "descendant": "B is an ancestor of A",
    "diverged": "two branches",
    "unrelated": "no common ancestor (two roots)",
}


@click.command(
    "diff",
    context_settings=CONTEXT_SETTINGS,
    short_help="compare two branches of a session: messages, files, tools, tokens, cost",
)
@session_argument
@session_dir_option
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@json_option("one JSON object")
def command(**params: Any) -> int:
    """Compare the paths to entries A and B (ids or unique prefixes) from their common
    ancestor: each side's messages, the files its edit/write calls touched, the tools it ran,
    its tokens and cost. Never writes."""
    return run(arguments(**params))


def run(args: argparse.Namespace) -> int:
    from pitui.core.diff import branch_diff
    from pitui.core.lookup import find_entry, find_session
    from pitui.core.session import Session

    try:
        path = find_session(args.session)
        with Session.open(path) as session:
            a, b = find_entry(session, args.a), find_entry(session, args.b)
            diff = branch_diff(session, a, b)
    except LookupError as exc:
        raise CommandError(str(exc)) from exc
    if args.json:
        emit_json(diff.to_json())
    else:
        _print_diff(diff)
    return 0


def _print_diff(diff: BranchDiff) -> None:
    from pitui.core.paths import shorten_home
    from pitui.core.units import plural

    ancestor = diff.ancestor
    out(f"pitui diff: {shorten_home(diff.path)}")
    out(f"A  {entry_label(diff.a.tip)}")
    out(f"B  {entry_label(diff.b.tip)}")
    shared = plural(diff.shared, "shared entry", "shared entries")
    where = (
        f"common ancestor {entry_label(ancestor)}, {shared}"
        if ancestor is not None
        else "no common ancestor"
    )
    out(f"{RELATION_TEXT[diff.relation]}; {where}")
    for name, side in (("A", diff.a), ("B", diff.b)):
        out("")
        _print_side(name, side)


def _print_side(name: str, side: Side) -> None:
    from pitui.core.units import format_count
    from pitui.render.safe_text import one_line

    out(f"── {name}: {side.summary()}")
    for entry in side.entries:
        out(f"  {entry.meta.uid}  {one_line(entry.text, 160)}")
    if not side.entries:
        out("  (nothing after the common ancestor)")
    if side.files:
        out("  files:")
        for touch in side.files:
            out(f"    {one_line(touch.path, 120)}  ({touch.counts()})")
    if side.tools:
        tools = ", ".join(
            f"{one_line(tool, 40)} {format_count(n)}" for tool, n in side.tools.items()
        )
        out(f"  tools: {tools}")
