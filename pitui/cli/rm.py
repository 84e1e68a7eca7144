"""``pitui rm``: sessions to the trash, one by one or in bulk.

``pitui rm PATH|ID-PREFIX...`` trashes the named sessions. ``pitui rm --all|--cwd DIR`` selects
sessions of every folder or of one folder, narrowed by ``--older-than`` (pi's ``modified``: the
last user or assistant message, format §12.2), ``--empty`` (no user or assistant text),
``--max-messages`` and ``--match`` (words and phrases found exactly, or ``re:``). The selection
is listed first, with the forks that name each session as their parent; ``--dry-run`` stops
there, otherwise the user confirms (or passes ``--yes``). Files go to the trash (freedesktop:
``pitui restore`` brings them back); a session pi wrote in the last seconds is left alone unless
``--force``.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from pitui.cli.common import (
    CONTEXT_SETTINGS,
    CommandError,
    UsageErrors,
    arguments,
    emit_json,
    json_option,
    out,
    session_dir_option,
)
from pitui.core.paths import normalize_session_path, shorten_home
from pitui.core.units import format_count, plural

if TYPE_CHECKING:
    from pitui.core.search import Query
    from pitui.core.session_info import SessionInfo
    from pitui.core.store import Store

# The core (pydantic models, search) is imported when the command runs: `pitui --help` and the
# other commands start without it.

_DURATION = re.compile(r"(\d+)([smhdw])")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def _age(text: str) -> float:
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        raise click.BadParameter(f"not an age: {text!r} (examples: 90d, 12h, 2w)")
    return int(match[1]) * _UNIT_SECONDS[match[2]]


def _count(text: str) -> int:
    if not text.isdigit():
        raise click.BadParameter(f"not a count: {text!r}")
    return int(text)


@click.command(
    "rm",
    context_settings=CONTEXT_SETTINGS,
    short_help="move sessions to the trash: by path or id, or in bulk (--all/--cwd with filters)",
)
@click.argument("sessions", metavar="[PATH|ID-PREFIX]...", nargs=-1)
@click.option("--all", is_flag=True, help="select the sessions of every folder")
@click.option("--cwd", metavar="DIR", help="select the sessions of folder DIR")
@session_dir_option
@click.option(
    "--older-than",
    metavar="AGE",
    type=_age,
    help="only sessions last active before AGE ago (30d, 12h, 2w; s m h d w)",
)
@click.option("--empty", is_flag=True, help="only sessions without user or assistant text")
@click.option(
    "--max-messages", metavar="N", type=_count, help="only sessions with at most N messages"
)
@click.option(
    "--match",
    metavar="QUERY",
    help='only sessions holding every word and "phrase" of QUERY exactly (or re:REGEX)',
)
@click.option("--dry-run", is_flag=True, help="list the selection, trash nothing")
@click.option("--yes", "-y", is_flag=True, help="do not ask for confirmation")
@json_option()
@click.option("--force", is_flag=True, help="trash sessions pi wrote in the last seconds too")
def command(**params: Any) -> int:
    """Move sessions to the trash (pitui restore brings them back). Name them, or select them
    with --all or --cwd DIR and narrow with the filters. The selection is listed, with the forks
    of each session, and must be confirmed unless --yes."""
    args = arguments(**params)
    if args.all and args.cwd is not None:
        args.parser.error("--all is not allowed with --cwd: every folder, or one")
    args.sessions = list(args.sessions)
    return run(args)


@dataclass(slots=True)
class Candidate:
    path: str
    info: SessionInfo | None  # None: the file is not a readable session
    forks: list[str] = field(default_factory=list)
    skipped: str | None = None

    def to_json(self) -> dict[str, Any]:
        from pitui.core.search import display_title

        info = self.info
        return {
            "path": self.path,
            "id": info.id if info else None,
            "name": info.name if info else None,
            "title": display_title(info.name, info.first_message) if info else None,
            "cwd": info.cwd if info else None,
            "modified": info.modified_iso if info else None,
            "messageCount": info.message_count if info else None,
            "forks": list(self.forks),
        }


def _validate(args: argparse.Namespace) -> None:
    from pitui.core.search import parse_query

    parser: UsageErrors = args.parser
    bulk = args.all or args.cwd is not None
    filters = (
        args.older_than is not None
        or args.empty
        or args.max_messages is not None
        or args.match is not None
    )
    if args.sessions and bulk:
        parser.error("name sessions or select them with --all/--cwd, not both")
    if not args.sessions and not bulk:
        parser.error("name the sessions to trash, or select them with --all or --cwd DIR")
    if filters and not bulk:
        parser.error("--older-than, --empty, --max-messages and --match need --all or --cwd")
    if args.match is not None and parse_query(args.match).error is not None:
        parser.error(f"--match: {parse_query(args.match).error}")


def _info_for(path: str) -> SessionInfo | None:
    from pitui.core.file_summary import summarise_file
    from pitui.core.session_info import SessionInfo

    summary = summarise_file(path)
    if summary.row is None:
        return None
    info = SessionInfo.from_row(path, summary.key[0], summary.row)
    info.all_messages_text = summary.search_text  # (with a parseable cut last line, as listed)
    return info


def _select(
    args: argparse.Namespace, everything: list[SessionInfo], store: Store
) -> list[Candidate]:
    from pitui.core.lookup import find_session
    from pitui.core.regex_search import regex_budget
    from pitui.core.search import score
    from pitui.core.store import Store

    known = {normalize_session_path(i.path): i for i in everything}
    if args.sessions:
        chosen: list[Candidate] = []
        seen: set[str] = set()
        for arg in args.sessions:
            path = find_session(arg)
            key = normalize_session_path(path)
            if key in seen:
                continue
            seen.add(key)
            info = known.get(key)
            chosen.append(Candidate(path, info if info is not None else _info_for(path)))
        return chosen
    if args.all:
        infos = everything
    else:
        with Store(cwd=args.cwd) as folder:
            infos = folder.load("current")
    now_ms = time.time() * 1000
    query = None
    if args.match is not None:
        query = exact_query(args.match)
        store.load_texts(infos)
    selected: list[Candidate] = []
    with regex_budget():  # (a re: query's matches share a time limit)
        for info in infos:
            if args.older_than is not None and info.modified >= now_ms - args.older_than * 1000:
                continue
            if args.empty and info.text_length > 0:
                continue
            if args.max_messages is not None and info.message_count > args.max_messages:
                continue
            if query is not None and score(query, info.search_text) is None:
                continue
            selected.append(Candidate(info.path, info))
    return selected


def exact_query(text: str) -> Query:
    """The picker's query syntax, without its fuzziness: a selection that trashes must not pick
    what a subsequence happens to match (``parsePort`` fuzzily found 24 of 37 sessions). Every
    word and every quoted phrase must appear as it is written (case and runs of white space
    aside); ``re:PATTERN`` is a regular expression, as in the picker."""
    from pitui.core.search import Query, Token, parse_query

    parsed = parse_query(text)
    if parsed.mode == "regex":
        return parsed
    return Query("tokens", tuple(Token("phrase", token.value) for token in parsed.tokens))


def _link_forks(candidates: list[Candidate], everything: list[SessionInfo]) -> None:
    children: dict[str, list[str]] = {}
    for info in everything:
        if info.parent_session_path:
            parent = normalize_session_path(info.parent_session_path)
            children.setdefault(parent, []).append(info.path)
    for candidate in candidates:
        candidate.forks = sorted(children.get(normalize_session_path(candidate.path), []))


def _mark_busy(candidates: list[Candidate], force: bool, explicit: bool) -> None:
    from pitui.core.actions import busy_age

    if force:
        return
    for candidate in candidates:
        try:
            age = busy_age(candidate.path)
        except OSError as exc:
            candidate.skipped = exc.strerror or str(exc)
            continue
        if age is not None:
            if explicit:
                raise CommandError(
                    f"{candidate.path} was written {age:.1f}s ago: pi may be working in "
                    "it (use --force to trash it anyway); nothing was trashed"
                )
            candidate.skipped = "written seconds ago (pi may be working in it); use --force"


def _describe(candidate: Candidate) -> None:
    from pitui.core.search import display_title
    from pitui.render.safe_text import one_line

    info = candidate.info
    where = shorten_home(candidate.path)
    if info is None:
        out(f"  {where}  (not a readable pi session)")
    else:
        title = one_line(" ".join(display_title(info.name, info.first_message).split()), 60)
        messages = format_count(info.message_count)
        out(f"  {info.modified_iso[:16]}  {messages:>5} msgs  {title}")
        out(f"      {where}")
    if candidate.forks:
        count = len(candidate.forks)
        out(f"      parent of {plural(count, 'fork')} (they stay):")
        for fork in candidate.forks:
            out(f"        {shorten_home(fork)}")
    if candidate.skipped:
        out(f"      skipped: {candidate.skipped}")


def _confirm(count: int) -> bool:
    sys.stderr.write(f"Move {plural(count, 'session')} to the trash? [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline()
    return answer.strip().lower() in ("y", "yes")


def run(args: argparse.Namespace) -> int:
    from pitui.core import actions
    from pitui.core.regex_search import RegexTooSlow
    from pitui.core.store import Store

    _validate(args)
    try:
        with Store() as store:
            # every session, for the forks of the selected ones (forks live in any folder)
            everything = store.load("all")
            candidates = _select(args, everything, store)
            for warning in store.warnings:  # (a folder that cannot be read is not selected)
                sys.stderr.write(f"pitui: warning: {warning}\n")
    except (LookupError, RegexTooSlow) as exc:
        raise CommandError(str(exc)) from exc
    _link_forks(candidates, everything)
    _mark_busy(candidates, args.force, explicit=bool(args.sessions))
    todo = [c for c in candidates if c.skipped is None]
    report: dict[str, Any] = {
        "dryRun": args.dry_run,
        "sessions": [c.to_json() for c in todo],
        "skipped": [{"path": c.path, "reason": c.skipped} for c in candidates if c.skipped],
        "trashed": [],
        "failed": [],
    }
    if not args.json:
        if todo:
            what = "would go to the trash" if args.dry_run else "selected"
            out(f"{plural(len(todo), 'session')} {what}:")
        for candidate in candidates:
            _describe(candidate)
        if not candidates:
            out("no sessions match")
    if args.dry_run or not todo:
        if args.json:
            emit_json(report)
        return 0
    if not args.yes and not _confirm(len(todo)):
        if args.json:
            emit_json(report)
        raise CommandError("not confirmed: nothing was trashed")
    outcome = actions.trash([candidate.path for candidate in todo])
    for path, item in outcome.trashed:
        report["trashed"].append({"path": path, "trash": item.stored if item is not None else None})
    for path, error in outcome.failed:
        report["failed"].append({"path": path, "error": error})
    if args.json:
        emit_json(report)
    else:
        done = len(report["trashed"])
        out(f"moved {plural(done, 'session')} to the trash (pitui restore --last)")
        for failure in report["failed"]:
            out(f"  failed: {failure['error']}")
    if report["failed"]:
        raise CommandError(f"{len(report['failed'])} session(s) could not be trashed")
    return 0
