"""What makes a session file big: its bytes by entry kind, and its largest entries with what their
bytes are (images, tool output, text, thinking, ...). Read-only; the doctor reports these.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import orjson

from pitui.core.session import EntryMeta, Session

__all__ = ["BigEntry", "bytes_by_kind", "largest_entries"]


@dataclass(frozen=True, slots=True)
class BigEntry:
    """One of the largest lines of a file and what its bytes are (``parts``: bytes by kind)."""

    uid: str
    line: int
    offset: int
    length: int
    type: str
    role: str | None
    kind: str  # the biggest part: "image", "tool output", "text", "thinking", ...
    parts: dict[str, int]
    images: int

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.uid,
            "line": self.line,
            "offset": self.offset,
            "bytes": self.length,
            "type": self.type,
            "role": self.role,
            "kind": self.kind,
            "parts": dict(self.parts),
            "images": self.images,
        }


def _kind_key(meta: EntryMeta) -> str:
    return (meta.role or "?") if meta.type == "message" else meta.type


def bytes_by_kind(session: Session) -> dict[str, int]:
    """The bytes of the file's lines by entry kind (a message's role, else its type), most first."""
    totals: Counter[str] = Counter()
    for meta in session.entries:
        totals[_kind_key(meta)] += meta.length + 1
    return dict(totals.most_common())


def _json_len(value: Any) -> int:
    """About the bytes ``value`` takes in the line (JSON escapes included)."""
    if value is None:
        return 0
    try:
        return len(orjson.dumps(value))
    except (TypeError, orjson.JSONEncodeError):  # lone surrogates: orjson will not encode them
        return len(json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"))


_TEXT_KIND = {
    "toolResult": "tool output",
    "bashExecution": "tool output",
    "system": "system prompt",
    "branchSummary": "summary",
    "compactionSummary": "summary",
}


def _entry_parts(obj: dict[str, Any]) -> tuple[Counter[str], int]:
    """Bytes of an entry by what they are, and its number of images."""
    parts: Counter[str] = Counter()
    images = 0

    def content(value: Any, text_kind: str) -> None:
        nonlocal images
        if isinstance(value, str):
            parts[text_kind] += _json_len(value)
            return
        if type(value) is not list:
            parts["other"] += _json_len(value)
            return
        for block in value:
            kind = block.get("type") if type(block) is dict else None
            if kind == "image":
                images += 1
                parts["image"] += _json_len(block.get("data"))
            elif kind == "text":
                parts[text_kind] += _json_len(block.get("text"))
            elif kind == "thinking":
                parts["thinking"] += _json_len(block.get("thinking")) + _json_len(
                    block.get("thinkingSignature")
                )
            elif kind == "toolCall":
                parts["tool call"] += _json_len(block.get("arguments"))
            else:
                parts["other"] += _json_len(block)

    etype = obj.get("type")
    if etype == "message" and type(obj.get("message")) is dict:
        message = obj["message"]
        role = message.get("role")
        text_kind = _TEXT_KIND.get(role, "text") if isinstance(role, str) else "text"
        content(message.get("content"), text_kind)
        if role == "bashExecution":
            parts["tool output"] += _json_len(message.get("output"))
        if role == "system":
            parts["system prompt"] += _json_len(message.get("sections"))
            parts["tool definitions"] += _json_len(message.get("toolsAdded"))
        parts["tool details"] += _json_len(message.get("details"))
    elif etype == "custom_message":
        content(obj.get("content"), "text")
        parts["details"] += _json_len(obj.get("details"))
    elif etype in ("compaction", "branch_summary"):
        parts["summary"] += _json_len(obj.get("summary"))
        parts["system prompt"] += _json_len(obj.get("systemMessage"))
        parts["details"] += _json_len(obj.get("details"))
    elif etype == "custom":
        parts["custom data"] += _json_len(obj.get("data"))
    elif etype == "context_edit":
        content(obj.get("replacement"), "text")
    return Counter({k: v for k, v in parts.items() if v > 0}), images


def largest_entries(session: Session, count: int) -> list[BigEntry]:
    """The ``count`` longest lines of the file, each with what its bytes are."""
    if count <= 0 or not session.entries:
        return []
    top = sorted(session.entries, key=lambda m: (-m.length, m.line))[:count]
    out: list[BigEntry] = []
    for meta in top:
        parts, images = _entry_parts(session.raw(meta))
        rest = meta.length - sum(parts.values())
        if rest > 0:
            parts["metadata"] += rest  # ids, times, usage, model, keys and quotes
        kind = parts.most_common(1)[0][0] if parts else "metadata"
        out.append(
            BigEntry(
                meta.uid,
                meta.line,
                meta.offset,
                meta.length,
                meta.type,
                meta.role,
                kind,
                dict(parts.most_common()),
                images,
            )
        )
    return out
