"""The few fields of a session line that the tree index needs, decoded in C (msgspec).

A :class:`Line` declares only ``type``, ``id``, ``parentId``, ``timestamp`` and, of a message,
its role and the small fields the index keeps (provider, model, stop reason, usage, tool call ids,
whether it has visible text); msgspec skips every other value without building it. On pi-shaped
lines that is about 0.6x of orjson's full parse, and no dict per line.

Every field is declared with the type pi writes. A line where one is of another type (a hostile
or damaged file), or that is not JSON, fails to decode with :data:`DecodeError` and is read by
the reference path instead (parsed whole, then the plain rules of ``session._make_meta``), as
are the other entry types (a few lines in a hundred). The pydantic
models of :mod:`pitui.core.models` stay the library's boundary: they validate whole entries, lazily,
for what is drawn or returned.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import UNSET, Meta, Raw, Struct, UnsetType

from pitui.core.js import JS_WHITESPACE, js_trim

__all__ = ["UNSET", "DecodeError", "Line", "decode_line", "visible_text"]

# What decode_line raises: not JSON, a value of another shape (msgspec's ValidationError is a
# DecodeError), bytes that are not UTF-8.
DecodeError = (msgspec.DecodeError, UnicodeDecodeError)

# A JSON number as JSON.parse (and orjson) reads it: an integer past 64 bits becomes a double
# there, while msgspec would keep it whole; a line with an integer outside int64 is read by the
# reference path.
Number = Annotated[int, Meta(ge=-(1 << 63), le=(1 << 63) - 1)] | float | None


class Cost(Struct):
    total: Number = None


class Usage(Struct):
    input: Number = None
    output: Number = None
    cacheRead: Number = None
    cacheWrite: Number = None
    totalTokens: Number = None
    cost: Cost | None = None

    def values(self) -> tuple[Any, ...]:
        """``(input, output, cacheRead, cacheWrite, totalTokens, cost.total)`` as found."""
        cost = self.cost
        return (self.input, self.output, self.cacheRead, self.cacheWrite, self.totalTokens,
                cost.total if cost is not None else None)  # fmt: skip


class Block(Struct):
    """A content block: its text is kept raw (only whether it is blank is asked)."""

    type: str | None = None
    text: Raw = Raw(b"")
    id: str | None = None


class Message(Struct):
    role: str | None = None
    content: list[Block] | str | None = None
    provider: str | None = None
    model: str | None = None
    stopReason: str | None = None
    usage: Usage | None = None
    toolCallId: str | None = None


class Line(Struct):
    """One message line, as far as the index reads it. ``parentId`` is :data:`UNSET` when the
    key is absent (pi then treats the entry as a root, and the doctor says so)."""

    type: str | None = None
    id: str | None = None
    parentId: str | UnsetType | None = UNSET
    timestamp: str | None = None
    message: Message | None = None


# The decode alone, for a caller that checks the bytes itself (as decode_line does).
decode_fields = msgspec.json.Decoder(Line).decode


def decode_line(line: bytes) -> Line:
    """The :class:`Line` of a JSON line; raises :data:`DecodeError` (or ``UnicodeDecodeError``).

    msgspec skips the values it does not want without reading their bytes, so it would not see
    bytes that are not UTF-8 there (JSON.parse would replace them, and the reader reports it):
    a line that is not all ASCII is checked first.
    """
    if not line.isascii():
        line.decode()
    return decode_fields(line)


def visible_text(raw: Raw) -> bool:
    """Whether a raw JSON value is a string that JavaScript's ``trim()`` leaves non-empty."""
    data = bytes(raw)
    if data[:1] != b'"' or len(data) < 3:
        return False
    first = data[1]
    if first > 0x20 and first != 0x5C and first < 0x80:
        return True  # an ASCII character that is not white space and not an escape
    text = msgspec.json.decode(data)
    return bool(text) and (text[0] not in JS_WHITESPACE or bool(js_trim(text)))
