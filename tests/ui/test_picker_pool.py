"""A cold store parsed in a process pool while the app runs: the pool starts from a fork server
(the app has threads) and its resource tracker gets a real stderr (Textual captures the Python
one), so the listing arrives instead of failing with "bad value(s) in fds_to_keep"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pitui.core import pools
from pitui.core.store import Store
from pitui.ui.catalog import StoreCatalog
from tests.conftest import FIXTURES
from tests.ui.picker_kit import fake_app, picker, settle, wait_for


async def test_cold_store_parsed_in_a_pool_under_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pools, "POOL_MIN_BYTES", 0)
    agent = tmp_path / "agent"
    shutil.copytree(FIXTURES / "pi-written" / "agent", agent)
    expected = len(list((agent / "sessions").glob("*/*.jsonl")))
    catalog = StoreCatalog(Store(cwd="/", agent=agent, workers=2, use_index=False))
    app = fake_app(catalog, cwd="/", scope="all")
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: picker(app).state.visible.loaded, timeout=60, what="the load")
        await settle(pilot)
        assert len(picker(app).listed) == expected
        assert picker(app).status_text is None  # no load error shown
