"""``pitui doctor [PATH|--all] [--json]``: what is wrong with session files (read-only).

With PATH, one file in detail: its problems with line and byte offset, whether pi 0.73.1 and pi
1.x would load it, its largest entries and what they are made of. Without PATH, every session file
of the current folder (``--all``: of every folder): the files with problems in detail, then a
summary and the largest files. Nothing is written and no repair is offered; the listing cache is
not used. Exit status: 0 when every file is healthy, 1 when any has a problem, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

import click

from pitui.cli.common import (
    CONTEXT_SETTINGS,
    CommandError,
    arguments,
    emit_json,
    json_option,
    out,
    progress_line,
    session_dir_option,
)

if TYPE_CHECKING:
    from pitui.core.doctor import FileReport, TempFile
    from pitui.core.store import Scope

# Human output lists at most this many problems per file (--json has them all).
_SHOWN_PROBLEMS = 20
_LARGEST_FILES = 5

_EPILOG = (
    "exit status: 0 when every file checked is healthy, 1 when any file has a problem (an error "
    "or a warning; notes such as an old format version do not count), 2 on a usage error."
)


@click.command(
    "doctor",
    context_settings=CONTEXT_SETTINGS,
    short_help="report what is wrong with session files (read-only; exit 1 when any has a problem)",
    epilog=_EPILOG,
)
@click.argument("path", metavar="[PATH|ID-PREFIX]", required=False)
@click.option("--all", is_flag=True, help="every folder's session files")
@click.option("--cwd", metavar="DIR", help="current folder (default: this one)")
@session_dir_option
@json_option("one JSON object with every finding")
def command(**params: Any) -> int:
    """Check session files for what the format's edge cases name: malformed and truncated lines,
    duplicate headers and ids, orphans, cycles, labels on missing entries, a byte order mark, v4
    harness files, empty or unreadable files, temp files left by an interrupted rewrite. Also
    shows whether pi 0.73.1 and pi 1.x would load each file and what makes it big. Never writes;
    offers no repair. Without PATH: this folder's session files.
    """
    args = arguments(**params)
    if args.path is not None and args.all:
        args.parser.error("--all is not allowed with PATH: one file, or every folder's")
    return run(args)


def run(args: argparse.Namespace) -> int:
    from pitui.core.doctor import diagnose_file

    if args.path is not None:
        report = diagnose_file(_session_path(args.path, args.session_dir))
        if args.json:
            emit_json(_json([report], [], {}))
        else:
            _print_file(report, detailed=True)
        return 0 if report.healthy else 1
    reports, leftovers, unreadable = _scope(args)
    if args.json:
        emit_json(_json(reports, leftovers, unreadable))
    else:
        _print_scope(reports, leftovers, unreadable)
    healthy = all(r.healthy for r in reports) and not any(t.stale for t in leftovers)
    return 0 if healthy and not unreadable else 1


def _session_path(arg: str, session_dir: str | None) -> str:
    """The file named, or the session an id prefix names (a file that does not exist or is not
    a session is diagnosed as it is: that is the doctor's job)."""
    from pitui.core.lookup import find_session, is_path_argument

    if is_path_argument(arg) or os.path.exists(arg):
        return arg
    try:
        return find_session(arg, session_dir=session_dir)
    except LookupError as exc:
        raise CommandError(str(exc)) from exc


def _scope(
    args: argparse.Namespace,
) -> tuple[list[FileReport], list[TempFile], dict[str, str]]:
    """The scope's reports, its leftover temp files, and the folders that could not be read
    (folder → why: their files are not checked)."""
    from pitui.core.doctor import diagnose_paths, find_temp_files
    from pitui.core.store import Store

    store = Store(cwd=args.cwd, session_dir=args.session_dir, use_index=False)
    try:
        scope: Scope = "all" if args.all else "current"
        paths = [c.path for c in store.candidates(scope)]
        with progress_line("Checking") as progress:
            reports = diagnose_paths(paths, progress=progress)
        known = {os.path.abspath(p) for p in paths}
        leftovers = [
            temp
            for folder in store.scope_dirs(scope)
            for temp in find_temp_files(folder)
            if temp.target not in known
        ]
        unreadable = store.unreadable_folders
    finally:
        store.close()
    return reports, leftovers, unreadable


def _json(
    reports: list[FileReport], leftovers: list[TempFile], unreadable: dict[str, str]
) -> dict[str, Any]:
    unhealthy = sum(1 for r in reports if not r.healthy)
    return {
        "healthy": unhealthy == 0 and not any(t.stale for t in leftovers) and not unreadable,
        "files": [r.to_json() for r in reports],
        "leftoverTempFiles": [t.to_json() for t in leftovers],
        "unreadableFolders": [
            {"path": folder, "reason": reason} for folder, reason in unreadable.items()
        ],
        "summary": {
            "files": len(reports),
            "healthy": len(reports) - unhealthy,
            "withProblems": unhealthy,
        },
    }


# ------------------------------------------------------------------------------ human output


def _print_file(report: FileReport, *, detailed: bool) -> None:
    from pitui.core.doctor import report_lines

    for line in report_lines(report, detailed=detailed, max_problems=_SHOWN_PROBLEMS):
        out(line)


def _print_scope(
    reports: list[FileReport], leftovers: list[TempFile], unreadable: dict[str, str]
) -> None:
    from pitui.core.units import format_bytes, format_count, plural

    for folder, reason in unreadable.items():
        out(f"{folder}: cannot read the folder ({reason}): its session files are not checked")
    if not reports and not leftovers:
        out("no session files found")
        return
    for report in reports:
        if not report.healthy:
            _print_file(report, detailed=False)
    for temp in leftovers:
        state = "stale" if temp.stale else "a rewrite may be running right now"
        out(
            f"{temp.path}: leftover temp file of {os.path.basename(temp.target)}, which no "
            f"longer exists ({format_bytes(temp.size)}, {state})"
        )
    unhealthy = sum(1 for r in reports if not r.healthy)
    out(
        f"checked {plural(len(reports), 'file')}: "
        f"{len(reports) - unhealthy} healthy, {unhealthy} with problems"
    )
    biggest = sorted((r for r in reports if r.size), key=lambda r: -(r.size or 0))
    if biggest:
        out("largest files")
        for report in biggest[:_LARGEST_FILES]:
            total = report.size or 1
            kinds = ", ".join(
                f"{kind} {100 * n / total:.0f}%"
                for kind, n in list(report.bytes_by_kind.items())[:2]
            )
            top = report.largest[0] if report.largest else None
            entry = f"; largest entry {format_bytes(top.length)} of {top.kind}" if top else ""
            out(
                f"  {format_bytes(report.size):>10}  {report.path} "
                f"({format_count(report.entries)} entries{'; ' + kinds if kinds else ''}{entry})"
            )
