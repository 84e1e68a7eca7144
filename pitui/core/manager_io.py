"""What :class:`~pitui.core.manager.SessionManager` takes in and gives out.

Messages go in as the pydantic models of :mod:`pitui.core.models` or as JSON-like dicts, checked
for the roles pi knows; entries come out as models, parsed from the file only when asked for
(:class:`TreeNode`), and the context as :class:`ContextResult` (pi's ``SessionContext``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from pitui.core.context import ModelRef
from pitui.core.models import (
    Entry,
    Message,
    Role,
    UnknownMessage,
    parse_entry,
    parse_message,
    to_raw,
)
from pitui.core.session import EntryMeta, Session

__all__ = [
    "ContextResult",
    "MessageInput",
    "TreeNode",
    "checked_message",
    "json_value",
    "message_raw",
    "parse_meta",
]

MessageInput = BaseModel | Mapping[str, Any]
"""A message to append: one of the message models (``UserMessage``, ``AssistantMessage``, ...)
or a JSON-like dict with a ``role``."""

# Roles pi refuses in message entries: these are made from compaction / branch_summary entries.
_DERIVED_ROLES = frozenset({Role.BRANCH_SUMMARY, Role.COMPACTION_SUMMARY})


@dataclass(frozen=True, slots=True)
class ContextResult:
    """What :meth:`SessionManager.build_session_context` returns (pi's ``SessionContext``).

    ``messages`` are models; ``raw_messages`` are the same messages as JSON objects (what
    :func:`pitui.core.context.to_llm_messages` takes); ``sources`` names, per message, the entry
    it came from (a compaction yields several).
    """

    messages: list[Message]
    thinking_level: str
    model: ModelRef | None
    raw_messages: list[dict[str, Any]]
    sources: list[str]


class TreeNode:
    """One node of :meth:`SessionManager.get_tree` (pi's ``SessionTreeNode``).

    ``meta`` is the index record (cheap); ``entry`` parses the full entry from the file on first
    use. ``children`` are in pi's order (timestamp, stable).
    """

    __slots__ = ("_entry", "_session", "children", "label", "label_timestamp", "meta")

    def __init__(
        self, session: Session, meta: EntryMeta, label: str | None, label_timestamp: str | None
    ) -> None:
        self._session = session
        self._entry: Entry | None = None
        self.meta = meta
        self.children: list[TreeNode] = []
        self.label = label
        self.label_timestamp = label_timestamp

    @property
    def id(self) -> str:
        return self.meta.uid

    @property
    def entry(self) -> Entry:
        if self._entry is None:
            self._entry = parse_meta(self._session, self.meta)
        return self._entry

    def __repr__(self) -> str:
        return f"<TreeNode {self.meta.uid} {self.meta.type} children={len(self.children)}>"


def parse_meta(view: Session, meta: EntryMeta) -> Entry:
    """The entry as the library returns it. An entry without an id of its own gets its internal
    id (``#<line>``, format §14), the one :meth:`SessionManager.get_leaf_id`, the tree and
    :meth:`SessionManager.get_entry` use: one name for it everywhere (pi has none: its leaf id is
    undefined and its branch empty, while its context walks from that entry)."""
    raw = view.raw(meta)
    if meta.id is None and isinstance(raw, dict):
        raw = {**raw, "id": meta.uid}
    return parse_entry(raw)


def message_raw(message: MessageInput) -> dict[str, Any]:
    raw = to_raw(message) if isinstance(message, BaseModel) else dict(message)
    if not isinstance(raw, dict) or not isinstance(raw.get("role"), str):
        raise ValueError("a message needs a string 'role'")
    return raw


def checked_message(message: MessageInput) -> dict[str, Any]:
    """A message as JSON, validated for the roles pi knows; unknown roles pass (extensions)."""
    raw = message_raw(message)
    role = raw["role"]
    if role in _DERIVED_ROLES:
        raise ValueError(
            f"{role} messages are not stored in message entries; use append_compaction or "
            "branch_with_summary"
        )
    parsed = parse_message(raw)
    if isinstance(parsed, UnknownMessage) and role in Role.ALL:
        raise ValueError(f"not a valid {role} message: {parsed.error}")
    return raw


def json_value(value: Any) -> Any:
    """A model becomes its JSON form; lists of models too. Everything else is kept."""
    if isinstance(value, BaseModel):
        return to_raw(value)
    if isinstance(value, list):
        return [json_value(item) for item in value]
    return value
