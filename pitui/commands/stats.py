"""``pitui stats [--all] [--by model|project|day] [--json]``: sessions, messages, tokens, cost.

The files are those ``pitui list`` shows for the scope; forks' replayed history is counted once
(the rule is in :mod:`pitui.core.stats`).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from pitui.commands.common import emit_json, format_cost, out, progress_line

if TYPE_CHECKING:
    from pitui.core.stats import StatsReport, Tally

_NAME_CELLS = 48


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "stats",
        help="sessions, messages, tokens and cost of this folder's (or all) sessions",
        description="Add up sessions, messages, tokens and cost. History a fork copied from its "
        "parent is counted once (an entry is the same entry in every file holding it: same id, "
        "timestamp and type).",
    )
    parser.add_argument("--all", action="store_true", help="all folders, not only this one")
    parser.add_argument("--by", choices=("model", "project", "day"), help="one row per group")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.add_argument("--cwd", metavar="DIR", help="current folder (default: this one)")
    parser.add_argument(
        "--session-dir", metavar="DIR", help="pi's custom session directory (--session-dir)"
    )
    parser.add_argument(
        "--no-index", action="store_true", help="list files without the cache (nor create it)"
    )
    parser.set_defaults(run=run)


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
    return 0


def _row(name: str, tally: Tally) -> list[str]:
    return [
        name,
        f"{tally.sessions:,}",
        f"{tally.messages:,}",
        f"{int(tally.input_tokens):,}",
        f"{int(tally.output_tokens):,}",
        f"{int(tally.cache_read_tokens + tally.cache_write_tokens):,}",
        f"{int(tally.total_tokens):,}",
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
        out(f"({report.replayed:,} entries copied by forks were counted once)")
    for path, reason in report.skipped:
        out(f"skipped {path}: {reason}")
