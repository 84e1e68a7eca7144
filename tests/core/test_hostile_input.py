"""Hostile input never raises out of the reader: a session comes back with problems listed."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitui.core.context import build_context_entries, build_session_context
from pitui.core.session import Session, SessionError
from tests.core.sessiondata import jsonl

IDS = st.sampled_from(["a", "b", "c", "d", "e", "dup"])
PARENTS = st.one_of(st.none(), IDS, st.just("missing"), st.integers(), st.just(None))
TYPES = st.sampled_from(
    ["message", "label", "compaction", "session_info", "model_change", "weird", "custom"]
)
JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def hostile_entry(draw: st.DrawFn) -> dict[str, Any]:
    obj: dict[str, Any] = {"type": draw(TYPES)}
    if draw(st.booleans()):
        obj["id"] = draw(st.one_of(IDS, JSONISH))
    if draw(st.booleans()):
        obj["parentId"] = draw(PARENTS)
    obj["timestamp"] = draw(
        st.one_of(st.just("2025-01-01T00:00:00.000Z"), st.text(max_size=8), JSONISH)
    )
    for key in draw(st.lists(st.sampled_from(
        ["message", "label", "targetId", "retainedTail", "firstKeptEntryId", "name", "summary"]
    ), max_size=3)):  # fmt: skip
        obj[key] = draw(JSONISH)
    if obj["type"] == "message" and draw(st.booleans()):
        obj["message"] = {
            "role": draw(st.sampled_from(["user", "assistant", "x"])),
            "content": draw(JSONISH),
        }
    return obj


def _damage(data: bytes, cut: int, junk: bytes) -> bytes:
    cut = cut % (len(data) + 1)
    return data[:cut] + junk + data[cut:]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entries=st.lists(hostile_entry(), max_size=12),
    cut=st.integers(min_value=0),
    junk=st.binary(max_size=20),
    final=st.booleans(),
)
def test_hostile_sessions_never_raise(
    entries: list[dict[str, Any]], cut: int, junk: bytes, final: bool
) -> None:
    lines = [json.dumps(e).encode() for e in entries]
    data = _damage(jsonl(*lines), cut, junk) if junk else jsonl(*lines)
    try:
        session = Session.from_bytes(data, final=final)
    except SessionError as exc:
        assert str(exc)  # the header itself was destroyed: a one-line reason, not a traceback
        return
    preorder = [m for m, _ in session.iter_preorder()]
    assert sorted(m.uid for m in preorder) == sorted(m.uid for m in session.entries)
    assert len({m.uid for m in session.entries}) == len(session.entries)
    for meta in session.entries:
        session.path_to(meta)
        build_context_entries(session, meta.uid)
    build_session_context(session)
    session.stats()
    ids_in_file = [e.get("id") for e in entries]
    if not junk and len(set(map(repr, ids_in_file))) < len(ids_in_file):
        assert session.problems, "duplicate or missing ids must be reported"


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=300), final=st.booleans())
def test_random_bytes_never_raise(data: bytes, final: bool) -> None:
    try:
        Session.from_bytes(jsonl() + data, final=final)
    except SessionError as exc:
        assert "\n" not in str(exc)
