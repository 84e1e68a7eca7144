"""``pitui stats [--all] [--by model|project|day] [--json]``: sessions, messages, tokens, cost.

The files are those ``pitui list`` shows for the scope; forks' replayed history is counted once
(the rule is in :mod:`pitui.core.stats`).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

import click

from pitui.cli.common import (
    CONTEXT_SETTINGS,
    arguments,
    emit_json,
    json_option,
    out,
    progress_line,
    session_dir_option,
)
from pitui.core.units import format_cost, format_count

if TYPE_CHECKING:
    from pitui.core.stats import StatsReport, Tally

_NAME_CELLS = 48


@click.command(
    "stats",
    context_settings=CONTEXT_SETTINGS,
    short_help="sessions, messages, tokens and cost of this folder's (or all) sessions",
)
@click.option("--all", is_flag=True, help="all folders, not only this one")
@click.option("--by", type=click.Choice(("model", "project", "day")), help="one row per group")
@json_option("one JSON object")
@click.option("--cwd", metavar="DIR", help="current folder (default: this one)")
@session_dir_option
@click.option("--no-index", is_flag=True, help="list files without the cache (nor create it)")
def command(**params: Any) -> int:
    """Add up sessions, messages, tokens and cost. History a fork copied from its parent is
    counted once (an entry is the same entry in every file holding it: same id, timestamp and
    type)."""
    return run(arguments(**params))


def run(args: argparse.Namespace) -> int:
    from pitui.core.stats import store_stats
    from pitui.core.store import Store

    store = Store(cwd=args.cwd, session_dir=args.session_dir, use_index=not args.no_index)
    try:
        with progress_line("Reading") as progress:
            report = store_stats(
                store, "all" if args.all else "current", by=args.by, progress=progress
            )
    finally:
        for warning in store.warnings:
            sys.stderr.write(f"pitui: warning: {warning}\n")
        store.close()
    if args.json:
        emit_json(report.to_json())
    else:
        _print_report(report, "all folders" if args.all else store.cwd)
    return 1 if store.unreadable_folders else 0  # (incomplete totals: the warning says why)


def _row(name: str, tally: Tally) -> list[str]:
    return [
        name,
        format_count(tally.sessions),
        format_count(tally.messages),
        format_count(int(tally.input_tokens)),
        format_count(int(tally.output_tokens)),
        format_count(int(tally.cache_read_tokens + tally.cache_write_tokens)),
        format_count(int(tally.total_tokens)),
        format_cost(tally.cost),
    ]


def _print_report(report: StatsReport, where: str) -> None:
    from rich.cells import cell_len

    from pitui.render.safe_text import one_line

    head = ["", "sessions", "messages", "input", "output", "cache r+w", "total tokens", "cost"]
    if report.by is not None:
        head[0] = report.by
    rows = [_row(key, tally) for key, tally in report.groups]
    rows.append(_row("total", report.totals))
    # group names are session text (folders, model names): cut and padded by terminal cells
    for row in rows:
        row[0] = one_line(row[0], _NAME_CELLS)
    widths = [max(cell_len(row[i]) for row in [head, *rows]) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        first = cells[0] + " " * (widths[0] - cell_len(cells[0]))
        pairs = zip(cells[1:], widths[1:], strict=True)
        rest = "  ".join(cell.rjust(width) for cell, width in pairs)
        return f"{first}  {rest}"

    out(f"pitui stats: {where}")
    out(line(head))
    for row in rows[:-1]:
        out(line(row))
    if report.by is not None:
        out("-" * len(line(head)))
    out(line(rows[-1]))
    if report.replayed:
        out(f"({format_count(report.replayed)} entries copied by forks were counted once)")
    for path, reason in report.skipped:
        out(f"skipped {path}: {reason}")
