"""Two branches of one session compared from their common ancestor (issue 23 §2).

Given two entries A and B, their paths from the root (pi's ``getBranch(A)`` and
``getBranch(B)``) share a prefix that ends at the deepest common ancestor; what differs is the
rest of each path, the two *sides*. For each side: its entries (drawn with the tree's row text),
the files its ``edit``/``write`` tool calls touched, how often it ran each tool, and its counts,
tokens and cost (:func:`pitui.core.facts.tally`, pi's token rule, the one place for that sum).

Only the two paths are looked at: the parent chains of A and B (in memory) and, read from the
file, the entries of the two sides; the shared prefix and the rest of the session are never
read, so a deep session costs what its two sides cost.

The relation of A to B is one of ``same`` (A is B: both sides are empty), ``ancestor`` (A is an
ancestor of B: A's side is empty), ``descendant`` (B is an ancestor of A), ``diverged`` (they
meet at an ancestor of both) and ``unrelated`` (different roots of one file: no common ancestor,
each side is its whole path).

Session content is untrusted: tool names, paths and texts are kept as found (the screens and
the command line make them safe to show); what is not a string where pi writes one does not
count as a path or a name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pitui.core.facts import Stats, tally
from pitui.core.session import EntryMeta, Session
from pitui.core.tree_text import TextPart, entry_parts, tool_call_in, tool_calls_of
from pitui.core.units import format_cost, format_count, format_tokens, plural

__all__ = [
    "FILE_TOOLS",
    "BranchDiff",
    "DiffEntry",
    "FileTouch",
    "Relation",
    "Side",
    "branch_diff",
    "common_ancestor",
]

Relation = Literal["same", "ancestor", "descendant", "diverged", "unrelated"]

#: pi's tools that change files; their target is ``arguments.path`` (or ``file_path``, as pi's
#: tree reads it). pi 0.73.1 and 1.6.0 have no other (``edit`` takes several replacements in one
#: call; ``bash`` may write files too, but what it touched cannot be told from the call).
FILE_TOOLS = ("edit", "write")

# A tool name that is not a string (a damaged or hostile file) counts under this name.
UNNAMED_TOOL = "(no name)"


@dataclass(frozen=True, slots=True)
class FileTouch:
    """A file one side's ``edit``/``write`` calls name: how many of each, and how many of those
    calls got an error result (``isError``) on the same side."""

    path: str
    edits: int = 0
    writes: int = 0
    failed: int = 0

    def counts(self) -> str:
        """``2 edits, 1 write, 1 failed``."""
        words = ((self.edits, "edit", "edits"), (self.writes, "write", "writes"))
        parts = [plural(n, one, many) for n, one, many in words if n]
        if self.failed:
            parts.append(f"{format_count(self.failed)} failed")
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "edits": self.edits,
            "writes": self.writes,
            "failed": self.failed,
        }


@dataclass(frozen=True, slots=True)
class DiffEntry:
    """One entry of a side, with its row text as the tree draws it (control characters as found)."""

    meta: EntryMeta
    parts: tuple[TextPart, ...]

    @property
    def text(self) -> str:
        return "".join(part.text for part in self.parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.meta.uid,
            "type": self.meta.type,
            "role": self.meta.role,
            "timestamp": self.meta.timestamp,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class Side:
    """The path from the common ancestor (not included) down to ``tip``."""

    tip: EntryMeta
    entries: tuple[DiffEntry, ...]
    files: tuple[FileTouch, ...]  # in the order each was first touched
    tools: dict[str, int]  # tool name -> calls, in the order each was first called
    stats: Stats

    def summary(self) -> str:
        """``3 entries, 2 messages, 1.2k tokens, $0.0130``."""
        stats = self.stats
        return (
            f"{plural(stats.entries, 'entry', 'entries')}, {plural(stats.messages, 'message')}, "
            f"{format_tokens(stats.total_tokens)} tokens, {format_cost(stats.cost)}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "tip": self.tip.uid,
            "entries": [entry.to_json() for entry in self.entries],
            "files": [touch.to_json() for touch in self.files],
            "tools": dict(self.tools),
            "stats": self.stats.to_json(),
        }


@dataclass(frozen=True, slots=True)
class BranchDiff:
    path: str
    relation: Relation
    ancestor: EntryMeta | None  # None: no common ancestor ("unrelated")
    shared: int  # entries root -> ancestor, both paths have them
    a: Side
    b: Side
    ancestor_entry: DiffEntry | None = None  # the ancestor with its row text

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "a": self.a.tip.uid,
            "b": self.b.tip.uid,
            "relation": self.relation,
            "ancestor": self.ancestor.uid if self.ancestor is not None else None,
            "ancestorText": self.ancestor_entry.text if self.ancestor_entry is not None else None,
            "sharedEntries": self.shared,
            "sides": {"a": self.a.to_json(), "b": self.b.to_json()},
        }


def common_ancestor(
    path_a: Sequence[EntryMeta], path_b: Sequence[EntryMeta]
) -> tuple[int, Relation]:
    """How many entries two root-first paths share, and how the first tip stands to the second."""
    shared = 0
    for left, right in zip(path_a, path_b, strict=False):
        if left is not right:
            break
        shared += 1
    if shared == 0:
        return 0, "unrelated"
    if shared == len(path_a) == len(path_b):
        return shared, "same"
    if shared == len(path_a):
        return shared, "ancestor"
    if shared == len(path_b):
        return shared, "descendant"
    return shared, "diverged"


def branch_diff(
    session: Session, a: EntryMeta, b: EntryMeta, home: str | None = None
) -> BranchDiff:
    """The two paths from the common ancestor of ``a`` and ``b`` (entries of ``session``).

    Reads the entries of the two sides and the ancestor from the file (:meth:`Session.raw`),
    nothing else; call it off the UI thread for long sides. ``home`` shortens paths in tool-call
    texts (default: the real home)."""
    path_a, path_b = session.path_to(a), session.path_to(b)
    shared, relation = common_ancestor(path_a, path_b)
    ancestor = path_a[shared - 1] if shared else None
    return BranchDiff(
        path=session.path,
        relation=relation,
        ancestor=ancestor,
        shared=shared,
        a=_side(session, a, path_a[shared:], home),
        b=_side(session, b, path_b[shared:], home),
        ancestor_entry=_SideReader(session, home).entry(ancestor) if ancestor is not None else None,
    )


class _SideReader:
    """Reads one side's entries once, in path order, collecting what :class:`Side` reports."""

    def __init__(self, session: Session, home: str | None) -> None:
        self.session = session
        self.home = home
        self.calls: dict[str, tuple[Any, Any]] = {}  # toolCall id -> (name, arguments), this side
        self.file_of_call: dict[str, str] = {}  # toolCall id -> path of an edit/write call
        self.files: dict[str, list[int]] = {}  # path -> [edits, writes, failed]
        self.tools: dict[str, int] = {}

    def entry(self, meta: EntryMeta) -> DiffEntry:
        obj = self.session.raw(meta)
        if meta.role == "assistant":
            self._count_calls(obj)
        elif meta.role == "toolResult":
            self._count_result(obj)
        parts = entry_parts(meta, obj, self._tool_call, self.home)
        return DiffEntry(meta, tuple(part for part in parts if part.text))

    def _count_calls(self, obj: dict[str, Any]) -> None:
        for call_id, name, arguments in tool_calls_of(obj):
            self.calls[call_id] = (name, arguments)
            tool = name if isinstance(name, str) else UNNAMED_TOOL
            self.tools[tool] = self.tools.get(tool, 0) + 1
            path = _file_path(arguments) if name in FILE_TOOLS else None
            if path is None:
                continue
            counts = self.files.setdefault(path, [0, 0, 0])
            counts[0 if name == "edit" else 1] += 1
            self.file_of_call[call_id] = path

    def _count_result(self, obj: dict[str, Any]) -> None:
        message = obj.get("message")
        if not isinstance(message, dict) or message.get("isError") is not True:
            return
        call_id = message.get("toolCallId")
        path = self.file_of_call.pop(call_id, None) if isinstance(call_id, str) else None
        if path is not None:
            self.files[path][2] += 1

    def _tool_call(self, meta: EntryMeta, call_id: Any) -> tuple[Any, Any] | None:
        """The call a tool result answers: on this side (nearly always), else wherever the
        index says an assistant entry holds it (one entry read)."""
        if not isinstance(call_id, str):
            return None
        found = self.calls.get(call_id)
        if found is not None:
            return found
        owner = self.session.get(self.session.tool_calls.get(call_id, ""))
        return tool_call_in(self.session.raw(owner), call_id) if owner is not None else None


def _side(session: Session, tip: EntryMeta, path: Sequence[EntryMeta], home: str | None) -> Side:
    reader = _SideReader(session, home)
    entries = tuple(reader.entry(meta) for meta in path)
    files = tuple(FileTouch(path, *counts) for path, counts in reader.files.items())
    return Side(tip, entries, files, reader.tools, tally(path))


def _file_path(arguments: Any) -> str | None:
    """The file an ``edit``/``write`` call names: ``path``, else ``file_path`` (pi's tree reads
    them in this order); only a non-empty string counts."""
    if not isinstance(arguments, dict):
        return None
    for key in ("path", "file_path"):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return value
    return None
