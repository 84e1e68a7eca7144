"""``pitui list``: the sessions of the current folder (or all folders), as the picker shows them.

``--json`` prints pi's ``SessionInfo`` keys (``path``, ``id``, ``cwd``, ``name``,
``parentSessionPath``, ``created``, ``modified``, ``messageCount``, ``firstMessage``) and pitui's
extras, in the order of the sort mode. ``--no-index`` computes everything from the files, without
the cache (and without creating its directory). ``--fts QUERY`` searches every message body of
every branch instead (full text, through the index) and prints one hit per entry.

The store and the renderers are imported only when the command runs: ``pitui --help`` and the
other commands do not pay for them.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from typing import TYPE_CHECKING, Any

import click

from pitui.cli.common import (
    CONTEXT_SETTINGS,
    CommandError,
    arguments,
    json_option,
    progress_line,
    session_dir_option,
)

if TYPE_CHECKING:
    from pitui.core.search import Row
    from pitui.core.store import Scope, SessionInfo, Store

SORT_MODES = ("threaded", "recent", "relevance")


@click.command(
    "list",
    context_settings=CONTEXT_SETTINGS,
    short_help="list sessions of this folder (or all folders), as pi's session picker does",
)
@click.option("--all", is_flag=True, help="all folders (pi's listAll)")
@click.option("--cwd", metavar="DIR", help="current folder (default: this one)")
@session_dir_option
@click.option(
    "--sort",
    type=click.Choice(SORT_MODES),
    default="threaded",
    show_default=True,
    help="sort mode",
)
@click.option(
    "--search", metavar="QUERY", default="", help='pi\'s picker search: words, "phrase", re:…'
)
@click.option("--named", is_flag=True, help="only named sessions")
@json_option("a JSON array, keys as pi names them")
@click.option("--no-index", is_flag=True, help="read every file; do not use or create the cache")
@click.option(
    "--fts",
    metavar="QUERY",
    help='full-text search of every message body (words, "phrase", prefix*)',
)
@click.option(
    "--limit", type=int, default=50, metavar="N", show_default=True, help="hits shown by --fts"
)
def command(**params: Any) -> int:
    """List pi sessions like the /resume picker: newest activity first, pi's search and sort
    modes. Uses a disposable index in the XDG cache directory."""
    return run(arguments(**params))


def run(args: argparse.Namespace) -> int:
    from pitui.core.store import Store

    scope: Scope = "all" if args.all else "current"
    store = Store(
        cwd=args.cwd,
        session_dir=args.session_dir,
        use_index=not args.no_index,
        collect_texts=bool(args.search),  # a listing that does not search reads no texts
    )
    try:
        if args.fts is not None:
            return _full_text(store, scope, args)
        if args.json and not args.search and _print_listed(store, scope, args):
            return _unread_exit(store)
        with progress_line("Loading") as progress:
            texts = args.no_index and bool(args.search)
            sessions = store.load(scope, progress=progress, texts=texts)
        from pitui.core.regex_search import RegexTooSlow

        with progress_line("Reading texts") as progress:  # (those a text-less listing left out)
            try:
                rows = store.rows(sessions, args.search, args.sort, args.named, progress=progress)
            except RegexTooSlow as exc:
                raise CommandError(str(exc)) from exc
        if args.json:
            from pitui.cli.common import emit_json

            emit_json([row.item.to_json() for row in rows])
        else:
            _print_table(rows, scope, args.named, store)
    finally:
        _warn(store)
        store.close()
    return _unread_exit(store)


def _unread_exit(store: Store) -> int:
    # a folder that could not be read leaves its sessions out: the listing is incomplete (1,
    # as ``ls`` answers for a folder it cannot open), and the warning names the folder
    return 1 if store.unreadable_folders else 0


def _print_listed(store: Store, scope: Scope, args: argparse.Namespace) -> bool:
    """``--json`` without a search, from the stored JSON of each session: the same bytes as
    :func:`~pitui.cli.common.emit_json` of every ``to_json()``, without building them.
    False (nothing printed) when a session's JSON needs the standard encoder (lone surrogates).
    """
    from pitui.core.memory import collector_paused

    # (a record per session and no cycles: the collector would only scan them, and what they
    # hold lives until the process ends)
    with collector_paused(freeze=True), progress_line("Loading") as progress:
        output = store.listed_json(scope, args.sort, args.named, progress=progress)
    if output is None:
        return False
    from pitui.cli.common import emit_json_bytes

    emit_json_bytes(output)
    return True


def _warn(store: Store) -> None:
    for warning in store.warnings:
        sys.stderr.write(f"pitui: warning: {warning}\n")


def _empty_text(scope: str, named: bool) -> str:
    # the picker's texts (ui §2.2), without the key hints that mean nothing here
    if named:
        return (
            "No named sessions found." if scope == "all"
            else "No named sessions in current folder."
        )  # fmt: skip
    return "No sessions found." if scope == "all" else "No sessions in current folder."


def _print_table(rows: list[Row[SessionInfo]], scope: str, named: bool, store: Store) -> None:
    from rich.cells import cell_len

    from pitui.cli.common import out
    from pitui.core.paths import shorten_home
    from pitui.core.search import display_title, marked_title
    from pitui.core.units import format_age, format_count
    from pitui.render.safe_text import one_line

    if not rows:
        out(_empty_text(scope, named))
        return
    width = shutil.get_terminal_size((100, 24)).columns
    for row in rows:
        info = row.item
        right = [format_count(info.message_count), format_age(info.modified)]
        if scope == "all" and info.cwd:
            right.insert(0, one_line(shorten_home(info.cwd)))
        right_text = " ".join(right)
        title_width = max(10, width - cell_len(row.prefix) - (cell_len(right_text) + 2))
        title = display_title(info.name, info.first_message)
        title = one_line(marked_title(title, info.header_problem), title_width)
        pad = width - cell_len(row.prefix) - cell_len(title) - cell_len(right_text)
        out(f"{row.prefix}{title}{' ' * max(1, pad)}{right_text}")


def _full_text(store: Store, scope: Scope, args: argparse.Namespace) -> int:
    from pitui.core.fulltext import hit_snippet

    with progress_line("Indexing") as progress:
        store.sync_fts(scope, progress=progress)
    hits = store.text_search(args.fts, scope=scope, limit=args.limit)
    if args.json:
        from pitui.cli.common import emit_json

        emit_json(
            [
                {
                    "path": hit.path,
                    "entryId": hit.entry_id,
                    "kind": hit.kind,
                    "offset": hit.offset,
                    "rank": hit.rank,
                    "snippet": hit_snippet(hit, args.fts),
                }
                for hit in hits
            ]
        )
        return 0
    from pitui.cli.common import out
    from pitui.core.paths import shorten_home
    from pitui.render.safe_text import one_line

    if not hits:
        out("No matches." if scope == "all" else "No matches in current folder.")
    for hit in hits:
        out(f"{shorten_home(hit.path)}  {hit.entry_id}  {hit.kind}")
        out("    " + one_line(hit_snippet(hit, args.fts), 150))
    return 0
