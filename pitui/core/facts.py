"""Every number pitui shows about one session, computed in one place.

The preview, the session header, ``pitui inspect``, ``pitui list``, ``pitui stats`` and the
exports all show these; computing them here is what keeps them equal.

**The token rule is pi's own.** pi 0.73.1's ``/session`` (``AgentSession.getSessionStats``) and its
footer add ``usage.input + usage.output + usage.cacheRead + usage.cacheWrite`` of each message;
neither reads ``usage.totalTokens``. So pitui never reads it either: an old or partial usage
without ``totalTokens`` counts the same as a complete one, everywhere. A part that is not a number
counts 0 (pi would print ``NaN``). Which entries carry a usage that counts: assistant messages, and
[new] tool results, compactions, branch summaries and ``usage`` entries (format §6.2).

**Model names** (issue 20.3): ``provider/model`` when both are there, else whichever is there,
never ``None/claude-…``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pitui.core.js import MAX_DATE_MS, js_date_ms, parse_iso_ms

if TYPE_CHECKING:
    from pitui.core.session import EntryMeta, Session

__all__ = [
    "SessionFacts",
    "Stats",
    "last_activity_ms",
    "model_text",
    "session_facts",
    "tally",
    "usage_numbers",
]

Usage = tuple[float, float, float, float, float]  # input, output, cacheRead, cacheWrite, cost


def _num(value: Any) -> float:
    """A usage number as pitui counts it: what is not a finite number (a string, ``1e400``,
    which JSON reads as infinity, an integer past a float's range) counts 0, so one bad value
    never makes a total infinite or a session unlistable; the doctor names the field."""
    if type(value) is float:
        return value if math.isfinite(value) else 0.0
    if type(value) is int:
        return float(value) if -_FLOAT_MAX < value < _FLOAT_MAX else 0.0
    return 0.0


_FLOAT_MAX = int(sys.float_info.max)


def usage_numbers(usage: Any) -> Usage:
    """``(input, output, cacheRead, cacheWrite, cost)`` of a raw ``usage`` object, counted
    (non-numbers are 0), or of a usage as :class:`EntryMeta` keeps it (counted on load)."""
    if isinstance(usage, dict):
        cost = usage.get("cost")
        return (
            _num(usage.get("input")),
            _num(usage.get("output")),
            _num(usage.get("cacheRead")),
            _num(usage.get("cacheWrite")),
            _num(cost.get("total")) if isinstance(cost, dict) else 0.0,
        )
    return usage  # type: ignore[no-any-return]


@dataclass(slots=True)
class Stats:
    """Message counts and spend over a set of entries (a branch, or the whole file).

    ``total_tokens`` is always the sum of the four parts (pi's rule, see the module docstring).
    """

    entries: int = 0
    messages: int = 0
    by_role: dict[str, int] = field(default_factory=dict)
    input_tokens: float = 0.0
    output_tokens: float = 0.0
    cache_read_tokens: float = 0.0
    cache_write_tokens: float = 0.0
    total_tokens: float = 0.0
    cost: float = 0.0

    def add_usage(self, usage: Any) -> None:
        """Add a usage (a raw object, or a record's: see :func:`usage_numbers`)."""
        self.add_numbers(usage_numbers(usage))

    def add_numbers(self, numbers: Usage) -> None:
        """Add ``(input, output, cacheRead, cacheWrite, cost)``; tokens by pi's rule."""
        inp, out, read, write, cost = numbers
        self.input_tokens += inp
        self.output_tokens += out
        self.cache_read_tokens += read
        self.cache_write_tokens += write
        self.total_tokens += inp + out + read + write
        self.cost += cost

    def __add__(self, other: Stats) -> Stats:
        by_role = dict(self.by_role)
        for role, count in other.by_role.items():
            by_role[role] = by_role.get(role, 0) + count
        return Stats(
            self.entries + other.entries,
            self.messages + other.messages,
            by_role,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.total_tokens + other.total_tokens,
            self.cost + other.cost,
        )

    def spend_minus(self, other: Stats) -> Stats:
        """The spend of these entries that is not in ``other`` (no counts): e.g. the file minus
        the branch is what the other branches cost."""
        return Stats(
            input_tokens=self.input_tokens - other.input_tokens,
            output_tokens=self.output_tokens - other.output_tokens,
            cache_read_tokens=self.cache_read_tokens - other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens - other.cache_write_tokens,
            total_tokens=self.total_tokens - other.total_tokens,
            cost=self.cost - other.cost,
        )

    def tokens_json(self) -> dict[str, int]:
        return {
            "input": int(self.input_tokens),
            "output": int(self.output_tokens),
            "cacheRead": int(self.cache_read_tokens),
            "cacheWrite": int(self.cache_write_tokens),
            "total": int(self.total_tokens),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "entries": self.entries,
            "messages": self.messages,
            "byRole": dict(self.by_role),
            "tokens": self.tokens_json(),
            "cost": self.cost,
        }


def tally(metas: Iterable[EntryMeta]) -> Stats:
    """Counts and spend over ``metas``: :meth:`Stats.add_usage` of each usage, in order (the
    index's usage tuples read in place: 100k+ entries in a big file)."""
    stats = Stats()
    by_role = stats.by_role
    entries = messages = 0
    inp = out = read = write = total = cost = 0.0
    for meta in metas:
        entries += 1
        role = meta.role
        if role is not None:
            messages += 1
            by_role[role] = by_role.get(role, 0) + 1
        usage = meta.usage
        if usage is None:
            continue
        a, b, c, d, e = usage  # counted on load (usage_numbers)
        inp += a
        out += b
        read += c
        write += d
        total += a + b + c + d
        cost += e
    stats.entries = entries
    stats.messages = messages
    stats.input_tokens = inp
    stats.output_tokens = out
    stats.cache_read_tokens = read
    stats.cache_write_tokens = write
    stats.total_tokens = total
    stats.cost = cost
    return stats


def model_text(provider: Any, model: Any) -> str | None:
    """``provider/model``, or whichever of the two is there; ``None`` when neither is."""
    has_model = isinstance(model, str) and model != ""
    has_provider = isinstance(provider, str) and provider != ""
    if has_model and has_provider:
        return f"{provider}/{model}"
    return model if has_model else provider if has_provider else None


@dataclass(frozen=True, slots=True)
class SessionFacts:
    """What pitui shows about one session at one leaf."""

    path: str
    id: str
    name: str | None
    cwd: str
    parent_session: str | None
    created: str | None  # the header's timestamp as written
    created_ms: int | None
    entries: int
    roots: int
    branch_ends: int
    leaf: EntryMeta | None
    branch_entries: Sequence[EntryMeta] = field(repr=False)
    branch: Stats  # the entries root → leaf
    file: Stats  # every entry of the file

    @property
    def other_branches(self) -> Stats:
        """What the entries off the branch cost (abandoned branches)."""
        return self.file.spend_minus(self.branch)


def session_facts(session: Session, leaf: EntryMeta | str | None = "default") -> SessionFacts:
    """The facts of ``session`` with the branch ending at ``leaf`` (a meta, a uid, ``"default"``
    for the file's leaf, or ``None`` for no branch)."""
    if isinstance(leaf, str):
        leaf = session.resolve_leaf(leaf) if leaf == "default" else session.get(leaf)
    branch = session.path_to(leaf)
    created_ms = parse_iso_ms(session.created)
    return SessionFacts(
        path=session.path,
        id=session.id,
        name=session.name,
        cwd=session.cwd,
        parent_session=session.parent_session,
        created=session.created,
        created_ms=created_ms,
        entries=len(session.entries),
        roots=len(session.roots),
        branch_ends=sum(1 for meta in session.entries if not meta.children),
        leaf=leaf,
        branch_entries=branch,
        branch=tally(branch),
        file=tally(session.entries),
    )


def last_activity_ms(session: Session) -> float | None:
    """When the session was last worked in, as pi's listing computes ``modified`` (format §12.2):
    the latest ``user``/``assistant`` message with ``content`` (its own numeric ``timestamp``,
    else the entry's), else the header's time; ``None`` when neither is known (a caller that has
    the file's mtime uses that). Reads those messages from the file: call it off the UI thread."""
    latest: float | None = None
    for meta in session.entries:
        if meta.role != "user" and meta.role != "assistant":
            continue
        message = session.raw(meta).get("message")
        if not isinstance(message, dict) or "content" not in message:
            continue
        stamp = message.get("timestamp")
        value: float | None
        if isinstance(stamp, int | float) and not isinstance(stamp, bool):
            value = float(stamp) if -MAX_DATE_MS <= stamp <= MAX_DATE_MS else None
        else:
            value = js_date_ms(meta.timestamp)
        if value is not None and (latest is None or value > latest):
            latest = value
    if latest is not None and latest > 0:
        return float(latest)
    created = parse_iso_ms(session.created)
    return None if created is None else float(created)
