"""``… (show all)`` can be used (issue 21 §3): in the picker's preview, alt+a or a click unfolds
what the renderers folded, alt+a folds it again, and another session starts folded."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitui.ui.app import PituiApp
from pitui.ui.widgets.preview import SessionPreview
from tests.core.sessiondata import assistant, chain, user
from tests.ui.picker_kit import picker, preview_loaded, settle, store_app, write_session

LONG = "\n".join(f"line {n}" for n in range(400))


@pytest.fixture(autouse=True)
def _home(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))


def preview_text(app: PituiApp) -> str:
    return app.screen.query_one(SessionPreview).text


async def test_alt_a_and_a_click_unfold_the_preview(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", str(tmp_path / "proj")
    long = write_session(agent, cwd, "long1", [
        user("u1", None, LONG, t=5), assistant("a1", "u1", "read it", t=6),
    ], name="long.jsonl")  # fmt: skip
    write_session(agent, cwd, "short1", chain(["short one", "ok"]), name="short.jsonl")
    app = store_app(agent, cwd)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert picker(app).selected_item.path == str(long)  # type: ignore[union-attr]
        await preview_loaded(pilot)
        folded = preview_text(app)
        assert "(show all)" in folded and "line 399" not in folded
        await pilot.press("alt+a")
        await settle(pilot)
        await preview_loaded(pilot)
        unfolded = preview_text(app)
        assert "line 399" in unfolded and "(show all)" not in unfolded
        await pilot.press("alt+a")  # again: folded
        await settle(pilot)
        assert "(show all)" in preview_text(app)
        await pilot.click(SessionPreview)
        await settle(pilot)
        assert "line 399" in preview_text(app)
        # another session, and back: folded again
        await pilot.press("down")
        await settle(pilot)
        await pilot.press("up")
        await settle(pilot)
        await preview_loaded(pilot)
        assert "(show all)" in preview_text(app)
        assert not app.screen.query_one(SessionPreview).expanded
