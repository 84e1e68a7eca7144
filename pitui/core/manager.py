"""pi's ``SessionManager`` for Python: open, walk, append to and branch session files.

Same methods and meaning as pi's TypeScript ``SessionManager`` (spec/session-format.md §7-§12),
with Python names, typed with the pydantic models of :mod:`pitui.core.models` (messages and
entries in as models or plain dicts; entries and messages out as models), and without pi's
documented bugs:

- **Deferred first flush, exclusive** (§9.1): a new session has no file until it holds an
  assistant message; then the header and every entry so far are written at once into a file that
  must not exist yet. Afterwards each entry is one appended line. A session that is already on
  disk is appended to directly, so no header or entry is ever written twice.
- **Appends** go through :func:`pitui.core.actions.append`, with the guards of every pitui
  write: the file is re-read first (an entry pi appended meanwhile is honoured: ids stay unique,
  the new entries are indexed), one ``O_APPEND`` write of whole lines, never onto a line still
  being written (a complete last line without newline gets it in the same write). A file that
  someone else (pi) wrote in the last few seconds is refused with
  :class:`~pitui.core.edit.FileBusyError` unless ``force`` is set; pitui's own last write
  (this manager's, or any pitui process's) does not count.
- **Old formats** (v1/v2) are migrated by an atomic rewrite right before the first write, as pi
  does on open; reading alone never writes.
- **Invalid files are refused** (:class:`~pitui.core.session.NotASessionError`), never
  overwritten; a blank file is initialised only by the first flush, and only if still blank.
- **Branch extraction re-chains** around the label entries it drops, so nothing is orphaned, and
  re-adds labels with their original label time (§11.1).

The leaf lives in memory only, as in pi (§7.3): ``branch`` and ``reset_leaf`` move it without
writing; the next append becomes a child of it. Entry ids are the index's ids (``EntryMeta.uid``):
pi's id for every normal entry.

Example::

    sm = SessionManager.open(path)
    for node in sm.get_tree(): ...
    sm.append_label_change(sm.get_leaf_id(), "checkpoint")
    sm.branch(earlier_id)
    ctx = sm.build_session_context()
"""

from __future__ import annotations

import builtins
import os
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel

from pitui.core import actions, edit
from pitui.core.actions import Pruned
from pitui.core.context import build_context_entries as _context_entries
from pitui.core.context import build_session_context as _session_context
from pitui.core.js import normalize_session_name
from pitui.core.lookup import EntryNotFoundError, find_most_recent_session
from pitui.core.manager_io import (
    ContextResult,
    MessageInput,
    TreeNode,
    checked_message,
    json_value,
    message_raw,
    parse_meta,
)
from pitui.core.models import Entry, SessionHeader, parse_header, parse_message
from pitui.core.paths import session_dir_for, session_file_name
from pitui.core.prune import PrunePlan, plan_prune
from pitui.core.session import EntryMeta, Session
from pitui.core.session_info import SessionInfo
from pitui.core.stringify import dump_entry, dump_header

__all__ = [
    "ContextResult",
    "EntryNotFoundError",
    "MessageInput",
    "SessionInfo",
    "SessionManager",
    "TreeNode",
]


class SessionManager:
    """A session as pi's ``SessionManager`` manages it: a tree of entries and an in-memory leaf.

    Build one with :meth:`create`, :meth:`open`, :meth:`continue_recent`, :meth:`in_memory` or
    :meth:`fork_from`. Use it as a context manager (or call :meth:`close`) to release the file.

    ``force``: write even to a file someone else wrote in the last few seconds (pi may be working
    in it) or to a file whose missing format version pi would linearize. Off by default.

    ``clock`` (epoch seconds) and ``rng`` replace the wall clock and the random source of entry
    and session ids and timestamps, so that a generated session is reproducible byte for byte
    (the demo store). By default pi's way: the current time and ``secrets``.
    """

    def __init__(
        self,
        cwd: str,
        session_dir: str,
        session_file: str | None,
        persist: bool,
        *,
        force: bool = False,
        clock: Callable[[], float] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        """Prefer the named constructors; this mirrors pi's private constructor."""
        self.force = force
        self._clock = clock
        self._rng = rng
        self._cwd = cwd
        self._session_dir = session_dir
        self._persist = persist
        self._file: str | None = None
        self._header: dict[str, Any] = {}
        # entries not on disk yet (all of them until the first flush)
        self._pending: builtins.list[dict[str, Any]] = []
        self._pending_ids: set[str] = set()
        self._flushed = False
        self._blank_target = False  # the file exists but is blank: the first flush replaces it
        self._index: Session | None = None  # the file's index once flushed
        self._memo: Session | None = None  # index of the pending entries (unflushed sessions)
        self._leaf: str | None = None
        if session_file is not None:
            self.set_session_file(session_file)
        else:
            self.new_session()

    # ------------------------------------------------------------------ constructors

    @classmethod
    def create(
        cls,
        cwd: str,
        session_dir: str | os.PathLike[str] | None = None,
        *,
        clock: Callable[[], float] | None = None,
        rng: random.Random | None = None,
    ) -> SessionManager:
        """A new session for ``cwd`` (pi ``SessionManager.create``). Its file goes into
        ``session_dir`` or the folder's session directory (§1.2) and is written only when the
        first assistant message arrives."""
        folder = os.fspath(session_dir) if session_dir is not None else str(session_dir_for(cwd))
        return cls(cwd, folder, None, True, clock=clock, rng=rng)

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        session_dir: str | os.PathLike[str] | None = None,
        *,
        force: bool = False,
        clock: Callable[[], float] | None = None,
        rng: random.Random | None = None,
    ) -> SessionManager:
        """Open a session file (pi ``SessionManager.open``). The cwd is the header's (else the
        process's); ``session_dir`` (for new and branched sessions) defaults to the file's
        folder. The leaf is the last entry of the file. A file that is not a pi session raises
        :class:`NotASessionError` and is left untouched; a missing file starts a new session
        that will be written at that path."""
        file = os.path.abspath(os.path.expanduser(os.fspath(path)))
        folder = os.fspath(session_dir) if session_dir is not None else os.path.dirname(file)
        manager = cls(os.getcwd(), folder, file, True, force=force, clock=clock, rng=rng)
        header_cwd = manager._header.get("cwd") if manager._flushed else None
        if isinstance(header_cwd, str):
            manager._cwd = header_cwd
        return manager

    @classmethod
    def continue_recent(
        cls,
        cwd: str,
        session_dir: str | os.PathLike[str] | None = None,
        *,
        clock: Callable[[], float] | None = None,
        rng: random.Random | None = None,
    ) -> SessionManager:
        """The most recently modified session of the folder (pi ``--continue``, §12.3: newest
        file mtime among files with a valid header line), or a new session if there is none. In a
        custom ``session_dir`` only sessions whose header cwd is ``cwd`` count ([new])."""
        default = str(session_dir_for(cwd))
        folder = os.fspath(session_dir) if session_dir is not None else default
        custom = os.path.abspath(folder) != os.path.abspath(default)
        recent = find_most_recent_session(folder, cwd if custom else None)
        return cls(cwd, folder, recent, True, clock=clock, rng=rng)

    @classmethod
    def in_memory(
        cls,
        cwd: str | None = None,
        *,
        clock: Callable[[], float] | None = None,
        rng: random.Random | None = None,
    ) -> SessionManager:
        """A session that is never written (pi ``SessionManager.inMemory``)."""
        return cls(cwd if cwd is not None else os.getcwd(), "", None, False, clock=clock, rng=rng)

    @classmethod
    def fork_from(
        cls,
        source_path: str | os.PathLike[str],
        target_cwd: str,
        session_dir: str | os.PathLike[str] | None = None,
        *,
        clock: Callable[[], float] | None = None,
        rng: random.Random | None = None,
    ) -> SessionManager:
        """Copy a session of another folder into ``target_cwd``'s session directory (pi
        ``forkFrom``, §11.3): new id, ``cwd`` = ``target_cwd``, ``parentSession`` = the source,
        then every entry of the source (all branches). Written at once, exclusively.

        Unlike pi, an old-format source is copied migrated (pi copied v1 entries without ids under
        a version-3 header); a version-3 source is copied line for line.
        """
        folder = (
            os.fspath(session_dir) if session_dir is not None else str(session_dir_for(target_cwd))
        )
        now = clock() if clock is not None else None
        target = actions.fork(os.fspath(source_path), target_cwd, folder, clock=now, rng=rng)
        return cls(target_cwd, folder, target, True, clock=clock, rng=rng)

    @staticmethod
    def list(
        cwd: str,
        session_dir: str | os.PathLike[str] | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> builtins.list[SessionInfo]:
        """Sessions of one folder, newest ``modified`` first (pi ``SessionManager.list``,
        §12.1-§12.2): the ``.jsonl`` files directly in ``session_dir`` (default: the folder's
        session directory). In a custom directory only sessions whose header cwd is ``cwd`` are
        listed ([new], §1.3). ``on_progress(loaded, total)`` reports progress as files are read.
        Served by :class:`pitui.core.store.Store` (and its disposable index)."""
        from pitui.core.store import Store

        folder = os.fspath(session_dir) if session_dir is not None else None
        with Store(cwd=cwd, session_dir=folder) as store:
            return store.load("current", progress=on_progress)

    @staticmethod
    def list_all(
        on_progress: Callable[[int, int], None] | None = None,
    ) -> builtins.list[SessionInfo]:
        """Sessions of every folder under the sessions root, newest ``modified`` first (pi
        ``SessionManager.listAll``); files lying directly in the root are not listed."""
        from pitui.core.store import Store

        with Store() as store:
            return store.load("all", progress=on_progress)

    # ------------------------------------------------------------------ session files

    def new_session(self, parent_session: str | None = None) -> str | None:
        """Start a fresh, empty session (pi ``newSession``): new id, leaf none. Returns the file
        it will be written to (``None`` in memory); nothing is written yet (§9.1)."""
        self._drop_index()
        self._header = edit.new_header(
            self._cwd, parent_session=parent_session, clock=self._now(), rng=self._rng
        )
        self._pending = []
        self._pending_ids = set()
        self._flushed = False
        self._blank_target = False
        self._leaf = None
        if self._persist:
            name = session_file_name(self._header["timestamp"], self._header["id"])
            self._file = os.path.join(self._session_dir, name)
        else:
            self._file = None
        return self._file

    def set_session_file(self, path: str | os.PathLike[str]) -> None:
        """Switch to another session file (pi ``setSessionFile``). An existing session is read
        (leaf = its last entry; nothing is written, not even a migration); a missing or blank file
        starts a new session that will be written there. A file that is not a pi session raises
        :class:`NotASessionError` and is never overwritten (pi 0.73.1 overwrote it)."""
        file = os.path.abspath(os.path.expanduser(os.fspath(path)))
        if os.path.exists(file) and not edit.is_blank_file(file):
            index = Session.open(file)  # raises NotASessionError: the file is left as it is
            self._drop_index()
            self._index = index
            self._header = dict(index.header)
            self._pending = []
            self._pending_ids = set()
            self._flushed = True
            self._blank_target = False
            self._leaf = index.leaf_id
            self._file = file
            return
        blank = os.path.exists(file)
        self.new_session()
        self._file = file
        self._blank_target = blank

    def create_branched_session(self, leaf_id: str) -> str | None:
        """Replace this session by a new one holding only the branch root → ``leaf_id`` (pi
        ``createBranchedSession``, §11.1): label entries dropped and the rest re-chained, labels
        re-added after the path with their original time, new id, ``parentSession`` = the current
        file. Written at once if the branch holds an assistant message, else deferred like a new
        session. The original file is not modified. Returns the new file (``None`` in memory)."""
        view = self._view()
        meta = view.get(leaf_id)
        if meta is None:
            raise EntryNotFoundError(leaf_id)
        entries = edit.branch_file_entries(view, meta, clock=self._now(), rng=self._rng)
        previous = self._file if self._flushed else None
        header = edit.new_header(
            self._cwd,
            parent_session=previous if self._persist else None,
            clock=self._now(),
            rng=self._rng,
        )
        self._drop_index()
        self._header = header
        self._pending = entries
        self._pending_ids = {e["id"] for e in entries}
        self._flushed = False
        self._blank_target = False
        self._leaf = entries[-1]["id"] if entries else None
        if not self._persist:
            self._file = None
            return None
        name = session_file_name(header["timestamp"], header["id"])
        self._file = os.path.join(self._session_dir, name)
        if edit.has_assistant(entries):
            self._flush()
        return self._file

    # ------------------------------------------------------------------ appends

    def append_message(self, message: MessageInput) -> str:
        """Append a ``message`` entry as a child of the leaf; the leaf moves to it (pi
        ``appendMessage``). Returns its id. ``branchSummary`` / ``compactionSummary`` messages are
        refused (pi makes them from compaction and branch_summary entries); a known role with
        fields of the wrong type raises ``ValueError``; unknown roles (extensions) pass."""
        return self._append("message", {"message": checked_message(message)})

    def append_thinking_level_change(self, thinking_level: str) -> str:
        """Append a ``thinking_level_change`` (pi ``appendThinkingLevelChange``)."""
        return self._append("thinking_level_change", {"thinkingLevel": thinking_level})

    def append_model_change(self, provider: str, model_id: str) -> str:
        """Append a ``model_change`` (pi ``appendModelChange``)."""
        return self._append("model_change", {"provider": provider, "modelId": model_id})

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str | None,
        tokens_before: int | float,
        details: Any = None,
        from_hook: bool | None = None,
        *,
        retained_tail: Sequence[MessageInput] | None = None,
        usage: BaseModel | Mapping[str, Any] | None = None,
    ) -> str:
        """Append a ``compaction`` (pi ``appendCompaction``, §5.5). ``first_kept_entry_id`` is the
        legacy checkpoint; ``retained_tail`` ([new]) the messages kept, materialized (an empty
        list is a checkpoint that keeps nothing). ``None`` arguments are left out of the entry, as
        JavaScript leaves out ``undefined``."""
        fields: dict[str, Any] = {"summary": summary}
        if first_kept_entry_id is not None:
            fields["firstKeptEntryId"] = first_kept_entry_id
        fields["tokensBefore"] = tokens_before
        if retained_tail is not None:
            fields["retainedTail"] = [message_raw(m) for m in retained_tail]
        if details is not None:
            fields["details"] = json_value(details)
        if usage is not None:
            fields["usage"] = json_value(usage) if isinstance(usage, BaseModel) else dict(usage)
        if from_hook is not None:
            fields["fromHook"] = from_hook
        return self._append("compaction", fields)

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        """Append a ``custom`` entry: extension state, never in context (pi
        ``appendCustomEntry``). ``data=None`` leaves the key out."""
        fields: dict[str, Any] = {"customType": custom_type}
        if data is not None:
            fields["data"] = json_value(data)
        return self._append("custom", fields)

    def append_session_info(self, name: str) -> str:
        """Append a ``session_info`` naming the session (pi ``appendSessionInfo``): the name is
        trimmed with line breaks made spaces ([new]); an empty name clears it."""
        return self._append("session_info", {"name": normalize_session_name(name)})

    def append_custom_message_entry(
        self,
        custom_type: str,
        content: str | Sequence[BaseModel | Mapping[str, Any]],
        display: bool,
        details: Any = None,
    ) -> str:
        """Append a ``custom_message``: an extension's message that is part of the context (pi
        ``appendCustomMessageEntry``, §5.8). ``display`` says whether pi shows it in the chat."""
        fields: dict[str, Any] = {
            "customType": custom_type,
            "content": content if isinstance(content, str) else json_value(list(content)),
            "display": display,
        }
        if details is not None:
            fields["details"] = json_value(details)
        return self._append("custom_message", fields)

    def append_label_change(self, target_id: str, label: str | None = None) -> str:
        """Set (``label`` non-empty) or clear (``None`` / ``""``) the label of an entry (pi
        ``appendLabelChange``, §8.1). The label entry is a child of the leaf, not of the target,
        and becomes the leaf. An unknown target raises :class:`EntryNotFoundError`."""
        if not self._knows(target_id, plain=True):
            raise EntryNotFoundError(target_id)
        fields: dict[str, Any] = {"targetId": target_id}
        if label:
            fields["label"] = label
        return self._append("label", fields)

    # ------------------------------------------------------------------ the tree

    def get_leaf_id(self) -> str | None:
        """The current leaf (pi ``getLeafId``); ``None`` before the first entry or after
        :meth:`reset_leaf`."""
        return self._leaf

    def get_leaf_entry(self) -> Entry | None:
        """The leaf entry (pi ``getLeafEntry``)."""
        return self.get_entry(self._leaf) if self._leaf is not None else None

    def get_entry(self, entry_id: str) -> Entry | None:
        """An entry by id (pi ``getEntry``; a duplicated id finds its last occurrence)."""
        view = self._view()
        meta = view.get(entry_id)
        return parse_meta(view, meta) if meta is not None else None

    def get_branch(self, from_id: str | None = None) -> builtins.list[Entry]:
        """Root → ``from_id`` (default: the leaf), every entry type (pi ``getBranch``, §7.2).
        An unknown id, or no leaf, gives an empty list."""
        view = self._view()
        start = from_id if from_id is not None else self._leaf
        meta = view.get(start) if start is not None else None
        if meta is None:
            return []
        return [parse_meta(view, m) for m in view.path_to(meta)]

    def get_tree(self) -> builtins.list[TreeNode]:
        """The session as a tree (pi ``getTree``): roots in file order (orphans are roots),
        children by timestamp, resolved labels and label times on each node. Duplicate ids,
        missing ids and cycles are handled as in §14 (every entry appears exactly once)."""
        view = self._view()
        labels = view.labels
        times = view.label_times

        def node(meta: EntryMeta) -> TreeNode:
            key = meta.id if meta.id is not None and view.by_id.get(meta.id) is meta else None
            return TreeNode(
                view,
                meta,
                labels.get(key) if key is not None else None,
                times.get(key) if key is not None else None,
            )

        roots = [node(meta) for meta in view.roots]
        stack = list(roots)
        while stack:  # iterative: sessions are chains thousands of entries deep
            current = stack.pop()
            for child in current.meta.children or ():
                child_node = node(child)
                current.children.append(child_node)
                stack.append(child_node)
        return roots

    def get_children(self, parent_id: str) -> builtins.list[Entry]:
        """Direct children of an entry in file order (pi ``getChildren``)."""
        view = self._view()
        parent = view.get(parent_id)
        if parent is None:
            return []
        children = sorted(parent.children or (), key=lambda m: m.line)
        return [parse_meta(view, m) for m in children]

    def get_label(self, entry_id: str) -> str | None:
        """The entry's current label (pi ``getLabel``, §8.1)."""
        return self._view().labels.get(entry_id)

    def branch(self, branch_from_id: str) -> None:
        """Move the leaf to an existing entry; the next append starts a new branch there (pi
        ``branch``). Nothing is written: pi keeps the leaf in memory only (§7.3)."""
        if not self._knows(branch_from_id):
            raise EntryNotFoundError(branch_from_id)
        self._leaf = branch_from_id

    def reset_leaf(self) -> None:
        """Leaf := none; the next entry is a new root (pi ``resetLeaf``)."""
        self._leaf = None

    def branch_with_summary(
        self,
        branch_from_id: str | None,
        summary: str,
        details: Any = None,
        from_hook: bool | None = None,
    ) -> str:
        """Move the leaf to ``branch_from_id`` (``None``: to the root) and append a
        ``branch_summary`` there (pi ``branchWithSummary``, §7.4): ``fromId`` is
        ``branch_from_id`` or ``"root"``. Returns the summary's id, the new leaf."""
        if branch_from_id is not None and not self._knows(branch_from_id):
            raise EntryNotFoundError(branch_from_id)
        previous = self._leaf
        self._leaf = branch_from_id
        fields: dict[str, Any] = {
            "fromId": branch_from_id if branch_from_id is not None else "root",
            "summary": summary,
        }
        if details is not None:
            fields["details"] = json_value(details)
        if from_hook is not None:
            fields["fromHook"] = from_hook
        try:
            return self._append("branch_summary", fields)
        except BaseException:
            self._leaf = previous
            raise

    # ------------------------------------------------------------------ context and metadata

    def build_context_entries(self) -> builtins.list[Entry]:
        """The entries that make up what the model sees at the leaf (§10.3, [new] rules)."""
        view = self._view()
        return [parse_meta(view, m) for m in _context_entries(view, self._leaf)]

    def build_session_context(self) -> ContextResult:
        """Messages, thinking level and model at the leaf (pi ``buildSessionContext``, §10.4)."""
        context = _session_context(self._view(), self._leaf)
        return ContextResult(
            messages=[parse_message(m) for m in context.messages],
            thinking_level=context.thinking_level,
            model=context.model,
            raw_messages=context.messages,
            sources=context.sources,
        )

    def get_entries(self) -> builtins.list[Entry]:
        """Every entry in file order, header excluded (pi ``getEntries``)."""
        view = self._view()
        return [parse_meta(view, m) for m in view.entries]

    def get_header(self) -> SessionHeader | None:
        """The header (pi ``getHeader``), as version 3."""
        return parse_header(self._header)

    def get_session_name(self) -> str | None:
        """The latest ``session_info`` name, trimmed; ``None`` when unnamed or cleared (§8.2)."""
        return self._view().name

    def get_cwd(self) -> str:
        return self._cwd

    def get_session_dir(self) -> str:
        """Where new and branched sessions go (``""`` in memory, as pi)."""
        return self._session_dir

    def get_session_id(self) -> str:
        value = self._header.get("id")
        return value if isinstance(value, str) else ""

    def get_session_file(self) -> str | None:
        """The session's file, whether or not it is written yet (``None`` in memory)."""
        return self._file

    def is_persisted(self) -> bool:
        """Whether this manager writes files at all (pi ``isPersisted``; ``False`` in memory).
        A persisted session may still have no file yet (see the deferred first flush)."""
        return self._persist

    # ------------------------------------------------------------------ beyond pi

    @property
    def session(self) -> Session:
        """The read-side index of the session (tree, stats, raw entries) as it is now."""
        return self._view()

    def plan_prune(self, entry_ids: str | Sequence[str], *, drop_labels: bool = False) -> PrunePlan:
        """What :meth:`prune` would remove (nothing is written); raises
        :class:`~pitui.core.prune.PruneRefusedError` with the reason it would refuse."""
        view = self._view()
        ids = [entry_ids] if isinstance(entry_ids, str) else list(entry_ids)
        return plan_prune(view, ids, keep=self._kept_leaf(view), drop_labels=drop_labels)

    def prune(self, entry_ids: str | Sequence[str], *, drop_labels: bool = False) -> Pruned:
        """Remove the subtree under each entry from the file (beyond pi: its most requested
        ``/tree`` feature), as :func:`pitui.core.actions.prune` does: every other line kept byte
        for byte, the original in the trash first. Refused for the path to the file's last
        entry and to this manager's leaf, and for anything a kept entry depends on."""
        if not self._flushed or self._index is None:
            raise edit.WriteError("this session has no file yet; there is nothing to prune")
        ids = [entry_ids] if isinstance(entry_ids, str) else list(entry_ids)
        view = self._index
        return actions.prune(
            view, ids, force=self.force, keep=self._kept_leaf(view), drop_labels=drop_labels
        )

    def _kept_leaf(self, view: Session) -> builtins.list[EntryMeta]:
        leaf = view.get(self._leaf) if self._leaf is not None else None
        return [leaf] if leaf is not None else []

    def refresh(self) -> Literal["unchanged", "grew", "replaced"]:
        """Read what another writer (pi) appended to the file since; the leaf stays where it is,
        as it does in pi when two processes share a file. A file that was replaced and no longer
        holds the leaf resets the leaf to the file's last entry."""
        if not self._flushed or self._index is None:
            return "unchanged"
        result = self._index.refresh()
        if result.kind == "replaced":
            self._header = dict(self._index.header)
            if self._leaf is not None and self._index.get(self._leaf) is None:
                self._leaf = self._index.leaf_id
        return result.kind

    def close(self) -> None:
        self._drop_index()

    def __enter__(self) -> SessionManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.get_entries())

    # ------------------------------------------------------------------ internals

    def _now(self) -> float | None:
        """The injected clock's time (``None``: the wall clock, read where it is used)."""
        return self._clock() if self._clock is not None else None

    def _drop_index(self) -> None:
        if self._index is not None:
            self._index.close()
        self._index = None
        self._memo = None

    def _view(self) -> Session:
        if self._flushed:
            assert self._index is not None
            return self._index
        if self._memo is None:
            data = b"".join([dump_header(self._header), *map(dump_entry, self._pending)])
            self._memo = Session.from_bytes(data, path=self._file or "<memory>")
        return self._memo

    def _knows(self, entry_id: str, *, plain: bool = False) -> bool:
        """Whether the session holds the entry (``plain``: as a plain id, the way pi looks a
        label target up). Unwritten entries are all pitui's, with unique ids: no index needed,
        so appending to an in-memory session stays linear."""
        if not self._flushed:
            return entry_id in self._pending_ids
        assert self._index is not None
        return (self._index.by_id if plain else self._index.by_uid).get(entry_id) is not None

    def _parent_for_append(self, view: Session | None) -> str | None:
        if self._leaf is None:
            return None
        if view is None:
            if self._leaf not in self._pending_ids:
                raise edit.WriteError(f"the leaf {self._leaf} is not in this session")
            return self._leaf
        meta = view.get(self._leaf)
        if meta is None:
            raise edit.WriteError(
                f"the leaf {self._leaf} is no longer in {self._file}; branch() to an entry first"
            )
        if meta.id is None:
            raise edit.WriteError(
                f"cannot append under {meta.uid}: that entry has no id in the file, so pi would "
                "not find the new entry's parent"
            )
        if view.by_id.get(meta.id) is not meta:
            raise edit.WriteError(
                f"cannot append under {meta.uid}: its id is not unique in the file, so pi would "
                "attach the new entry elsewhere"
            )
        return meta.id

    def _append(self, entry_type: str, fields: dict[str, Any]) -> str:
        if self._flushed:
            assert self._index is not None and self._file is not None
            leaf = self._leaf
            if self.refresh() == "replaced" and self._leaf != leaf:
                raise edit.WriteError(
                    f"{self._file} was replaced and no longer holds the leaf {leaf}; nothing was "
                    "written (branch() to an entry, then append again)"
                )
            view = self._index

            def build(current: Session) -> builtins.list[dict[str, Any]]:
                entry = edit.entry_base(
                    current.by_id,
                    entry_type,
                    self._parent_for_append(current),
                    clock=self._now(),
                    rng=self._rng,
                )
                entry.update(fields)
                return [entry]

            written = actions.append(view, build, force=self.force)
            self._header = dict(view.header)  # a migration rewrote it as version 3
            self._leaf = written.entry_id
            return written.entry_id
        entry = edit.entry_base(
            self._pending_ids,
            entry_type,
            self._parent_for_append(None),
            clock=self._now(),
            rng=self._rng,
        )
        entry.update(fields)
        dump_entry(entry)  # fail now, not at the flush, on values that are not JSON
        self._pending.append(entry)
        self._pending_ids.add(entry["id"])
        self._memo = None
        self._leaf = entry["id"]
        if self._persist and edit.has_assistant(self._pending):
            self._flush()
        return str(entry["id"])

    def _flush(self) -> None:
        """pi's first flush (§9.1): header and every entry so far, in one exclusive write."""
        assert self._file is not None
        folder = os.path.dirname(self._file)
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as exc:
            raise edit.WriteError(f"{folder}: cannot create ({exc.strerror or exc})") from exc
        actions.create_file(self._file, self._header, self._pending, blank=self._blank_target)
        index = Session.open(self._file, final=True)
        self._drop_index()
        self._index = index
        self._flushed = True
        self._blank_target = False
        self._pending = []
        self._pending_ids = set()
