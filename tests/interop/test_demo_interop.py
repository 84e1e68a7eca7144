"""The demo store, read by pi 0.73.1's own SessionManager (the oracle): every file opens without
a rewrite, and pi agrees with pitui on the tree, the leaf, labels, names, context and listing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pitui.core.context import build_session_context, to_llm_messages
from pitui.core.session import Session
from pitui.core.store import Store
from pitui.demo import DemoStore, write_demo_store
from tests.interop.pi_oracle import PiOracle

BASE = 1_741_790_000.0


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoStore:
    return write_demo_store(tmp_path_factory.mktemp("demo") / "agent", BASE)


@pytest.fixture(scope="module")
def files(demo: DemoStore) -> list[Path]:
    return sorted((demo.agent_dir / "sessions").glob("*/*.jsonl"))


@pytest.fixture(scope="module")
def reports(pi_oracle: PiOracle, files: list[Path]) -> list[dict[str, Any]]:
    return pi_oracle.report(files)


def ours(path: Path) -> dict[str, Any]:
    with Session.open(path, final=True) as session:
        context = build_session_context(session)
        roles = [m.get("role") for m in context.messages]
        return {
            "sessionId": session.id,
            "cwd": session.cwd,
            "name": session.name,
            "header": session.header,
            "leafId": session.leaf_id,
            "branchIds": [m.uid for m in session.branch()],
            "rootIds": [m.uid for m in session.roots],
            "entryCount": len(session.entries),
            "labels": dict(session.labels),
            "labelTimestamps": dict(session.label_times),
            "treePreorder": [[m.uid, depth] for m, depth in session.iter_preorder()],
            "roles": roles,
            "llmRoles": [m.get("role") for m in to_llm_messages(context.messages)],
            "model": context.model.to_json() if context.model else None,
            "thinkingLevel": context.thinking_level,
        }


def test_pi_reads_every_demo_file_as_pitui_does(
    files: list[Path], reports: list[dict[str, Any]]
) -> None:
    assert len(reports) == len(files) >= 25
    for path, pi in zip(files, reports, strict=True):
        assert "error" not in pi, (path.name, pi.get("error"))
        assert pi["openRewrote"] is False, path.name
        assert pi["pathCycle"] is False, path.name
        mine = ours(path)
        for key in (
            "sessionId", "cwd", "name", "header", "leafId", "branchIds", "rootIds",
            "entryCount", "labels", "labelTimestamps", "treePreorder",
        ):  # fmt: skip
            assert pi[key] == mine[key], (path.name, key)
        assert pi["context"]["roles"] == mine["roles"], path.name
        assert pi["context"]["model"] == mine["model"], path.name
        assert pi["context"]["thinkingLevel"] == mine["thinkingLevel"], path.name
        assert pi["llm"]["roles"] == mine["llmRoles"], path.name


def test_the_demo_exercises_what_pi_sees(reports: list[dict[str, Any]]) -> None:
    counts: dict[str, int] = {}
    for pi in reports:
        for kind, count in pi["entryTypeCounts"].items():
            counts[kind] = counts.get(kind, 0) + count
    for kind in (
        "message/user", "message/assistant", "message/toolResult", "message/bashExecution",
        "model_change", "thinking_level_change", "compaction", "branch_summary", "custom",
        "custom_message", "label", "session_info",
    ):  # fmt: skip
        assert counts.get(kind), kind
    assert sum(1 for pi in reports if pi["name"]) >= 5
    assert max(len(pi["labels"]) for pi in reports) >= 3
    assert any(pi["context"]["roles"][0] == "compactionSummary" for pi in reports)


@pytest.mark.parametrize("scope", ["current", "all"])
def test_pi_lists_the_demo_like_pitui(pi_oracle: PiOracle, demo: DemoStore, scope: str) -> None:
    listed = pi_oracle.list_sessions(demo.agent_dir, demo.cwd if scope == "current" else None)
    with Store(agent=demo.agent_dir, cwd=demo.cwd, use_index=False) as store:
        mine = store.load("current" if scope == "current" else "all")
    assert len(listed) == len(mine) >= 8

    def key(path: str) -> str:
        return os.path.realpath(path)

    pi_by_path = {key(r["path"]): r for r in listed}
    for info in mine:
        pi = pi_by_path[key(info.path)]
        assert pi["id"] == info.id
        assert pi["cwd"] == info.cwd
        assert pi["name"] == info.name
        assert pi["parentSessionPath"] == info.parent_session_path
        assert pi["messageCount"] == info.message_count
        assert pi["modified"] == info.modified_iso
        assert pi["firstMessage"] == info.first_message
    # same order: newest first (no two demo sessions share a modification time)
    assert [key(r["path"]) for r in listed] == [key(info.path) for info in mine]
