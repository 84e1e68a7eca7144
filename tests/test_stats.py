"""Statistics: totals against sums computed here from the raw JSON, and forks counted once."""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from datetime import UTC, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest
from textual.app import App

from pitui.cli import main
from pitui.core import edit
from pitui.core.session import Session
from pitui.core.stats import StatsBuilder, StatsReport, collect_stats, scan_file
from pitui.core.stringify import dump_entry, dump_header
from pitui.ui.app import stylesheets
from pitui.ui.screens.stats import StatsScreen, StatsSource
from pitui.ui.widgets.stats_panel import StatsPanel, spend_chart
from tests.conftest import CORPORA, FIXTURES
from tests.core.sessiondata import HEADER, assistant, entry, jsonl, user

USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite")


# ------------------------------------------------------------------------- the independent sums


def _numbers(usage: Any) -> list[float] | None:
    """(input, output, cacheRead, cacheWrite, total, cost) of a usage object, as the spec says."""
    if not isinstance(usage, dict):
        return None

    def num(value: Any) -> float:
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0

    parts = [num(usage.get(key)) for key in USAGE_KEYS]
    total = usage.get("totalTokens")
    total_num = num(total) if isinstance(total, int | float) else sum(parts)
    cost = usage.get("cost")
    return [*parts, total_num, num(cost.get("total")) if isinstance(cost, dict) else 0.0]


def _usage_of(obj: dict[str, Any]) -> list[float] | None:
    if obj.get("type") == "message":
        message = obj.get("message") or {}
        if message.get("role") in ("assistant", "toolResult"):
            return _numbers(message.get("usage"))
        return None
    if obj.get("type") in ("compaction", "branch_summary", "usage"):
        return _numbers(obj.get("usage"))
    return None


def expected_sums(files: list[Path]) -> dict[str, Any]:
    """Read every line with json, oldest file first, each (id, timestamp, type) once."""
    loaded = []
    for path in files:
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        header = lines[0]
        loaded.append((header.get("timestamp", ""), str(path), header, lines[1:]))
    loaded.sort(key=lambda item: (item[0], item[1]))
    seen: set[tuple[str, str, str]] = set()
    messages = 0
    tokens = [0.0] * 5
    cost = 0.0
    by_day: dict[str, float] = defaultdict(float)
    by_project: dict[str, float] = defaultdict(float)
    project_messages: dict[str, int] = defaultdict(int)
    for _, _, header, entries in loaded:
        for obj in entries:
            key = (obj["id"], obj["timestamp"], obj["type"])
            if key in seen:
                continue
            seen.add(key)
            if obj["type"] == "message":
                messages += 1
                project_messages[header["cwd"]] += 1
            usage = _usage_of(obj)
            if usage is None:
                continue
            for i in range(5):
                tokens[i] += usage[i]
            cost += usage[5]
            by_day[obj["timestamp"][:10]] += usage[5]  # UTC day of a "…Z" timestamp
            by_project[header["cwd"]] += usage[5]
    return {
        "messages": messages,
        "tokens": tokens,
        "cost": cost,
        "by_day": dict(by_day),
        "by_project": dict(by_project),
        "project_messages": dict(project_messages),
    }


def corpus_files(corpus: str) -> list[Path]:
    return sorted((FIXTURES / corpus / "agent" / "sessions").glob("*/*.jsonl"))


# ------------------------------------------------------------------------------------- fixtures


@pytest.mark.parametrize("corpus", CORPORA)
def test_totals_match_hand_computed_sums(corpus: str) -> None:
    files = corpus_files(corpus)
    want = expected_sums(files)
    report = collect_stats([str(p) for p in files], workers=1)
    totals = report.totals
    assert totals.sessions == len(files)
    assert report.skipped == []
    assert totals.messages == want["messages"]
    got_tokens = [
        totals.input_tokens,
        totals.output_tokens,
        totals.cache_read_tokens,
        totals.cache_write_tokens,
        totals.total_tokens,
    ]
    assert got_tokens == pytest.approx(want["tokens"])
    assert totals.cost == pytest.approx(want["cost"])
    assert totals.messages > 1000 and totals.cost > 0  # the corpus has a long session


@pytest.mark.parametrize("corpus", CORPORA)
def test_groups_by_day_and_project_match(corpus: str) -> None:
    files = [str(p) for p in corpus_files(corpus)]
    want = expected_sums(corpus_files(corpus))
    by_day = collect_stats(files, by="day", tz=UTC, workers=1)
    spent = {key: t.cost for key, t in by_day.groups if t.cost}
    assert spent == pytest.approx({k: v for k, v in want["by_day"].items() if v})
    days = [key for key, _ in by_day.groups]
    assert days == sorted(days) and set(want["by_day"]) <= set(days)
    by_project = collect_stats(files, by="project", workers=1)
    got = {key: t.cost for key, t in by_project.groups if t.cost}
    assert got == pytest.approx({k: v for k, v in want["by_project"].items() if v})
    messages = {key: t.messages for key, t in by_project.groups if t.messages}
    assert messages == want["project_messages"]
    # every session counts in its own folder, whatever it holds
    sessions: dict[str, int] = defaultdict(int)
    for path in files:
        with open(path, encoding="utf-8") as handle:
            sessions[json.loads(handle.readline())["cwd"]] += 1
    assert {key: t.sessions for key, t in by_project.groups} == dict(sessions)


@pytest.mark.parametrize("corpus", CORPORA)
def test_cli_stats_json(
    corpus: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(FIXTURES / corpus / "agent"))
    want = expected_sums(corpus_files(corpus))
    assert main(["stats", "--all", "--json", "--by", "model"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["totals"]["messages"] == want["messages"]
    assert data["totals"]["cost"] == pytest.approx(want["cost"])
    assert sum(g["cost"] for g in data["groups"]) == pytest.approx(want["cost"])
    assert sum(g["messages"] for g in data["groups"]) == want["messages"]
    assert main(["stats", "--all"]) == 0
    text = capsys.readouterr().out
    assert "total" in text and f"{want['messages']:,}" in text


def test_cli_stats_current_folder_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = FIXTURES / "pi-written" / "agent"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    folder = agent / "sessions" / "--srv-data-etl-pipeline--"
    want = expected_sums(sorted(folder.glob("*.jsonl")))
    assert main(["stats", "--json", "--cwd", "/srv/data/etl-pipeline", "--no-index"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["totals"]["sessions"] == len(list(folder.glob("*.jsonl")))
    assert data["totals"]["messages"] == want["messages"]
    assert data["totals"]["cost"] == pytest.approx(want["cost"])


# ----------------------------------------------------------------------------- forks, once


def _usage(tokens: int, cost: float) -> dict[str, Any]:
    return {
        "input": tokens, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": tokens,
        "cost": {"input": cost, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost},
    }  # fmt: skip


def _write(path: Path, header: dict[str, Any], entries: list[dict[str, Any]]) -> str:
    path.write_bytes(dump_header(header) + b"".join(dump_entry(e) for e in entries))
    return str(path)


def _parent_entries() -> list[dict[str, Any]]:
    return [
        user("u1", None, "first", t=1),
        assistant("a1", "u1", "one", t=2, usage=_usage(100, 1.0)),
        user("u2", "a1", "second", t=3),
        assistant("a2", "u2", "two", t=4, usage=_usage(200, 2.0)),
        entry("label", "l1", "a2", t=5, targetId="u1", label="start"),
    ]


def test_fork_from_copy_is_counted_once(tmp_path: Path) -> None:
    parent = _parent_entries()
    # forkFrom: every entry copied verbatim, then the fork goes on in another folder
    fork = [
        *(dict(e) for e in parent),
        user("u3", "a2", "third", t=100),
        assistant("a3", "u3", "three", t=101, usage=_usage(400, 4.0)),
    ]
    # the fork's file name sorts first: credit still goes to the older (parent) session
    parent_path = _write(
        tmp_path / "b-parent.jsonl",
        {**HEADER, "id": "p", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/a"},
        parent,
    )
    fork_path = _write(
        tmp_path / "a-fork.jsonl",
        {**HEADER, "id": "f", "timestamp": "2025-01-02T00:00:00.000Z", "cwd": "/b",
         "parentSession": parent_path},
        fork,
    )  # fmt: skip
    report = collect_stats([fork_path, parent_path], by="project", workers=1)
    assert report.totals.sessions == 2
    assert report.totals.messages == 6  # 4 in the parent, 2 new in the fork
    assert report.totals.total_tokens == 700
    assert report.totals.cost == pytest.approx(7.0)
    assert report.replayed == 4  # the parent's messages, seen again in the fork
    groups = dict(report.groups)
    assert groups["/a"].messages == 4 and groups["/a"].cost == pytest.approx(3.0)
    assert groups["/b"].messages == 2 and groups["/b"].cost == pytest.approx(4.0)
    assert groups["/a"].sessions == groups["/b"].sessions == 1
    # each file alone counts everything it holds
    alone = collect_stats([fork_path], workers=1)
    assert alone.totals.messages == 6 and alone.totals.cost == pytest.approx(7.0)


def test_extracted_branch_is_counted_once(tmp_path: Path) -> None:
    source = tmp_path / "source.jsonl"
    entries = [
        *_parent_entries(),
        # a second branch from u1
        assistant("b1", "u1", "other", t=6, usage=_usage(50, 0.5)),
    ]
    source.write_bytes(jsonl(*entries))
    with Session.open(str(source)) as session:
        leaf = session.by_id["a2"]
        extracted = edit.extract_branch(session, leaf, str(tmp_path / "fork.jsonl"))
    assert any(e["type"] == "label" for e in extracted.entries)  # labels get fresh ids
    report = collect_stats([str(source), extracted.path], workers=1)
    assert report.totals.messages == 5
    assert report.totals.cost == pytest.approx(3.5)
    assert report.totals.sessions == 2
    # the re-chained path entries were recognised despite their new parents
    assert report.replayed == 4


def test_same_id_different_time_is_a_different_entry(tmp_path: Path) -> None:
    one = tmp_path / "one.jsonl"
    two = tmp_path / "two.jsonl"
    one.write_bytes(jsonl(assistant("a1", None, t=1, usage=_usage(10, 0.1))))
    # an unrelated session that happened to draw the same 8-hex id
    two.write_bytes(jsonl(assistant("a1", None, t=2, usage=_usage(20, 0.2))))
    report = collect_stats([str(one), str(two)], workers=1)
    assert report.totals.messages == 2 and report.replayed == 0
    assert report.totals.cost == pytest.approx(0.3)


# --------------------------------------------------------------------------------- details


def test_models_partial_usage_and_summaries(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    partial = {"input": 7, "output": 3, "cost": {"total": 0.5}}  # no totalTokens, no cache
    path.write_bytes(
        jsonl(
            user("u0", None, t=1),  # before any model
            entry("model_change", "mc", "u0", t=2, provider="openai", modelId="gpt-5"),
            user("u1", "mc", t=3),
            assistant("a1", "u1", t=4, provider="anthropic", model="claude", usage=partial),
            entry(
                "compaction",
                "c1",
                "a1",
                t=5,
                summary="s",
                tokensBefore=9,
                firstKeptEntryId="a1",
                usage=_usage(30, 0.25),
            ),
            entry(
                "usage",
                "x1",
                "c1",
                t=6,
                kind="warm",
                provider="google",
                model="gem",
                usage=_usage(40, 0.125),
            ),
            entry("custom", "k1", "x1", t=7, customType="ext", data={}),
        )
    )
    report = collect_stats([str(path)], by="model", workers=1)
    groups = dict(report.groups)
    assert groups["(unknown)"].messages == 1
    assert groups["openai/gpt-5"].messages == 1  # the user message sent to gpt-5
    claude = groups["anthropic/claude"]
    # the assistant (partial usage: total = sum of parts) plus the compaction made after it
    assert claude.messages == 1
    assert claude.total_tokens == 10 + 30
    assert claude.cost == pytest.approx(0.75)
    assert groups["google/gem"].cost == pytest.approx(0.125)
    assert report.totals.messages == 3
    assert report.totals.cost == pytest.approx(0.875)
    assert report.groups[0][0] == "anthropic/claude"  # largest cost first


def test_daily_spend_and_sessions(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    next_day = {**assistant("a2", "a1", usage=_usage(1, 2.0)), "timestamp": "2025-01-02T08:00:00Z"}
    path.write_bytes(
        jsonl(user("u1", None, t=1), assistant("a1", "u1", t=2, usage=_usage(1, 1.0)), next_day)
    )
    builder = StatsBuilder(tz=UTC)
    builder.add(scan_file(str(path)))
    report = builder.report()
    assert [(day, t.cost, t.sessions) for day, t in report.daily] == [
        ("2025-01-01", 1.0, 1),
        ("2025-01-02", 2.0, 1),
    ]
    assert report.by is None and report.groups == []
    # the day is taken in the zone asked for
    west = StatsBuilder(tz=timezone(-timedelta(hours=1)))
    assert west.day_of("2025-01-02T00:30:00.000Z") == "2025-01-01"
    assert west.day_of("not a time") == "(unknown)"


def test_unreadable_files_are_reported_not_counted(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_bytes(jsonl(user("u1", None), assistant("a1", "u1")))
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(orjson.dumps({"hello": "world"}) + b"\n")
    missing = tmp_path / "missing.jsonl"
    report = collect_stats([str(good), str(bad), str(missing)], workers=1)
    assert report.totals.sessions == 1
    assert report.totals.messages == 2
    assert sorted(path for path, _ in report.skipped) == sorted([str(bad), str(missing)])
    assert all(reason for _, reason in report.skipped)
    data = report.to_json()
    assert data["totals"]["sessions"] == 1 and len(data["skipped"]) == 2


def test_pool_and_serial_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pitui.core.stats as stats

    files = [str(p) for p in corpus_files("pi-written")]
    serial = collect_stats(files, by="model", workers=1)
    monkeypatch.setattr(stats, "POOL_MIN_BYTES", 0)
    pooled = collect_stats(files, by="model", workers=2)
    assert pooled.to_json() == serial.to_json()


# ------------------------------------------------------------------------------- the panel


def test_spend_chart_draws_days_in_eighths() -> None:
    chart = spend_chart([("2025-01-01", 1.0), ("2025-01-03", 4.0), ("(unknown)", 9.0)], 40, 2)
    assert chart is not None
    assert (chart.drawn, chart.total) == (3, 3)
    # 1.0 of a 4.0 peak over 2 rows = 4 eighths; the empty day stays empty
    assert chart.lines() == [
        "  $4.00 ┤  █",
        "        │▄ █",
        "$0.0000 └───",
        "         2025-01-01 … 2025-01-03",
    ]


def test_spend_chart_keeps_the_last_days_that_fit() -> None:
    daily = [(f"2025-01-{day:02d}", float(day)) for day in range(1, 31)]
    chart = spend_chart(daily, 20, 3)
    assert chart is not None
    assert chart.total == 30 and chart.drawn == 20 - len("$0.0000") - 2  # the widest label
    assert chart.rows[0][1].endswith("█")  # the last (biggest) day is the last column
    assert chart.dates.strip().endswith("2025-01-30")
    tiny = spend_chart([("2025-01-01", 0.001), ("2025-01-02", 100.0)], 30, 4)
    assert tiny is not None and tiny.rows[-1][1] == "▁█"  # a small day is still visible
    assert spend_chart([], 30) is None
    assert spend_chart([("(unknown)", 1.0)], 30) is None


class StatsApp(App[None]):
    CSS_PATH = stylesheets()

    def __init__(self, source: StatsSource) -> None:
        super().__init__()
        self.source = source

    def on_mount(self) -> None:
        self.push_screen(StatsScreen(self.source, title="Usage"))


def panel_lines(app: App[None]) -> list[str]:
    panel = app.screen.query_one(StatsPanel)
    return [panel.render_line(y).text.rstrip() for y in range(panel.size.height)]


async def test_stats_screen_shows_the_report_and_closes() -> None:
    files = [str(p) for p in corpus_files("pi-written")]
    want = collect_stats(files, by="model", workers=1)

    def source(progress: Any, cancel: threading.Event) -> StatsReport:
        return collect_stats(files, by="model", progress=progress, cancel=cancel, workers=1)

    app = StatsApp(source)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        lines = panel_lines(app)
        assert lines[0] == (
            f"{want.totals.sessions} sessions · {want.totals.messages:,} messages · "
            f"{int(want.totals.total_tokens):,} tokens · ${want.totals.cost:,.2f}"
        )
        assert "Spend per day" in lines
        chart_rows = [line for line in lines if "┤" in line or "│" in line]
        assert len(chart_rows) == 6 and any("█" in row for row in chart_rows)
        top_model = want.groups[0][0]
        assert any(line.startswith(top_model) for line in lines)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, StatsScreen)


async def test_stats_screen_progress_error_and_cancel() -> None:
    release = threading.Event()
    seen: list[threading.Event] = []

    def slow(progress: Any, cancel: threading.Event) -> StatsReport:
        seen.append(cancel)
        progress(3, 10)
        release.wait(10)
        raise OSError("disk on fire \x1b[2J")

    app = StatsApp(slow)
    async with app.run_test(size=(100, 40)) as pilot:
        for _ in range(50):
            await pilot.pause(0.02)
            if panel_lines(app)[:1] == ["Reading sessions… 3/10"]:
                break
        assert panel_lines(app)[0] == "Reading sessions… 3/10"
        release.set()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert panel_lines(app)[0] == "Could not compute the statistics: disk on fire ␛[2J"
        await pilot.press("escape")
        await pilot.pause()
        assert seen and seen[0].is_set()  # closing tells a running computation to stop
