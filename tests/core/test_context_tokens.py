"""estimate_context_tokens: the size of a context as the session view's context pane shows it."""

from __future__ import annotations

from pitui.core.context import build_session_context, estimate_context_tokens
from pitui.core.session import Session
from tests.core.sessiondata import assistant, entry, jsonl, user


def test_context_token_estimate_ignores_replies_older_than_a_compaction() -> None:
    session = Session.from_bytes(
        jsonl(
            user("u1", None, "x" * 400, t=1),
            assistant("a1", "u1", "y", t=2, usage={"input": 50_000, "output": 10,
                      "cacheRead": 0, "cacheWrite": 0, "totalTokens": 50_010, "cost": {}}),
            entry("compaction", "c1", "a1", t=3, summary="s" * 80, firstKeptEntryId="a1",
                  tokensBefore=50_010),
            user("u2", "c1", "z" * 40, t=4),
        )
    )  # fmt: skip
    context = build_session_context(session, "u2")
    estimate = estimate_context_tokens(session, context.sources)
    assert 0 < estimate < 1_000  # not the 50k measured before compacting
    after = Session.from_bytes(
        jsonl(
            user("u1", None, "x", t=1),
            assistant("a1", "u1", "y", t=2, usage={"input": 900, "output": 100,
                      "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1000, "cost": {}}),
            user("u2", "a1", "z" * 400, t=3),
        )
    )  # fmt: skip
    sources = build_session_context(after, "u2").sources
    assert 1_000 < estimate_context_tokens(after, sources) < 1_300
