"""Writing JSON as pi writes it: ``JSON.stringify`` byte for byte (spec/session-format.md §9.4,
§9.5), with pi's key order per entry type, JavaScript number formatting and lone-surrogate
escapes. Every line pitui appends or rewrites goes through :func:`dump_entry` / :func:`dump_header`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

import orjson

from pitui.core.js import json_number
from pitui.core.names import EntryType

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = [
    "dump_entry",
    "dump_header",
    "dump_json_line",
    "order_entry_keys",
    "order_header_keys",
]

_HEADER_ORDER: Final = ("type", "version", "id", "timestamp", "cwd", "parentSession")
_COMMON: Final = ("type", "id", "parentId", "timestamp")
_ENTRY_KEY_ORDER: Final[dict[str, tuple[str, ...]]] = {
    EntryType.MESSAGE: (*_COMMON, "message"),
    EntryType.THINKING_LEVEL_CHANGE: (*_COMMON, "thinkingLevel"),
    EntryType.MODEL_CHANGE: (*_COMMON, "provider", "modelId"),
    # v1 wrote firstKeptEntryIndex where v2+ writes firstKeptEntryId. The position of
    # retainedTail is taken from the spec's example (after tokensBefore); 1.6.0 writes usage
    # between details and fromHook and systemMessage last.
    EntryType.COMPACTION: (
        *_COMMON,
        "summary",
        "firstKeptEntryId",
        "firstKeptEntryIndex",
        "tokensBefore",
        "retainedTail",
        "details",
        "usage",
        "fromHook",
        "systemMessage",
    ),
    EntryType.BRANCH_SUMMARY: (*_COMMON, "fromId", "summary", "details", "usage", "fromHook"),
    EntryType.CUSTOM: ("type", "customType", "data", "id", "parentId", "timestamp"),
    EntryType.CUSTOM_MESSAGE: (
        "type",
        "customType",
        "content",
        "display",
        "details",
        "id",
        "parentId",
        "timestamp",
    ),
    EntryType.LABEL: (*_COMMON, "targetId", "label"),
    EntryType.SESSION_INFO: (*_COMMON, "name"),
    EntryType.CONTEXT_EDIT: (*_COMMON, "targetId", "replacement"),
    EntryType.USAGE: (*_COMMON, "kind", "provider", "model", "usage"),
}


def _ordered(obj: Mapping[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    out = {key: obj[key] for key in order if key in obj}
    for key, value in obj.items():
        if key not in out:
            out[key] = value
    return out


def order_entry_keys(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of an entry with pi's key order for its type (§9.5); unknown keys follow, in order.

    Unknown types keep their order. Nested objects are not reordered: pi writes them as built.
    """
    entry_type = entry.get("type")
    order = _ENTRY_KEY_ORDER.get(entry_type) if isinstance(entry_type, str) else None
    return dict(entry) if order is None else _ordered(entry, order)


def order_header_keys(header: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a header with pi's key order (§9.5); unknown keys follow in their order."""
    return _ordered(header, _HEADER_ORDER)


_INT64_MIN: Final = -(2**63)
_UINT64_MAX: Final = 2**64 - 1


def _js_numbers(obj: Any) -> Any:
    """Copy of a JSON value where every number orjson would print unlike JavaScript is a Fragment.

    orjson and JavaScript agree on non-integral floats with 1e-4 <= |x| < 1e16; everything else
    (``7.5e-6`` vs ``0.0000075``, ``1.0`` vs ``1``, ``1e+16`` vs ``10000000000000000``) and
    integers beyond 64 bits are pre-rendered.
    """
    kind = type(obj)
    if kind is str:
        return obj  # the commonest leaf first
    if kind is dict:
        return {key: _js_numbers(value) for key, value in obj.items()}
    if kind is list:
        return [_js_numbers(value) for value in obj]
    if kind is float:
        magnitude = abs(obj)
        if 1e-4 <= magnitude < 1e16 and not obj.is_integer():
            return obj
        return orjson.Fragment(json_number(obj).encode())
    if kind is int and not _INT64_MIN <= obj <= _UINT64_MAX:
        return orjson.Fragment(str(obj).encode())
    return obj


# What JSON.stringify escapes in a string: the quote, the backslash, C0 controls and (ES2019
# well-formed JSON.stringify) lone surrogates. Everything else, U+2028 included, is written raw.
_JS_ESCAPE_RE = re.compile('[\\x00-\\x1f"\\\\\ud800-\udfff]')
_JS_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def _js_escape_char(match: re.Match[str]) -> str:
    char = match.group()
    return _JS_ESCAPES.get(char) or f"\\u{ord(char):04x}"


def _json_string(text: str) -> str:
    # A high + low surrogate pair stored as two code points is one character to JavaScript.
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return '"' + _JS_ESCAPE_RE.sub(_js_escape_char, joined) + '"'


class _Piece(str):
    """Literal output text on the encoder's work stack (as opposed to a value still to encode)."""

    __slots__ = ()


_OPEN_OBJECT: Final = _Piece("{")
_CLOSE_OBJECT: Final = _Piece("}")
_OPEN_ARRAY: Final = _Piece("[")
_CLOSE_ARRAY: Final = _Piece("]")
_COMMA: Final = _Piece(",")


def _js_scalar(obj: Any) -> str:
    if isinstance(obj, str):
        return _json_string(str(obj))
    if obj is None:
        return "null"
    if obj is True:
        return "true"
    if obj is False:
        return "false"
    if isinstance(obj, int):
        return str(int(obj))
    if isinstance(obj, float):
        return json_number(float(obj))
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def _js_stringify(root: Any) -> str:
    """Pure-Python compact ``JSON.stringify``, iterative so that nesting depth is not limited.

    Used when orjson refuses a value (lone surrogates, nesting deeper than its limit).
    """
    out: list[str] = []
    stack: list[Any] = [root]
    while stack:
        item = stack.pop()
        if type(item) is _Piece:
            out.append(item)
        elif isinstance(item, dict):
            parts: list[Any] = [_OPEN_OBJECT]
            for key, value in item.items():
                if not isinstance(key, str):
                    raise TypeError(f"JSON object keys must be str, not {type(key).__name__}")
                if len(parts) > 1:
                    parts.append(_COMMA)
                parts.append(_Piece(_json_string(key) + ":"))
                parts.append(value)
            parts.append(_CLOSE_OBJECT)
            stack.extend(reversed(parts))
        elif isinstance(item, list | tuple):
            parts = [_OPEN_ARRAY]
            for value in item:
                if len(parts) > 1:
                    parts.append(_COMMA)
                parts.append(value)
            parts.append(_CLOSE_ARRAY)
            stack.extend(reversed(parts))
        else:
            out.append(_js_scalar(item))
    return "".join(out)


def dump_json_line(obj: Any) -> bytes:
    """``JSON.stringify(obj) + "\\n"`` as UTF-8, keys in the order they are in ``obj``.

    orjson does the work; numbers are pre-rendered the JavaScript way. A string orjson refuses
    (lone surrogates, which stdlib ``json.loads`` produces for pi's ``"\\ud83d"`` escapes) sends
    the value through a pure-Python encoder that escapes them as pi did, so the line is lossless;
    the same encoder takes values nested deeper than orjson allows (254 levels).
    """
    try:
        return orjson.dumps(_js_numbers(obj), option=orjson.OPT_APPEND_NEWLINE)
    except (orjson.JSONEncodeError, RecursionError):
        pass  # the pure encoder handles these, or raises TypeError for non-JSON values
    return (_js_stringify(obj) + "\n").encode("utf-8")


def _as_json(value: Mapping[str, Any] | BaseModel) -> Any:
    """A model as the JSON object it stands for; anything else as it is. The models are imported
    only for a model: writing plain entries (every append pitui makes) needs no pydantic."""
    if isinstance(value, Mapping):
        return value
    from pydantic import BaseModel

    from pitui.core.models import to_raw

    return to_raw(value) if isinstance(value, BaseModel) else value


def dump_entry(entry: Mapping[str, Any] | BaseModel) -> bytes:
    """One entry line exactly as pi writes it: pi's key order (§9.5), compact, ``\\n``-terminated.

    Raises TypeError for values that are not JSON (sets, objects, non-str keys).
    """
    raw = _as_json(entry)
    if not isinstance(raw, Mapping):
        raise TypeError("an entry must be a JSON object")
    return dump_json_line(order_entry_keys(raw))


def dump_header(header: Mapping[str, Any] | BaseModel) -> bytes:
    """The header line exactly as pi writes it (key order ``type, version, id, timestamp, cwd,
    parentSession``, then any other keys in their order)."""
    raw = _as_json(header)
    if not isinstance(raw, Mapping):
        raise TypeError("a header must be a JSON object")
    return dump_json_line(order_header_keys(raw))
