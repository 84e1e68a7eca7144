"""pitui.core.models: every fixture line parses, round-trips and is re-serialised byte for byte.

The fixtures were written by pi 0.73.1 and 1.6.0 (and two legacy v1 files from pi's repository).
Every line of them is reproduced exactly by ``dump_entry`` / ``dump_header``: pi's key order,
JavaScript number formatting (``0.0000075``, not ``7.5e-6``) and lone-surrogate escapes included.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from pitui.core import models as m
from pitui.core import stringify
from tests.conftest import CORPORA, FIXTURES, fixture_by_scenario

# A serialisation that does not match the declared union (pydantic's UserWarning) is a bug here.
pytestmark = pytest.mark.filterwarnings("error::UserWarning")

FIXTURE_FILES = sorted(FIXTURES.glob("**/*.jsonl"))
TS = "2025-01-01T12:34:56.789Z"

# §9.5 of the format spec plus what pi 1.6.0 writes (usage, systemMessage, context_edit, usage
# entries) and v1's firstKeptEntryIndex. An independent copy: the oracle for the reorder tests.
PI_KEY_ORDER: dict[str, tuple[str, ...]] = {
    "session": ("type", "version", "id", "timestamp", "cwd", "parentSession"),
    "message": ("type", "id", "parentId", "timestamp", "message"),
    "thinking_level_change": ("type", "id", "parentId", "timestamp", "thinkingLevel"),
    "model_change": ("type", "id", "parentId", "timestamp", "provider", "modelId"),
    "compaction": (
        "type",
        "id",
        "parentId",
        "timestamp",
        "summary",
        "firstKeptEntryId",
        "firstKeptEntryIndex",
        "tokensBefore",
        "details",
        "usage",
        "fromHook",
        "systemMessage",
    ),
    "branch_summary": (
        "type",
        "id",
        "parentId",
        "timestamp",
        "fromId",
        "summary",
        "details",
        "usage",
        "fromHook",
    ),
    "custom": ("type", "customType", "data", "id", "parentId", "timestamp"),
    "custom_message": (
        "type",
        "customType",
        "content",
        "display",
        "details",
        "id",
        "parentId",
        "timestamp",
    ),
    "label": ("type", "id", "parentId", "timestamp", "targetId", "label"),
    "session_info": ("type", "id", "parentId", "timestamp", "name"),
    "context_edit": ("type", "id", "parentId", "timestamp", "targetId", "replacement"),
    "usage": ("type", "id", "parentId", "timestamp", "kind", "provider", "model", "usage"),
}


def _load(line: bytes) -> Any:
    """Parse a line the way pitui's reader does (orjson, stdlib json for what orjson refuses)."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line.decode("utf-8"))


def _lines(path: Path) -> Iterator[tuple[bytes, Any]]:
    data = path.read_bytes()
    assert data.endswith(b"\n") and b"\r" not in data  # pi's files: \n-terminated lines only
    for line in data.split(b"\n"):
        if line.strip():
            yield line, _load(line)


def _scramble(obj: dict[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
    """Unknown keys first (their order kept), then the known keys in reverse order."""
    unknown = [(k, v) for k, v in obj.items() if k not in known]
    ordered = [(k, obj[k]) for k in reversed(known) if k in obj]
    return dict(unknown + ordered)


def _unknowns(value: Any) -> Iterator[Any]:
    """Every Unknown* model anywhere inside a parsed model."""
    if isinstance(value, m.UnknownEntry | m.UnknownMessage | m.UnknownContent):
        yield value
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from _unknowns(getattr(value, name))
    elif isinstance(value, list):
        for item in value:
            yield from _unknowns(item)


# ------------------------------------------------------------------------------------------------
# Fixtures: parse, round trip, bytes


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_lines_parse_round_trip_and_reserialise(path: Path) -> None:
    for line, raw in _lines(path):
        expected = line + b"\n"
        if raw.get("type") == "session":
            header = m.parse_header(raw)
            assert header is not None
            assert m.to_raw(header) == raw
            assert stringify.dump_header(raw) == expected
            assert stringify.dump_header(header) == expected
            assert stringify.dump_header(_scramble(raw, PI_KEY_ORDER["session"])) == expected
            continue
        entry = m.parse_entry(raw)
        assert not isinstance(entry, m.UnknownEntry), entry.error
        inner = list(_unknowns(entry))
        assert not inner, [u.error for u in inner]
        assert m.to_raw(entry) == raw
        assert stringify.dump_entry(raw) == expected
        # From a model the value is the same; nested key order is the models' field order, which
        # cannot follow every line (pi puts e.g. errorMessage before or after timestamp).
        assert _load(stringify.dump_entry(entry)) == raw
        # pi's order is restored, not merely preserved: every key in the fixtures is a known one.
        known = PI_KEY_ORDER[raw["type"]]
        assert set(raw) <= set(known)
        assert stringify.dump_entry(_scramble(raw, known)) == expected


def test_fixtures_cover_every_entry_model_and_role() -> None:
    entry_models: set[type[BaseModel]] = set()
    roles: set[str] = set()
    blocks: set[type[BaseModel]] = set()
    for path in FIXTURE_FILES:
        for _, raw in _lines(path):
            if raw.get("type") == "session":
                continue
            entry = m.parse_entry(raw)
            entry_models.add(type(entry))
            if isinstance(entry, m.MessageEntry):
                roles.add(entry.message.role or "")
                content = getattr(entry.message, "content", None)
                if isinstance(content, list):
                    blocks.update(type(block) for block in content)
    assert entry_models == {
        m.MessageEntry,
        m.ThinkingLevelChangeEntry,
        m.ModelChangeEntry,
        m.CompactionEntry,
        m.BranchSummaryEntry,
        m.CustomEntry,
        m.CustomMessageEntry,
        m.LabelEntry,
        m.SessionInfoEntry,
        m.ContextEditEntry,
        m.UsageEntry,
    }
    assert roles == {"user", "assistant", "toolResult", "bashExecution", "system"}
    assert blocks == {m.TextContent, m.ImageContent, m.ThinkingContent, m.ToolCall}


def test_fixture_models_expose_typed_fields() -> None:
    path = fixture_by_scenario("pi-written-1.6.0", "v1-features")
    entries = [m.parse_entry(raw) for _, raw in _lines(path) if raw.get("type") != "session"]
    edits = [e for e in entries if isinstance(e, m.ContextEditEntry)]
    assert edits and any(e.removes for e in edits)
    replaced = [e.replacement for e in edits if e.replacement is not None]
    assert any(isinstance(r.content, str) for r in replaced)
    assert any(isinstance(r.content, list) for r in replaced)
    usage_entries = [e for e in entries if isinstance(e, m.UsageEntry)]
    assert usage_entries[0].kind == "cache_warm" and usage_entries[0].usage is not None
    assert usage_entries[0].usage.cacheRead == 51234
    systems = [
        e.message
        for e in entries
        if isinstance(e, m.MessageEntry) and isinstance(e.message, m.SystemMessage)
    ]
    patch = next(s for s in systems if s.toolsRemoved)
    assert patch.sections is not None and patch.sections["docs"] is None
    assert patch.toolsRemoved == [{"name": "write"}]


def test_lone_surrogate_lines_round_trip_losslessly() -> None:
    """orjson refuses ``"\\ud83d"``; stdlib json keeps it as a lone surrogate; dump restores it."""
    seen = 0
    for corpus in CORPORA:
        path = fixture_by_scenario(corpus, "lone-surrogates")
        for line, raw in _lines(path):
            if b"\\ud83d" not in line:
                continue
            seen += 1
            with pytest.raises(orjson.JSONDecodeError):
                orjson.loads(line)
            entry = m.parse_entry(raw)
            assert isinstance(entry, m.MessageEntry)
            assert isinstance(entry.message, m.ToolResultMessage)
            text = m.content_text_concat(entry.message.content)
            assert "\ud83d (cut mid-emoji)" in text and "\udc00\ud800" in text and "\x00" in text
            with pytest.raises(TypeError):
                orjson.dumps(raw)  # why dump_json_line needs its own string encoder
            assert stringify.dump_entry(raw) == line + b"\n"
    assert seen == 2


# ------------------------------------------------------------------------------------------------
# Hostile input: never raises, falls back to Unknown*, keeps the raw value


HOSTILE_ENTRIES: list[tuple[dict[str, Any], str]] = [
    (
        {
            "type": "compaction",
            "id": "a1",
            "parentId": None,
            "timestamp": TS,
            "summary": "s",
            "tokensBefore": "x",
        },
        "tokensBefore",
    ),
    ({"type": "compaction", "summary": "s", "tokensBefore": True}, "tokensBefore"),
    ({"type": "compaction", "summary": "s", "tokensBefore": 1, "retainedTail": {}}, "retainedTail"),
    ({"type": "label", "id": "a", "parentId": None, "timestamp": TS}, "targetId"),
    ({"type": "message", "id": 5, "message": {"role": "user", "content": "x"}}, "id"),
    ({"type": "message", "timestamp": 1735734896789, "message": {"role": "user"}}, "timestamp"),
    ({"type": "message", "parentId": ["p"], "message": {"role": "user"}}, "parentId"),
    ({"type": "message", "id": "a"}, "message"),
    ({"type": "model_change", "provider": "p", "modelId": ["x"]}, "modelId"),
    ({"type": "context_edit", "targetId": "t", "replacement": "text"}, "replacement"),
    ({"type": "custom_message", "customType": "c", "content": 5}, "content"),
    ({"type": "branch_summary", "fromId": "r", "summary": None}, "summary"),
    ({"type": "usage", "usage": {"input": "3"}}, "usage"),
    ({"type": "session_info", "name": 5}, "name"),
    ({"type": "thinking_level_change"}, "thinkingLevel"),
    ({"type": "custom", "customType": 1}, "customType"),
]


@pytest.mark.parametrize(("raw", "field"), HOSTILE_ENTRIES, ids=lambda v: str(v)[:40])
def test_known_type_with_bad_fields_becomes_unknown_entry(raw: dict[str, Any], field: str) -> None:
    entry = m.parse_entry(raw)
    assert isinstance(entry, m.UnknownEntry)
    assert entry.raw is raw
    assert entry.type == raw["type"]
    assert entry.error is not None and field in entry.error
    assert m.to_raw(entry) == raw


@pytest.mark.parametrize("raw", [5, "x", None, [], [1, {"type": "message"}], True, 1.5])
def test_non_object_line_becomes_unknown_entry(raw: Any) -> None:
    entry = m.parse_entry(raw)
    assert isinstance(entry, m.UnknownEntry)
    assert entry.error == "entry is not a JSON object"
    assert entry.type is None and entry.id is None and entry.parentId is None
    assert m.to_raw(entry) == raw


def test_unknown_type_keeps_common_fields_and_has_no_error() -> None:
    raw = {"type": "future_thing", "id": "e1", "parentId": "e0", "timestamp": TS, "x": {"y": 1}}
    entry = m.parse_entry(raw)
    assert isinstance(entry, m.UnknownEntry)
    assert (entry.type, entry.id, entry.parentId, entry.timestamp) == (
        "future_thing",
        "e1",
        "e0",
        TS,
    )
    assert entry.error is None
    assert m.to_raw(entry) == raw
    assert (
        stringify.dump_entry(entry) == orjson.dumps(raw) + b"\n"
    )  # unknown types keep their key order


@pytest.mark.parametrize("raw", [{"id": "x"}, {"type": 3, "id": "x"}, {"type": None}])
def test_entry_without_string_type_is_unknown(raw: dict[str, Any]) -> None:
    entry = m.parse_entry(raw)
    assert isinstance(entry, m.UnknownEntry)
    assert entry.error == "entry has no string 'type'"
    assert m.to_raw(entry) == raw


def test_header_line_in_the_middle_is_not_an_entry_model() -> None:
    raw = {"type": "session", "version": 3, "id": "s", "timestamp": TS, "cwd": "/"}
    entry = m.parse_entry(raw)
    assert isinstance(entry, m.UnknownEntry) and entry.error is None


def test_bad_message_inside_entry_falls_back_to_unknown_message_only() -> None:
    raw: dict[str, Any] = {"type": "message", "id": "a", "parentId": None, "timestamp": TS}
    raw["message"] = {"role": "user", "content": 5, "timestamp": 1}
    entry = m.parse_entry(raw)
    assert isinstance(entry, m.MessageEntry)
    assert entry.id == "a"
    message = entry.message
    assert isinstance(message, m.UnknownMessage)
    assert message.role == "user"
    assert message.error is not None and "content" in message.error
    assert m.message_text(message) == ""
    assert m.to_raw(entry) == raw


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ("hello", "message is not a JSON object"),
        (None, "message is not a JSON object"),
        ({"content": "x"}, "message has no string 'role'"),
        ({"role": "developer", "content": "hi"}, None),
        ({"role": "assistant", "usage": {"input": "3"}}, "usage.input"),
        ({"role": "assistant", "content": [], "stopReason": 1}, "stopReason"),
        ({"role": "toolResult", "isError": "no"}, "isError"),
        ({"role": "bashExecution", "exitCode": "1"}, "exitCode"),
        ({"role": "system", "sections": {"a": 5}}, "sections.a"),
        ({"role": "user", "content": "x", "timestamp": "1"}, "timestamp"),
    ],
)
def test_parse_message_falls_back(raw: Any, error: str | None) -> None:
    message = m.parse_message(raw)
    assert isinstance(message, m.UnknownMessage)
    if error is None:
        assert message.error is None
    else:
        assert message.error is not None and error in message.error
    assert m.to_raw(message) == raw


def test_bad_blocks_fall_back_one_by_one() -> None:
    raw = {
        "role": "user",
        "content": [
            {"type": "text", "text": "a"},
            {"type": "text", "text": 5},
            {"type": "audio", "data": "x"},
            7,
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "toolCall", "id": "t", "name": "n", "arguments": "not an object"},
        ],
    }
    message = m.parse_message(raw)
    assert isinstance(message, m.UserMessage)
    assert isinstance(message.content, list)
    kinds = [type(block) for block in message.content]
    assert kinds == [
        m.TextContent,
        m.UnknownContent,
        m.UnknownContent,
        m.UnknownContent,
        m.ImageContent,
        m.UnknownContent,
    ]
    bad_text, audio, seven, _, bad_call = message.content[1:]
    assert isinstance(bad_text, m.UnknownContent) and bad_text.type == "text"
    assert bad_text.error is not None and "text" in bad_text.error
    assert isinstance(audio, m.UnknownContent) and audio.error is None
    assert isinstance(seven, m.UnknownContent)
    assert seven.error == "content block is not a JSON object"
    assert isinstance(bad_call, m.UnknownContent)
    assert bad_call.error is not None and "arguments" in bad_call.error
    # pi's extractTextContent joins every text block's text, a number written as JavaScript does
    assert m.message_text(message) == "a 5"
    assert m.to_raw(message) == raw


def test_compaction_retained_tail_and_checkpoint_fall_back_per_message() -> None:
    raw = {
        "type": "compaction",
        "id": "c",
        "parentId": "b",
        "timestamp": TS,
        "summary": "S",
        "tokensBefore": 50000,
        "retainedTail": [
            {"role": "user", "content": "B"},
            "junk",
            {"role": "assistant", "usage": 1},
        ],
        "systemMessage": {"role": "system", "sections": {"a": 5}},
    }
    entry = m.parse_entry(raw)
    assert isinstance(entry, m.CompactionEntry)
    assert entry.retainedTail is not None
    assert [type(x) for x in entry.retainedTail] == [
        m.UserMessage,
        m.UnknownMessage,
        m.UnknownMessage,
    ]
    assert isinstance(entry.systemMessage, m.UnknownMessage)
    assert m.to_raw(entry) == raw


def test_header_parsing() -> None:
    assert m.parse_header({"type": "session"}) is None
    assert m.parse_header({"type": "session", "id": 5}) is None
    assert m.parse_header({"type": "message", "id": "x"}) is None
    assert m.parse_header(["session"]) is None
    assert m.parse_header(None) is None

    legacy = {"type": "session", "id": "s1", "timestamp": TS, "cwd": "/p", "branchedFrom": "/f"}
    header = m.parse_header(legacy)
    assert header is not None
    assert header.version == 1  # absent means 1 ...
    assert m.to_raw(header) == legacy  # ... and stays absent
    assert header.model_extra == {"branchedFrom": "/f"}

    # pi accepts any header with type "session" and a string id: bad fields read as absent.
    odd = {"type": "session", "version": "3", "id": "s2", "timestamp": 5, "cwd": 5, "z": 1}
    header = m.parse_header(odd)
    assert header is not None
    assert (header.version, header.timestamp, header.cwd) == (1, None, None)
    assert header.invalid_fields == {"version": "3", "timestamp": 5, "cwd": 5}
    assert m.to_raw(header) == odd
    assert stringify.dump_header(header) == stringify.dump_header(odd)


# ------------------------------------------------------------------------------------------------
# Absent vs null vs empty


def test_parent_id_absent_and_null_stay_distinct() -> None:
    absent = m.parse_entry({"type": "custom", "customType": "c"})
    null = m.parse_entry({"type": "custom", "customType": "c", "parentId": None})
    assert isinstance(absent, m.CustomEntry) and isinstance(null, m.CustomEntry)
    assert absent.parentId is None and null.parentId is None
    assert "parentId" not in absent.model_fields_set and "parentId" in null.model_fields_set
    assert m.to_raw(absent) == {"type": "custom", "customType": "c"}
    assert m.to_raw(null) == {"type": "custom", "customType": "c", "parentId": None}


@pytest.mark.parametrize(
    ("label", "clears", "text"),
    [
        (..., True, None),
        (None, True, None),
        ("", True, ""),
        ("done", False, "done"),
        (5, False, "5"),
        (0, True, "0"),
        (True, False, "true"),
        (1.5e-7, False, "1.5e-7"),
    ],
)
def test_label_values(label: Any, clears: bool, text: str | None) -> None:
    raw: dict[str, Any] = {"type": "label", "id": "l", "parentId": "p", "timestamp": TS}
    raw["targetId"] = "t"
    if label is not ...:
        raw["label"] = label
    entry = m.parse_entry(raw)
    assert isinstance(entry, m.LabelEntry)
    assert entry.clears is clears
    assert entry.label_text == text
    assert ("label" in entry.model_fields_set) is (label is not ...)
    assert m.to_raw(entry) == raw


@pytest.mark.parametrize(
    ("tail", "has_tail"), [(..., False), (None, False), ([], True), ([{"role": "user"}], True)]
)
def test_retained_tail_presence_follows_pi(tail: Any, has_tail: bool) -> None:
    raw: dict[str, Any] = {"type": "compaction", "summary": "S", "tokensBefore": 1}
    if tail is not ...:
        raw["retainedTail"] = tail
    entry = m.parse_entry(raw)
    assert isinstance(entry, m.CompactionEntry)
    assert entry.has_retained_tail is has_tail
    assert m.to_raw(entry) == raw


def test_missing_and_null_content_read_as_empty() -> None:
    missing = m.parse_message({"role": "user", "timestamp": 1})
    null = m.parse_message({"role": "assistant", "content": None})
    assert isinstance(missing, m.UserMessage) and isinstance(null, m.AssistantMessage)
    for message in (missing, null):
        assert m.message_text(message) == ""
        assert m.content_blocks(message.content) == []
    assert m.to_raw(missing) == {"role": "user", "timestamp": 1}
    assert m.to_raw(null) == {"role": "assistant", "content": None}


def test_partial_usage_gets_defaults_but_dumps_as_written() -> None:
    raw = {"role": "assistant", "content": [], "usage": {"input": 5, "cacheWrite1h": 2}}
    message = m.parse_message(raw)
    assert isinstance(message, m.AssistantMessage) and message.usage is not None
    assert (message.usage.input, message.usage.output, message.usage.cost.total) == (5, 0, 0)
    assert message.usage.model_extra == {"cacheWrite1h": 2}
    assert m.to_raw(message) == raw


def test_hook_message_is_a_custom_message_and_keeps_its_role() -> None:
    raw = {"role": "hookMessage", "customType": "x", "content": "hi", "display": True}
    message = m.parse_message(raw)
    assert isinstance(message, m.CustomMessage)
    assert message.role == "hookMessage"
    assert m.to_raw(message) == raw


def test_assistant_extras() -> None:
    raw = {"role": "assistant", "content": [], "responseId": "r1", "responseModel": "m-2"}
    message = m.parse_message(raw)
    assert isinstance(message, m.AssistantMessage)
    assert (message.responseId, message.responseModel) == ("r1", "m-2")
    assert m.parse_message({"role": "assistant", "responseId": 1}).responseId is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("name", "display"),
    [
        (..., None),
        ("Named", "Named"),
        ("  Spaced  ", "Spaced"),
        ("", None),
        (" \t\n ", None),
        ("\ufeffx\u3000", "x"),  # JavaScript trim: U+FEFF and ideographic space too
    ],
)
def test_session_info_display_name(name: Any, display: str | None) -> None:
    raw: dict[str, Any] = {"type": "session_info"}
    if name is not ...:
        raw["name"] = name
    entry = m.parse_entry(raw)
    assert isinstance(entry, m.SessionInfoEntry)
    assert entry.display_name == display


# ------------------------------------------------------------------------------------------------
# Text helpers


def test_message_text_follows_the_picker_rule() -> None:
    # Scenario F23: image ignored, text blocks joined with one space, nothing trimmed.
    user = m.parse_message(
        {
            "role": "user",
            "content": [
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "text", "text": "  hello"},
                {"type": "text", "text": "world"},
            ],
        }
    )
    assert m.message_text(user) == "  hello world"
    assistant = m.parse_message(
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "hi"},
                {"type": "toolCall", "id": "t", "name": "ls", "arguments": {}},
            ],
        }
    )
    assert m.message_text(assistant) == "hi"
    assert m.message_text(m.parse_message({"role": "user", "content": "as is "})) == "as is "
    assert m.message_text(m.parse_message({"role": "bashExecution", "command": "ls"})) == ""
    assert m.message_text(m.parse_message({"role": "developer", "content": "raw"})) == "raw"
    assert m.message_text({"role": "user", "content": [{"type": "text", "text": "d"}]}) == "d"
    # pi joins every text block, empty ones included.
    two_empty = [{"type": "text", "text": ""}, {"type": "text", "text": ""}]
    assert m.message_text(m.parse_message({"role": "user", "content": two_empty})) == " "


def test_content_text_concat_has_no_separator() -> None:
    content = m.parse_content(
        [
            {"type": "text", "text": "a"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "text", "text": "b\n"},
        ]
    )
    assert m.content_text_concat(content) == "ab\n"
    assert m.content_text_concat("plain") == "plain"
    assert m.content_text_concat(None) == ""
    assert m.content_text_concat([{"type": "text", "text": "raw"}, {"type": "text"}]) == "raw"
    assert m.parse_content(5) is None


def test_content_blocks() -> None:
    blocks = m.content_blocks("hi")
    assert len(blocks) == 1 and isinstance(blocks[0], m.TextContent) and blocks[0].text == "hi"
    assert m.to_raw(blocks[0]) == {"type": "text", "text": "hi"}
    assert m.content_blocks(None) == []
    parsed = m.parse_content([{"type": "text", "text": "x"}])
    assert m.content_blocks(parsed) == parsed


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"role": "user", "content": "x"}, True),
        ({"role": "user", "content": None}, True),  # pi tests `"content" in message`
        ({"role": "user"}, False),
        ({"role": "assistant", "content": []}, True),
        ({"role": "toolResult", "content": []}, False),
        ({"role": "bashExecution", "command": "ls"}, False),
        ({"role": "custom", "content": "x"}, False),
        ({"role": "user", "content": 5}, True),  # an UnknownMessage, judged on its raw value
        ({"role": "system", "content": "x"}, False),
    ],
)
def test_is_user_or_assistant_with_content(raw: dict[str, Any], expected: bool) -> None:
    assert m.is_user_or_assistant_with_content(m.parse_message(raw)) is expected
    assert m.is_user_or_assistant_with_content(raw) is expected


def test_constants() -> None:
    assert m.Role.TOOL_RESULT == "toolResult" and "system" in m.Role.ALL
    assert m.EntryType.CONTEXT_EDIT == "context_edit" and "session" not in m.EntryType.ALL
    assert frozenset({"text", "image", "thinking", "toolCall"}) == m.BlockType.ALL


# ------------------------------------------------------------------------------------------------
# Writing


def test_dump_entry_uses_pi_key_order() -> None:
    label = {"label": "x", "targetId": "c", "timestamp": "T", "parentId": "b", "id": "a"}
    label["type"] = "label"
    assert stringify.dump_entry(label) == (
        b'{"type":"label","id":"a","parentId":"b","timestamp":"T","targetId":"c","label":"x"}\n'
    )
    custom: dict[str, Any] = {"id": "a", "parentId": None, "timestamp": "T", "type": "custom"}
    custom["customType"] = "k"
    custom["data"] = {"z": 1, "a": 2}  # nested objects keep their order
    assert stringify.dump_entry(custom) == (
        b'{"type":"custom","customType":"k","data":{"z":1,"a":2},"id":"a","parentId":null,'
        b'"timestamp":"T"}\n'
    )
    extra = {"zz": 1, "type": "session_info", "aa": 2, "name": "n", "id": "i"}
    assert (
        stringify.dump_entry(extra)
        == b'{"type":"session_info","id":"i","name":"n","zz":1,"aa":2}\n'
    )
    unknown = {"b": 1, "type": "future", "a": 2}
    assert stringify.dump_entry(unknown) == b'{"b":1,"type":"future","a":2}\n'
    header = {"cwd": "/", "id": "s", "type": "session", "x": 1, "version": 3, "timestamp": "T"}
    assert stringify.dump_header(header) == (
        b'{"type":"session","version":3,"id":"s","timestamp":"T","cwd":"/","x":1}\n'
    )


def test_dump_entry_writes_like_json_stringify() -> None:
    entry = {
        "type": "custom",
        "customType": "t",
        "data": {
            "text": "é中😀\u2028\x7f\x85",
            "ctl": '\x1b[31m\x00\x0b\t\n\f\b\r"\\/',
            "lone": "\ud83d",
            "pair_as_two_code_points": "\ud83d\ude00",
            "floats": [7.5e-6, 1e-7, 1.0, -0.0, 1e21, 1e16, 0.1, 123456789012345680000.0],
            "big": 2**70,
            "neg": -(2**64),
        },
    }
    expected = (
        '{"type":"custom","customType":"t","data":{"text":"é中😀\u2028\x7f\x85",'
        '"ctl":"\\u001b[31m\\u0000\\u000b\\t\\n\\f\\b\\r\\"\\\\/","lone":"\\ud83d",'
        '"pair_as_two_code_points":"😀",'
        '"floats":[0.0000075,1e-7,1,0,1e+21,10000000000000000,0.1,123456789012345680000],'
        '"big":1180591620717411303424,"neg":-18446744073709551616}}\n'
    )
    assert stringify.dump_entry(entry) == expected.encode("utf-8")


def test_dump_rejects_what_is_not_json() -> None:
    with pytest.raises(TypeError):
        stringify.dump_entry({"type": "custom", "data": {1, 2}})
    with pytest.raises(TypeError):
        stringify.dump_entry({"type": "custom", "data": {1: 2}})
    with pytest.raises(TypeError):
        stringify.dump_entry(["type", "custom"])  # type: ignore[arg-type]


def test_dump_handles_nesting_deeper_than_orjson() -> None:
    depth = 600
    line = b'{"type":"custom","customType":"d","data":' + b"[" * depth + b"]" * depth + b"}"
    raw = orjson.loads(line)
    assert stringify.dump_entry(raw) == line + b"\n"
    assert m.to_raw(m.parse_entry(raw)) == raw


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js as the reference")
def test_dump_json_line_matches_node() -> None:
    values: list[Any] = [
        1e-7,
        7.5e-6,
        1e21,
        -1.2345e-300,
        0.015370199999999999,
        "\ud83d\ude00 \udc00\ud800 \x00\x1f\x7f\u2028\u2029\ufeff",
        # Integers are written with all their digits (what was read comes back); Node would round
        # one above 2**53 to a double, but pi never wrote such an integer in the first place.
        {"k\ud800": [1.5, None, True, 2**53]},
    ]
    values += [i * 1.1**i for i in range(-400, 400, 7)]
    payload = json.dumps(values)  # ASCII with \u escapes: carries lone surrogates to Node
    script = (
        "let d='';process.stdin.on('data',c=>d+=c).on('end',()=>"
        "process.stdout.write(JSON.parse(d).map(v=>JSON.stringify(v)).join('\\n')))"
    )
    result = subprocess.run(
        ["node", "-e", script], input=payload.encode(), capture_output=True, check=True, timeout=60
    )
    node_lines = result.stdout.split(b"\n")
    assert len(node_lines) == len(values)
    for value, node_line in zip(json.loads(payload), node_lines, strict=True):
        assert stringify.dump_json_line(value) == node_line + b"\n"


# ------------------------------------------------------------------------------------------------
# Property tests over random JSON-like values

_KEYS = [
    "type",
    "role",
    "id",
    "parentId",
    "timestamp",
    "message",
    "content",
    "text",
    "data",
    "mimeType",
    "thinking",
    "redacted",
    "arguments",
    "name",
    "summary",
    "tokensBefore",
    "firstKeptEntryId",
    "retainedTail",
    "systemMessage",
    "sections",
    "toolsAdded",
    "usage",
    "cost",
    "input",
    "label",
    "targetId",
    "replacement",
    "customType",
    "display",
    "details",
    "fromId",
    "version",
    "cwd",
]
_TAGS = sorted(m.EntryType.ALL | m.Role.ALL | m.BlockType.ALL | {"session", "future"})
_text = st.text(
    st.characters(exclude_categories=())
    | st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
    max_size=8,
)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text
    | st.sampled_from(_TAGS)
)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    # Known keys most of the time, so that "type"/"role" meet the tag values among the scalars.
    keys = st.sampled_from(_KEYS) | _text
    return st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=5)


_json = st.recursive(_scalars, _containers, max_leaves=20)
# Entry-shaped objects: known keys with random values, then a (mostly known) type.
_entries = st.builds(
    lambda d, t: {**d, "type": t},
    st.dictionaries(st.sampled_from(_KEYS), _json, max_size=6),
    st.sampled_from(_TAGS),
)


def _same_as_js(parsed: Any, original: Any) -> bool:
    """Is ``parsed`` (json.loads of our output) what JSON.parse(JSON.stringify(original)) gives?

    Floats may come back as ints (JavaScript writes ``1e16`` as ``10000000000000000``) and a
    surrogate pair stored as two code points becomes one character.
    """
    if type(original) is float:
        return type(parsed) in (int, float) and float(parsed) == original
    if isinstance(original, str):
        joined = original.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        return isinstance(parsed, str) and parsed == joined
    if isinstance(original, list):
        return (
            isinstance(parsed, list)
            and len(parsed) == len(original)
            and all(_same_as_js(p, o) for p, o in zip(parsed, original, strict=True))
        )
    if isinstance(original, dict):
        if not isinstance(parsed, dict) or len(parsed) != len(original):
            return False
        return all(
            _same_as_js(pk, ok) and _same_as_js(pv, ov)
            for (pk, pv), (ok, ov) in zip(parsed.items(), original.items(), strict=True)
        )
    same: bool = type(parsed) is type(original) and parsed == original
    return same


def _check_random_value(raw: Any) -> None:
    entry = m.parse_entry(raw)
    assert m.to_raw(entry) == raw
    if isinstance(entry, m.UnknownEntry):
        _ = entry.error  # computing the error text must not raise either
    message = m.parse_message(raw.get("message") if isinstance(raw, dict) else raw)
    assert m.to_raw(message) == (raw.get("message") if isinstance(raw, dict) else raw)
    m.message_text(message)
    m.is_user_or_assistant_with_content(message)
    header = m.parse_header(raw)
    if header is not None:
        assert m.to_raw(header) == raw
    line = stringify.dump_json_line(raw)
    assert line.endswith(b"\n") and b"\n" not in line[:-1]
    assert _same_as_js(json.loads(line), raw)
    if isinstance(raw, dict):
        reordered = stringify.order_entry_keys(raw)
        assert reordered == raw
        assert _same_as_js(json.loads(stringify.dump_entry(raw)), reordered)


@settings(max_examples=100, deadline=None)
@given(_entries | _json)
def test_random_values_never_raise_and_round_trip(raw: Any) -> None:
    _check_random_value(raw)


@pytest.mark.slow
@settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_entries | _json)
def test_random_values_never_raise_and_round_trip_long(raw: Any) -> None:
    _check_random_value(raw)


@settings(max_examples=100, deadline=None)
@given(
    st.fixed_dictionaries(
        {"type": st.just("message"), "id": st.text(max_size=8), "timestamp": st.just(TS)},
        optional={"parentId": st.none() | st.text(max_size=8)},
    ),
    st.sampled_from(sorted(m.Role.ALL)),
    st.none() | _text | st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": _text})),
)
def test_random_well_formed_messages_are_known(
    base: dict[str, Any], role: str, content: Any
) -> None:
    raw = {**base, "message": {"role": role, "content": content, "timestamp": 1}}
    entry = m.parse_entry(raw)
    assert isinstance(entry, m.MessageEntry)
    assert not isinstance(entry.message, m.UnknownMessage)
    assert m.to_raw(entry) == raw
    assert m.message_text(entry.message) == (
        content if isinstance(content, str) else " ".join(b["text"] for b in content or [])
    )


def test_fixture_directory_is_present() -> None:
    # Guard: an empty glob would make the parametrised fixture test vacuous.
    assert len(FIXTURE_FILES) >= 50
    assert {p.relative_to(FIXTURES).parts[0] for p in FIXTURE_FILES} == {
        "pi-legacy",
        "pi-written",
        "pi-written-1.6.0",
    }
