"""What the listing summary (:mod:`pitui.core.summary`) decodes of each session line.

:class:`ListingLine` declares only what the summary folds in: ``type``, ``id``, ``parentId``,
``timestamp``, a message's role, texts, time, model and usage, and the few fields of the other
entries it counts (usage of compactions, branch summaries and usage entries; names; labels).
msgspec decodes those in C and skips every other value unread.

Every field is declared with the type pi writes. A line where one is of another type (a hostile
or damaged file), or that is not JSON, fails to decode with :data:`~pitui.core.records.
DecodeError` and the summary parses it whole instead (its reference path).
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, Struct, UnsetType

__all__ = [
    "ListingAssistant",
    "ListingBlock",
    "ListingCost",
    "ListingLine",
    "ListingToolResult",
    "ListingUsage",
    "ListingUser",
    "decode_listing_line",
    "decode_listing_lines",
]


class ListingCost(Struct):
    total: float = 0.0


class ListingUsage(Struct):
    """A usage as the listing sums it (pi's token rule: the four parts, not ``totalTokens``).

    The parts are ``float``: msgspec reads a JSON integer into the float ``float(int)`` is (an
    integer past 64 bits into the double orjson makes of it) and refuses a number out of a
    double's range, ``null``, a string or a boolean; such a line is parsed whole, where
    :func:`~pitui.core.facts.usage_numbers` counts what is not a finite number as 0. So every
    value here is finite and an absent one is 0, as there: the sums are the same."""

    input: float = 0.0
    output: float = 0.0
    cacheRead: float = 0.0
    cacheWrite: float = 0.0
    cost: ListingCost | None = None


class ListingBlock(Struct):
    type: str | None = None
    text: str | None = None


class ListingMessage(Struct, tag_field="role"):
    """A message as the listing summary reads it, by its role (a tagged union: a role pi does
    not write fails the decode, and the line is parsed whole). Only user and assistant messages
    have their texts and time read (``content`` is :data:`UNSET` when the key is absent: pi's
    listing tells that from ``null``; ``timestamp`` may be any value); a tool result only its
    usage: its output, most of a session's bytes, is skipped unread."""


class ListingUser(ListingMessage, tag="user"):
    content: list[ListingBlock] | str | UnsetType | None = UNSET
    timestamp: Any = None


class ListingAssistant(ListingMessage, tag="assistant"):
    content: list[ListingBlock] | str | UnsetType | None = UNSET
    timestamp: Any = None
    provider: str | None = None
    model: str | None = None
    usage: ListingUsage | None = None


class ListingToolResult(ListingMessage, tag="toolResult"):
    usage: ListingUsage | None = None


# The other roles pi writes: counted as messages, nothing read.
class _ListingBash(ListingMessage, tag="bashExecution"): ...


class _ListingCustom(ListingMessage, tag="custom"): ...


class _ListingHook(ListingMessage, tag="hookMessage"): ...


class _ListingBranchSummary(ListingMessage, tag="branchSummary"): ...


class _ListingCompactionSummary(ListingMessage, tag="compactionSummary"): ...


class _ListingSystem(ListingMessage, tag="system"): ...


class ListingLine(Struct):
    """One line as the listing summary reads it: the fields of :class:`~pitui.core.records.Line`
    with the message's texts and time, and the few fields of the other entries it counts.
    Unlike ``Line`` it decodes the text of text blocks: the listing keeps it."""

    type: str | None = None
    id: str | None = None
    parentId: str | UnsetType | None = UNSET
    timestamp: str | None = None
    message: (
        ListingUser | ListingAssistant | ListingToolResult | _ListingBash | _ListingCustom
        | _ListingHook | _ListingBranchSummary | _ListingCompactionSummary | _ListingSystem
        | None
    ) = None  # fmt: skip
    usage: ListingUsage | None = None
    name: str | None = None
    targetId: str | None = None
    label: str | None = None


# Bytes not UTF-8 in a value the listing skips do not matter to it; in a string it reads, msgspec
# refuses them (and lone surrogates), and the line is parsed whole.
_listing = msgspec.json.Decoder(ListingLine)
decode_listing_line = _listing.decode
decode_listing_lines = _listing.decode_lines
