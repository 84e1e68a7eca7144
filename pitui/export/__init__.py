"""Exports of one branch of a session: Markdown, a self-contained HTML page, or a pi session.

- :func:`to_markdown` / :func:`to_html` draw the context the model sees at the leaf
  (``build_session_context``): Markdown written from the messages (extension messages through
  the renderer registry), HTML drawn entirely by the registry, so plug-ins apply.
- :func:`to_jsonl` is a valid pi session file holding just the branch root → leaf, computed as
  ``pitui extract`` does (labels re-added after the path, the rest re-chained, same ids), under a
  new header whose ``parentSession`` is the source file.

:func:`export_session` picks one by name; the command line and the app call it.
"""

from __future__ import annotations

import os
import re
import stat
from typing import Literal

from pitui.core.context import Leaf
from pitui.core.edit import WriteError, atomic_write, branch_file_entries, new_header
from pitui.core.jsonl import has_session_header
from pitui.core.paths import sessions_root
from pitui.core.session import Session
from pitui.core.stringify import dump_entry, dump_header
from pitui.export.document import ExportDocument, build_document
from pitui.export.html import to_html
from pitui.export.markdown import to_markdown
from pitui.render.registry import RendererRegistry

__all__ = [
    "FORMATS",
    "ExportDocument",
    "ExportFormat",
    "build_document",
    "export_name",
    "export_session",
    "to_html",
    "to_jsonl",
    "to_markdown",
    "write_export",
]

ExportFormat = Literal["md", "html", "jsonl"]
FORMATS: tuple[ExportFormat, ...] = ("md", "html", "jsonl")


def to_jsonl(session: Session, leaf: Leaf = "default", *, clock: float | None = None) -> bytes:
    """The branch root → ``leaf`` as a pi session (a header only for an empty branch)."""
    meta = session.leaf if leaf == "default" else (session.get(leaf) if leaf else None)
    if leaf not in ("default", None) and meta is None:
        raise KeyError(f"entry {leaf!r} is not in {session.path}")
    entries = branch_file_entries(session, meta, clock=clock) if meta is not None else []
    parent = session.path if session.path != "<memory>" else None
    header = new_header(session.cwd, parent_session=parent, clock=clock)
    return dump_header(header) + b"".join(dump_entry(entry) for entry in entries)


def export_session(
    session: Session,
    fmt: ExportFormat,
    leaf: Leaf = "default",
    *,
    registry: RendererRegistry | None = None,
    width: int = 100,
    dark: bool = True,
) -> bytes:
    """The export as bytes (UTF-8 text for ``md`` and ``html``)."""
    if fmt == "jsonl":
        return to_jsonl(session, leaf)
    document = build_document(session, leaf)
    if fmt == "md":
        return to_markdown(document, registry=registry, width=width).encode("utf-8")
    return to_html(document, registry=registry, width=width, dark=dark).encode("utf-8")


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def export_name(session: Session, fmt: ExportFormat, leaf: Leaf = "default") -> str:
    """A file name for an export: ``<session id>[-<leaf id>].<fmt>``, safe on any file system."""
    stem = _UNSAFE_NAME.sub("_", session.id or "session")[:80] or "session"
    if leaf not in ("default", None):
        stem += "-" + (_UNSAFE_NAME.sub("_", leaf)[:40] or "leaf")
    return f"{stem}.{fmt}"


def write_export(
    session: Session,
    fmt: ExportFormat,
    target: str,
    leaf: Leaf = "default",
    *,
    registry: RendererRegistry | None = None,
    width: int = 100,
    dark: bool = True,
    force: bool = False,
) -> str:
    """Write an export to ``target`` (a file, or a folder to put :func:`export_name` in),
    atomically; returns the file's path. Raises ``pitui.core.edit.WriteError``.

    An existing file is replaced only with ``force``, and never when it is not a regular file
    (a device, a FIFO, a link), when it is the session being exported, or when it is a pi
    session (its first line a session header): an export must never cost a session.
    """
    path = os.path.abspath(target)
    if os.path.isdir(path):
        path = os.path.join(path, export_name(session, fmt, leaf))
    exists = _check_export_target(session, path, force)
    data = export_session(session, fmt, leaf, registry=registry, width=width, dark=dark)
    atomic_write(path, [data], exclusive=not exists)
    return path


def _check_export_target(session: Session, path: str, force: bool) -> bool:
    """Whether ``path`` exists and may be replaced; raises ``WriteError`` where it may not."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise WriteError(f"{path}: {exc.strerror or exc}; nothing was written") from exc
    if not stat.S_ISREG(info.st_mode):
        raise WriteError(f"{path} exists and is not a regular file; nothing was written")
    if session.path != "<memory>" and _same_file(path, session.path):
        raise WriteError(f"{path} is the session being exported; nothing was written")
    if has_session_header(path) or (path.endswith(".jsonl") and _in_sessions_dir(path)):
        raise WriteError(f"{path} is a pi session; an export never replaces one")
    if not force:
        raise WriteError(f"{path} already exists (--force replaces it); nothing was written")
    return True


def _in_sessions_dir(path: str) -> bool:
    root = os.path.realpath(sessions_root())
    return os.path.realpath(path).startswith(root + os.sep)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
