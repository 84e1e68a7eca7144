"""Every fixture session read by pitui agrees with what pi's own library reported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pitui.core.context import build_context_entries, build_session_context, to_llm_messages
from pitui.core.session import Session
from tests.conftest import CORPORA, FIXTURES, fixture_sessions, load_expected

CASES = [
    pytest.param(path, record, id=f"{corpus}:{record['scenario']}")
    for corpus in CORPORA
    for path, record in fixture_sessions(corpus)
]


def _type_counts(session: Session) -> dict[str, int]:
    counts: dict[str, int] = {}
    for meta in session.entries:
        key = f"message/{meta.role}" if meta.type == "message" else meta.type
        counts[key] = counts.get(key, 0) + 1
    return counts


def _model(ctx_model: Any) -> Any:
    return None if ctx_model is None else ctx_model.to_json()


@pytest.mark.parametrize(("path", "expected"), CASES)
def test_session_matches_pi(path: Path, expected: dict[str, Any]) -> None:
    session = Session.open(path, final=True)
    assert session.id == expected["sessionId"]
    assert session.cwd == expected["cwd"]
    assert session.name == expected["name"]
    assert session.leaf_id == expected["leafId"]
    assert [m.uid for m in session.roots] == expected["rootIds"]
    assert [m.uid for m in session.branch()] == expected["branchIds"]
    assert len(session.entries) == expected["entryCount"]
    assert _type_counts(session) == expected["entryTypeCounts"]
    assert session.labels == expected["labels"]
    assert session.label_times == expected["labelTimestamps"]
    assert [[m.uid, d] for m, d in session.iter_preorder()] == expected["treePreorder"]
    context = build_session_context(session)
    assert [m.get("role") for m in context.messages] == expected["context"]["roles"]
    assert _model(context.model) == expected["context"]["model"]
    assert context.thinking_level == expected["context"]["thinkingLevel"]
    assert [m.get("role") for m in to_llm_messages(context.messages)] == expected["llm"]["roles"]
    if "contextEntryIds" in expected:
        assert [m.uid for m in build_context_entries(session)] == expected["contextEntryIds"]
    if "projection" in expected:
        counts: dict[str, int] = {}
        for source in context.sources:
            counts[source] = counts.get(source, 0) + 1
        got = [[m.uid, counts.get(m.uid, 0)] for m in build_context_entries(session)]
        assert got == expected["projection"]


LEGACY = load_expected("pi-legacy")


@pytest.mark.parametrize("name", sorted(LEGACY["files"]))
def test_legacy_session_matches_pi(name: str) -> None:
    expected = LEGACY["files"][name]
    session = Session.open(FIXTURES / "pi-legacy" / name, final=True)
    assert session.original_version == 1
    assert session.header == expected["header"]
    assert session.cwd == expected["cwd"]
    assert session.name == expected["name"]
    assert len(session.entries) == expected["entryCount"]
    assert _type_counts(session) == expected["entryTypeCounts"]
    assert len(session.roots) == expected["rootCount"]
    assert len(session.branch()) == expected["branchLength"]
    context = build_session_context(session)
    assert [m.get("role") for m in context.messages] == expected["context"]["roles"]
    assert _model(context.model) == expected["context"]["model"]
    assert context.thinking_level == expected["context"]["thinkingLevel"]
    # migration built one chain: the leaf's branch holds every entry
    assert len(session.branch()) == len(session.entries)
    assert all(m.id is not None and len(m.id) == 8 for m in session.entries)
