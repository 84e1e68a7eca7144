"""Finding sessions and entries: a session file from a path or an id prefix (pi's ``--session``
argument), the most recent session of a folder (pi's ``--continue``), an entry by id prefix.

A session counts when its first line, read within 1 MB, is a header as pi's ``--continue`` sees
it (spec/session-format.md §12.3). Errors name what matched: :class:`AmbiguousIdError` lists the
candidates, :class:`SessionNotFoundError` and :class:`EntryNotFoundError` say what was missing.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from typing import Any

import orjson

from pitui.core.paths import normalize_cwd, open_regular, session_dir_for, sessions_root
from pitui.core.session import EntryMeta, Session

__all__ = [
    "AmbiguousIdError",
    "EntryNotFoundError",
    "SessionNotFoundError",
    "find_entry",
    "find_most_recent_session",
    "find_session",
    "is_path_argument",
]

_HEADER_SCAN_LIMIT = 1 << 20  # pi [new] reads up to 1 MB looking for the header line (§12.3)


class EntryNotFoundError(LookupError):
    """An entry id that is not in the session (pi throws ``Entry <id> not found``)."""

    def __init__(self, entry_id: str | None) -> None:
        super().__init__(f"Entry {entry_id} not found")
        self.entry_id = entry_id


class SessionNotFoundError(LookupError):
    """No session file matches a path or id prefix."""


class AmbiguousIdError(LookupError):
    """An id prefix that matches several sessions or entries; ``candidates`` names them."""

    def __init__(self, what: str, prefix: str, candidates: list[str]) -> None:
        shown = ", ".join(candidates[:10]) + (
            f", … ({len(candidates)} in all)" if len(candidates) > 10 else ""
        )
        super().__init__(f"{what} {prefix!r} is ambiguous: {shown}")
        self.candidates = candidates


def _header_of(path: str) -> dict[str, Any] | None:
    """The header as pi's ``--continue`` sees it (§12.3): the first line, read within 1 MB, must be
    a JSON object with ``type: "session"`` and a string ``id``."""
    try:
        with open(open_regular(path), "rb") as handle:
            head = handle.read(_HEADER_SCAN_LIMIT)
    except OSError:
        return None
    newline = head.find(b"\n")
    if newline < 0 and len(head) >= _HEADER_SCAN_LIMIT:
        return None
    first = head if newline < 0 else head[:newline]
    try:
        obj = orjson.loads(first)  # a BOM makes JSON.parse fail in pi too
    except orjson.JSONDecodeError:
        return None
    if isinstance(obj, dict) and obj.get("type") == "session" and isinstance(obj.get("id"), str):
        return obj
    return None


def find_most_recent_session(session_dir: str, cwd: str | None = None) -> str | None:
    """pi's ``findMostRecentSession`` (§12.3): the ``.jsonl`` file of ``session_dir`` with the
    newest modification time whose first line is a valid header. With ``cwd`` (custom session
    directories, [new]) only headers whose cwd resolves to it count. Ties: the path decides."""
    try:
        names = os.listdir(session_dir)
    except OSError:
        return None
    wanted = normalize_cwd(cwd) if cwd is not None else None
    best: tuple[int, str] | None = None
    for name in names:
        if not name.endswith(".jsonl"):
            continue
        path = os.path.join(session_dir, name)
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            continue
        header = _header_of(path)
        if header is None:
            continue
        if wanted is not None:
            header_cwd = header.get("cwd")
            if not isinstance(header_cwd, str) or not header_cwd:
                continue
            if normalize_cwd(header_cwd) != wanted:
                continue
        key = (mtime, path)
        if best is None or key > best:
            best = key
    return best[1] if best is not None else None


def is_path_argument(arg: str) -> bool:
    """pi's ``--session`` rule (§12.3): a ``/`` or ``\\`` or a ``.jsonl`` ending makes a path."""
    return "/" in arg or "\\" in arg or arg.endswith(".jsonl")


def _sessions_with_prefix(folders: Sequence[str], prefix: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for folder in folders:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if not name.endswith(".jsonl"):
                continue
            path = os.path.join(folder, name)
            header = _header_of(path)
            if header is not None and header["id"].startswith(prefix):
                found.append((header["id"], path))
    return found


def find_session(arg: str, cwd: str | None = None, session_dir: str | None = None) -> str:
    """A session file from a path or a session id prefix (pi's ``--session`` argument, §12.3).

    A prefix is looked up in ``cwd``'s session directory first (default: the process's cwd), then
    in every folder of the sessions root; with ``session_dir`` (pi's ``--session-dir``) in that
    folder only. Unlike pi, which silently takes the newest match, a
    prefix that matches several sessions raises :class:`AmbiguousIdError` naming them (an exact
    id wins). Raises :class:`SessionNotFoundError` when nothing matches.
    """
    if is_path_argument(arg):
        path = os.path.abspath(os.path.expanduser(arg))
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            raise SessionNotFoundError(f"{arg}: no such session file") from None
        except OSError as exc:
            raise SessionNotFoundError(f"{arg}: {exc.strerror or exc}") from None
        if stat.S_ISDIR(mode):
            raise SessionNotFoundError(f"{arg}: is a folder, not a session file")
        if not stat.S_ISREG(mode):
            raise SessionNotFoundError(
                f"{arg}: not a regular file (a FIFO, a device or a socket); pitui reads only "
                "session files"
            )
        return path
    if not arg:
        raise SessionNotFoundError("an empty session id matches nothing")
    if session_dir is not None:
        here, others = os.path.abspath(os.path.expanduser(session_dir)), []
    else:
        here = str(session_dir_for(cwd if cwd is not None else os.getcwd()))
        root = sessions_root()
        try:
            others = sorted(str(root / n) for n in os.listdir(root) if (root / n).is_dir())
        except OSError:
            others = []
    for folders in ([here], [f for f in others if f != here]):
        found = _sessions_with_prefix(folders, arg)
        exact = [path for sid, path in found if sid == arg]
        if len(exact) == 1:
            return exact[0]
        if len(found) == 1:
            return found[0][1]
        if found:
            raise AmbiguousIdError(
                "session id prefix", arg, [f"{sid} ({path})" for sid, path in found]
            )
    raise SessionNotFoundError(f"no session id starts with {arg!r}")


def find_entry(session: Session, ref: str) -> EntryMeta:
    """An entry of ``session`` by id (or the index's ``id#line`` for an earlier duplicate), or by
    a unique id prefix. Raises :class:`EntryNotFoundError` or :class:`AmbiguousIdError`."""
    meta = session.get(ref)
    if meta is not None:
        return meta
    matches = [
        m
        for m in session.entries
        if ref and m.id is not None and m.id.startswith(ref) and session.by_id.get(m.id) is m
    ]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise AmbiguousIdError("entry id prefix", ref, [m.uid for m in matches])
    raise EntryNotFoundError(ref)
