"""F3 (doctor) and F2 (stats) from the picker and the session view: they check the right file
and count the sessions listed now, in a worker, and close with Esc."""

from __future__ import annotations

from pathlib import Path

from pitui.core.doctor import diagnose_file, report_lines
from pitui.core.paths import shorten_home
from pitui.core.stats import collect_stats
from pitui.ui.screens.doctor import DoctorScreen
from pitui.ui.screens.picker import PickerScreen
from pitui.ui.screens.stats import StatsScreen
from pitui.ui.widgets.stats_panel import StatsPanel
from tests.core.sessiondata import assistant, user
from tests.ui.picker_kit import picker, settle, store_app, wait_for, write_session

CWD = "/home/ana/code/webapp"
SIZE = (120, 36)


def store(home: Path) -> tuple[Path, list[Path]]:
    agent = home / ".pi" / "agent"
    files = [
        write_session(agent, CWD, "0195aaaa-0000-7000-8000-00000000000a",
                      [user("a1", None, "dark mode toggle", t=10), assistant("a2", "a1", t=20)],
                      name="a.jsonl"),
        write_session(agent, CWD, "0195aaaa-0000-7000-8000-00000000000b",
                      [user("b1", None, "login bug", t=30), assistant("b2", "b1", t=40),
                       b'{"type":"message","id":"b3","parentId":"b2",'],  # a cut line
                      name="b.jsonl"),
        write_session(agent, "/home/ana/code/api", "0195aaaa-0000-7000-8000-00000000000c",
                      [user("c1", None, "paginate users", t=50), assistant("c2", "c1", t=60)],
                      name="c.jsonl"),
    ]  # fmt: skip
    return agent, files


async def test_doctor_checks_the_selected_session(home: Path) -> None:
    agent, files = store(home)
    app = store_app(agent, CWD)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = picker(app)
        screen.session_list.selected = [item.path for item in screen.listed].index(str(files[1]))
        await pilot.press("f3")
        await wait_for(pilot, lambda: isinstance(app.screen, DoctorScreen) and app.screen.lines
                       is not None, what="the report")  # fmt: skip
        doctor = app.screen
        assert isinstance(doctor, DoctorScreen) and doctor.path == str(files[1])
        expected = report_lines(diagnose_file(files[1]))
        expected[0] = expected[0].replace(str(files[1]), shorten_home(str(files[1])))
        assert doctor.lines == expected
        assert "error" in doctor.lines[0] and any("line 4" in line for line in doctor.lines)
        await pilot.press("ctrl+y")
        assert app.clipboard == "\n".join(expected)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, PickerScreen)
        assert files[1].read_bytes().endswith(b'"parentId":"b2",\n')  # read-only


async def test_stats_count_what_is_listed_now(home: Path) -> None:
    agent, files = store(home)
    app = store_app(agent, CWD)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)

        async def stats() -> StatsPanel:
            await pilot.press("f2")
            await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen)
                           and app.screen.query_one(StatsPanel).report is not None,
                           what="the statistics")  # fmt: skip
            return app.screen.query_one(StatsPanel)

        panel = await stats()  # this folder: a and b
        assert panel.report == collect_stats([str(files[0]), str(files[1])], by="model")
        assert panel.report is not None and panel.report.totals.sessions == 2
        await pilot.press("escape")
        await pilot.press("tab")  # all folders
        await settle(pilot)
        panel = await stats()
        assert panel.report is not None and panel.report.totals.sessions == 3
        await pilot.press("escape")
        await pilot.press(*"paginate")
        await settle(pilot)
        panel = await stats()
        assert panel.report == collect_stats([str(files[2])], by="model")
        title = str(app.screen.query_one("#dialog-title").visual)  # type: ignore[attr-defined]
        assert "1 session of all folders matching paginate" in title


async def test_stats_with_nothing_listed_says_so(home: Path) -> None:
    app = store_app(home / ".pi" / "agent", CWD)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, PickerScreen)
        assert picker(app).status_text == "No sessions listed: nothing to count"
