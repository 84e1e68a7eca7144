"""Build session files for tests: a header and entries as pi writes them, with sane defaults."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

HEADER: dict[str, Any] = {
    "type": "session",
    "version": 3,
    "id": "0195aaaa-0000-7000-8000-000000000001",
    "timestamp": "2025-01-01T00:00:00.000Z",
    "cwd": "/home/ana/proj",
}


def ts(n: int) -> str:
    """An ISO timestamp n seconds after 2025-01-01T00:00:00Z, formatted as pi writes it."""
    minutes, seconds = divmod(n, 60)
    hours, minutes = divmod(minutes, 60)
    return f"2025-01-01T{hours:02d}:{minutes:02d}:{seconds:02d}.000Z"


def user(
    eid: str, parent: str | None, text: str = "hi", t: int = 1, **extra: Any
) -> dict[str, Any]:
    return {
        "type": "message", "id": eid, "parentId": parent, "timestamp": ts(t),
        "message": {"role": "user", "content": text, "timestamp": 1735689600000 + t * 1000},
        **extra,
    }  # fmt: skip


def assistant(
    eid: str, parent: str | None, text: str = "ok", t: int = 2, *,
    provider: str = "anthropic", model: str = "claude-test", stop: str = "stop",
    content: list[Any] | None = None, usage: dict[str, Any] | None = None,
) -> dict[str, Any]:  # fmt: skip
    message: dict[str, Any] = {
        "role": "assistant",
        "content": content if content is not None else [{"type": "text", "text": text}],
        "api": "anthropic-messages", "provider": provider, "model": model,
        "usage": usage or {
            "input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
            "cost": {"input": 0.01, "output": 0.02, "cacheRead": 0, "cacheWrite": 0, "total": 0.03},
        },
        "stopReason": stop, "timestamp": 1735689600000 + t * 1000,
    }  # fmt: skip
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": ts(t),
        "message": message,
    }


def entry(etype: str, eid: str, parent: str | None, t: int = 1, **fields: Any) -> dict[str, Any]:
    return {"type": etype, "id": eid, "parentId": parent, "timestamp": ts(t), **fields}


def jsonl(*objects: dict[str, Any] | bytes, header: dict[str, Any] | None = HEADER) -> bytes:
    """Lines of a session file; a ``bytes`` item is written as it is (a raw, possibly bad line)."""
    lines: list[bytes] = []
    if header is not None:
        lines.append(orjson.dumps(header))
    for obj in objects:
        lines.append(obj if isinstance(obj, bytes) else orjson.dumps(obj))
    return b"".join(line + b"\n" for line in lines)


def chain(texts: Iterable[str]) -> list[dict[str, Any]]:
    """Alternating user/assistant messages m1, m2, … each the child of the previous one."""
    out: list[dict[str, Any]] = []
    parent: str | None = None
    for i, text in enumerate(texts, start=1):
        eid = f"m{i}"
        out.append((user if i % 2 else assistant)(eid, parent, text, t=i))
        parent = eid
    return out


def f26_entries() -> list[dict[str, Any]]:
    """F26: 1 → 2 → 3 and 2 → 4 → 5, labels on 1, 5 and 3 (the leaf: the last label)."""
    return [
        user("e1", None, "one", t=1),
        assistant("e2", "e1", "two", t=2),
        user("e3", "e2", "three", t=3),
        user("e4", "e2", "four", t=4),
        assistant("e5", "e4", "five", t=5),
        entry("label", "l1", "e5", t=6, targetId="e1", label="first"),
        entry("label", "l5", "l1", t=7, targetId="e5", label="fifth"),
        entry("label", "l3", "l5", t=8, targetId="e3", label="third"),
    ]
