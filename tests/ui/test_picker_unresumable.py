"""A file pi lists but cannot resume (a header without id, a line before the header) is listed,
marked, and Enter says why instead of handing it to pi (issue 20.5): pi 0.73.1 writes a fresh
header over such a file, pi 1.6.0 refuses it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui.launch import ResumeRequest
from pitui.ui.widgets.session_list import SessionList
from tests.core.sessiondata import HEADER, chain, jsonl
from tests.ui.picker_kit import (
    MINUTE,
    FakeCatalog,
    FakeItem,
    aged,
    fake_app,
    picker,
    record_statuses,
    settle,
    store_app,
    titles,
)

SIZE = (120, 30)


@pytest.mark.parametrize(
    ("problem", "mark", "why"),
    [
        ("no-id", "[header without id]", "its header has no id"),
        ("line-before-header", "[line before the header]", "a line comes before its header"),
    ],
)
async def test_enter_on_a_file_pi_cannot_resume_says_why(
    monkeypatch: pytest.MonkeyPatch, problem: str, mark: str, why: str
) -> None:
    item = FakeItem("/s/a.jsonl", "", "hello", aged(MINUTE), header_problem=problem)
    app = fake_app(FakeCatalog(scopes={"current": [item]}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert titles(app) == [f"{mark} hello"]
        statuses = record_statuses(app, monkeypatch)
        await pilot.press("enter")
        await settle(pilot)
        assert app.is_running and app.return_value is None  # pi was not started on it
        assert len(statuses) == 1 and statuses[0].startswith(f"Cannot resume this file: {why}")
        assert "f3: what the doctor finds, ctrl+t: its lines" in statuses[0]  # (as the hints)


async def test_a_header_without_id_from_the_store_is_listed_marked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from pitui.core.paths import session_dir_for

    cwd = str(tmp_path / "proj")
    os.mkdir(cwd)  # (a folder that is gone asks first)
    folder = session_dir_for(cwd, Path(os.environ["PI_CODING_AGENT_DIR"]))
    folder.mkdir(parents=True)
    header = {k: v for k, v in {**HEADER, "cwd": cwd}.items() if k != "id"}
    (folder / "no-id.jsonl").write_bytes(jsonl(*chain(["no id here"]), header=header))
    (folder / "fine.jsonl").write_bytes(
        jsonl(*chain(["a fine one"]), header={**HEADER, "cwd": cwd})
    )
    for name in ("no-id.jsonl", "fine.jsonl"):
        os.utime(folder / name, (1e9, 1e9))  # (quiet: no busy-file question)
    app = store_app(Path(os.environ["PI_CODING_AGENT_DIR"]), cwd)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert sorted(titles(app)) == ["[header without id] no id here", "a fine one"]
        rows = picker(app).query_one(SessionList)
        rows.selected = [row.title for row in rows.rows].index("a fine one")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.return_value, ResumeRequest)  # a fine one still resumes
