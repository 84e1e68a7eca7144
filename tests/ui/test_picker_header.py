"""The picker header's values take the accent colour of the theme in use (pi: labels muted,
values accent), worked out once per theme, not on each of a load's redraws."""

from __future__ import annotations

import pytest
from textual.color import Color
from textual.widgets import Static

from pitui.ui.themes import PI_DARK, PI_LIGHT
from tests.ui.picker_kit import MINUTE, FakeCatalog, FakeItem, aged, fake_app, picker, settle


def value_colours(static: Static) -> set[Color | None]:
    visual = static.visual
    return {span.style.foreground for span in getattr(visual, "spans", [])}


async def test_the_values_follow_the_theme(monkeypatch: pytest.MonkeyPatch) -> None:
    app = fake_app(
        FakeCatalog(scopes={"current": [FakeItem("/s/a.jsonl", "a", "m", aged(MINUTE))]})
    )
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        modes = picker(app).query_one("#picker-modes", Static)
        assert value_colours(modes) == {Color.parse(str(PI_DARK.accent))}
        built = 0
        css_variables = app.get_css_variables

        def counted() -> dict[str, str]:
            nonlocal built
            built += 1
            return css_variables()

        monkeypatch.setattr(app, "get_css_variables", counted)
        for _ in range(5):
            picker(app).render_header()  # (as each step of a load's progress does)
        assert built == 0
        app.theme = PI_LIGHT.name
        await settle(pilot)
        assert value_colours(modes) == {Color.parse(str(PI_LIGHT.accent))}
