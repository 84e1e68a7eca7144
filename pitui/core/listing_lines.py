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

from pitui.core.records import Usage

__all__ = [
    "ListingAssistant",
    "ListingBlock",
    "ListingLine",
    "ListingToolResult",
    "ListingUser",
    "decode_listing_line",
    "decode_listing_lines",
]


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
    usage: Usage | None = None


class ListingToolResult(ListingMessage, tag="toolResult"):
    usage: Usage | None = None


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
    usage: Usage | None = None
    name: str | None = None
    targetId: str | None = None
    label: str | None = None


# Bytes not UTF-8 in a value the listing skips do not matter to it; in a string it reads, msgspec
# refuses them (and lone surrogates), and the line is parsed whole.
_listing = msgspec.json.Decoder(ListingLine)
decode_listing_line = _listing.decode
decode_listing_lines = _listing.decode_lines
