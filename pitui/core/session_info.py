"""One listed session (:class:`SessionInfo`, pi's ``SessionInfo`` of format §12.2 plus what pi
does not show), its compact row in the index and its element of ``pitui list --json``.

:mod:`pitui.core.summary` computes it from a file; the index stores it; the picker, ``list`` and
``SessionManager.list`` hand it out.
"""

from __future__ import annotations

from typing import Any, Protocol

import orjson

from pitui.core.safejson import escape_unsafe_bytes

__all__ = [
    "Brief",
    "ListedSession",
    "SearchableSession",
    "SessionInfo",
    "brief_of",
    "listing_element",
    "searchable_text",
]


def searchable_text(id: str, name: str | None, all_messages_text: str, cwd: str) -> str:
    """What the picker searches: id, name ("" when unnamed), all message text, cwd."""
    return f"{id} {name if name is not None else ''} {all_messages_text} {cwd}"


class SearchableSession(Protocol):
    """What searching and sorting a listing read of a session (:mod:`pitui.core.search`).

    ``modified`` is epoch milliseconds (JavaScript's ``Date.getTime()``; whole milliseconds
    reproduce pi's tie-breaking exactly). ``search_text`` is :func:`searchable_text`'s result.
    """

    @property
    def path(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str | None: ...
    @property
    def parent_session_path(self) -> str | None: ...
    @property
    def modified(self) -> float: ...
    @property
    def search_text(self) -> str: ...


class ListedSession(SearchableSession, Protocol):
    """A listed session as the picker and the label listing read it: :class:`SessionInfo` is one
    (tests pass their own)."""

    @property
    def cwd(self) -> str: ...
    @property
    def first_message(self) -> str: ...
    @property
    def message_count(self) -> int: ...
    @property
    def labels(self) -> dict[str, str]: ...
    @property
    def label_times(self) -> dict[str, str]: ...
    @property
    def header_problem(self) -> str | None:
        """A key of :data:`pitui.core.search.HEADER_PROBLEMS`: listed, but pi cannot resume it."""
        ...


# SessionInfo's fields in constructor order (its repr)
_INFO_FIELDS = (
    "path", "id", "cwd", "name", "parent_session_path", "created", "modified", "modified_iso",
    "message_count", "first_message", "text_length", "branch_count", "entry_count", "labels",
    "last_model", "total_tokens", "cost", "size", "all_messages_text", "label_times",
    "header_problem",
)  # fmt: skip


class SessionInfo:
    """One listed session: pi's ``SessionInfo`` (format §12.2) plus what pi does not show.

    ``modified`` is epoch milliseconds (what :mod:`pitui.core.search` sorts and ties by);
    ``created`` and ``modified_iso`` are ISO strings exactly as pi prints its dates. The
    searchable text is held only once loaded (:attr:`all_messages_text` is ``None`` before: the
    index keeps it apart, so a listing does not read megabytes it does not show). Compared by
    identity.
    """

    __slots__ = (
        "_search", "all_messages_text", "branch_count", "cost", "created", "cwd", "entry_count",
        "first_message", "header_problem", "id", "label_times", "labels", "last_model",
        "message_count", "modified", "modified_iso", "name", "parent_session_path", "path", "size",
        "text_length", "total_tokens",
    )  # fmt: skip

    def __init__(
        self,
        path: str,
        id: str,
        cwd: str,
        name: str | None,
        parent_session_path: str | None,
        created: str | None,  # None: the header timestamp is not a date
        modified: int,
        modified_iso: str,
        message_count: int,
        first_message: str,
        text_length: int,  # allMessagesText.length in UTF-16 units (whole file, past the cap)
        branch_count: int,  # entries without children: the ends of the tree's branches
        entry_count: int,
        labels: dict[str, str],  # target entry id -> label (format §8.1)
        last_model: str | None,  # "provider/model" of the last assistant message in file order
        total_tokens: int,
        cost: float,
        size: int = 0,  # bytes on disk when listed
        all_messages_text: str | None = None,
        *,
        label_times: dict[str, str] | None = None,  # target id -> when its label was set
        header_problem: str | None = None,  # search.HEADER_PROBLEMS' key: listed, not resumable
    ) -> None:
        self.path = path
        self.id = id
        self.cwd = cwd
        self.name = name
        self.parent_session_path = parent_session_path
        self.created = created
        self.modified = modified
        self.modified_iso = modified_iso
        self.message_count = message_count
        self.first_message = first_message
        self.text_length = text_length
        self.branch_count = branch_count
        self.entry_count = entry_count
        self.labels = labels
        self.label_times = label_times if label_times is not None else {}
        self.last_model = last_model
        self.total_tokens = total_tokens
        self.cost = cost
        self.size = size
        self.all_messages_text = all_messages_text
        self.header_problem = header_problem
        self._search: str | None = None

    def __repr__(self) -> str:
        pairs = ", ".join(f"{name}={getattr(self, name)!r}" for name in _INFO_FIELDS)
        return f"SessionInfo({pairs})"

    @property
    def search_text(self) -> str:
        """What the picker searches (ui §2.5): id, name, all message text, cwd.

        Only meaningful once :attr:`all_messages_text` is loaded (see ``Store.load_texts``);
        before that the message text part is empty.
        """
        cached = self._search
        if cached is None or self.all_messages_text is None:
            cached = searchable_text(self.id, self.name, self.all_messages_text or "", self.cwd)
            if self.all_messages_text is not None:
                self._search = cached
        return cached

    def to_json(self) -> dict[str, Any]:
        """pi's keys first (as ``pitui list --json`` prints them), then pitui's."""
        return {
            "path": self.path,
            "id": None if self.header_problem == "no-id" else self.id,  # (pi: undefined)
            "cwd": self.cwd,
            "name": self.name,
            "parentSessionPath": self.parent_session_path,
            "created": self.created,
            "modified": self.modified_iso,
            "messageCount": self.message_count,
            "firstMessage": self.first_message,
            "allMessagesTextLength": self.text_length,
            "size": self.size,
            "entryCount": self.entry_count,
            "branchCount": self.branch_count,
            "labels": self.labels,
            "lastModel": self.last_model,
            "totalTokens": self.total_tokens,
            "cost": self.cost,
            "headerProblem": self.header_problem,
        }

    def to_row(self) -> list[Any]:
        """The compact form the index stores (path and size live in their own columns)."""
        return [
            self.id, self.cwd, self.name, self.parent_session_path, self.created, self.modified,
            self.modified_iso, self.message_count, self.first_message, self.text_length,
            self.branch_count, self.entry_count, self.labels, self.last_model, self.total_tokens,
            self.cost, self.label_times, self.header_problem,
        ]  # fmt: skip

    @classmethod
    def from_row(cls, path: str, size: int, row: list[Any]) -> SessionInfo:
        info = cls(path, *row[:-2], label_times=row[-2], header_problem=row[-1])
        info.size = size
        return info


# What orders and filters a listed session: (modified, parentSessionPath, name, cwd, id).
Brief = tuple[int, str | None, str | None, str, str]


def brief_of(info: SessionInfo) -> Brief:
    return (info.modified, info.parent_session_path, info.name, info.cwd, info.id)


def listing_element(info: SessionInfo) -> bytes | None:
    """``info.to_json()`` as one element of the ``pitui list --json`` array, ready to join.

    orjson's two-space indentation at depth one (``b"[\\n" + b",\\n".join(elements) +
    b"\\n]"`` is ``orjson.dumps(list, option=OPT_INDENT_2)``), terminal-unsafe characters
    written as ``\\u`` escapes. ``None`` when orjson refuses a value (lone surrogates): the
    whole array is then written by the standard encoder instead.
    """
    try:
        data = orjson.dumps([info.to_json()], option=orjson.OPT_INDENT_2)
    except orjson.JSONEncodeError:
        return None
    return escape_unsafe_bytes(data[2:-2])
