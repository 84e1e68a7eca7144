"""The session view at 160×45 shows text on every row of a deep tree (issue 21 §1)."""

from __future__ import annotations

from pathlib import Path

from pitui.core.treeview import ROW_TEXT_COLUMNS
from tests.ui.sessionview import ScreenApp, copy_fixture, opened


async def test_every_row_of_long_5000_shows_its_text(tmp_path: Path) -> None:
    path = copy_fixture("long-5000", tmp_path)
    app = ScreenApp(path)
    async with app.run_test(size=(160, 45)) as pilot:
        await opened(app, pilot)
        tree = app.branch_tree
        width = tree.scrollable_content_region.width
        assert width >= 70  # (the pane the rows are drawn in)
        model = tree.model
        checked = 0
        for start in (0, model.count // 2, model.count - tree.size.height):
            tree.scroll_to(y=max(0, start), animate=False)
            await pilot.pause()
            top = round(tree.scroll_offset.y)
            for y in range(tree.size.height):
                row = model.row(top + y, width)
                text = "".join(part.text for part in row.parts)
                shown = min(len(text), ROW_TEXT_COLUMNS - 1)  # (the last column may be "…")
                line = tree.render_line(y).text
                assert text[:shown] in line, (line, text)
                checked += 1
        assert checked == 3 * tree.size.height
