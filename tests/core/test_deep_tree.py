"""Deep trees keep their text: a row's prefix is capped at the width it is drawn at (issue 21 §1).

In a long session with branches off branches every branch point above a row costs 3 columns of
gutters, and at the session view's tree width (78 columns at 160×45) most rows showed no text
at all. Drawn at a width, a prefix that does not fit keeps its innermost levels behind a marker
that says how deep the row is (``┊12 ``); one that fits is pi's, unchanged.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pitui.core.session import Session
from pitui.core.treeview import ROW_TEXT_COLUMNS, TreeView, prefix_cap
from tests.conftest import CORPORA, fixture_by_scenario, fixture_sessions

TREE_WIDTH = 78  # the tree pane of the session view at 160×45
GEN_STORE = Path(__file__).resolve().parents[3] / "shared" / "tools" / "gen_store.py"


def text_columns(view: TreeView, index: int, width: int) -> int:
    row = view.row(index, width)
    marks = 2 + (2 if row.active else 0) + (2 if row.fold_marker else 0)
    return width - marks - len(row.prefix)


def share_with_text(path: Path, width: int = TREE_WIDTH) -> float:
    with Session.open(str(path)) as session:
        view = TreeView(session)
        roomy = sum(text_columns(view, i, width) >= ROW_TEXT_COLUMNS for i in range(view.count))
        return roomy / view.count


@pytest.fixture(scope="module")
def branchy_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not GEN_STORE.exists():
        pytest.skip(f"{GEN_STORE} is not here")
    agent = tmp_path_factory.mktemp("branchy")
    subprocess.run(
        [sys.executable, str(GEN_STORE), str(agent), "--sessions", "1", "--entries", "1500",
         "--entries-sigma", "0", "--branch-rate", "0.15", "--seed", "3", "-q"],
        check=True,
    )  # fmt: skip
    return next((agent / "sessions").glob("*/*.jsonl"))


@pytest.mark.parametrize("corpus", CORPORA)
def test_long_5000_keeps_40_columns_of_text_on_almost_every_row(corpus: str) -> None:
    assert share_with_text(fixture_by_scenario(corpus, "long-5000")) >= 0.95


def test_a_branchy_generated_session_keeps_its_text(branchy_session: Path) -> None:
    assert share_with_text(branchy_session) >= 0.95


def test_a_capped_prefix_says_how_deep_the_row_is(branchy_session: Path) -> None:
    with Session.open(str(branchy_session)) as session:
        view = TreeView(session)
        deep = [i for i in range(view.count) if len(view.row(i).prefix) > prefix_cap(TREE_WIDTH)]
        assert deep, "the generated session should be deep"
        for index in deep:
            full, capped = view.row(index).prefix, view.row(index, TREE_WIDTH).prefix
            assert len(capped) <= prefix_cap(TREE_WIDTH)
            assert capped.startswith(f"┊{len(full) // 3} ")
            inner = capped.split(" ", 1)[1]
            assert full.endswith(inner)  # the innermost levels, connector included, as pi's


@pytest.mark.parametrize("corpus", CORPORA)
def test_rows_that_fit_are_drawn_exactly_as_pi_draws_them(corpus: str) -> None:
    for path, _record in fixture_sessions(corpus):
        with Session.open(str(path)) as session:
            view = TreeView(session)
            for index in range(view.count):
                pi_prefix = view.row(index).prefix
                if len(pi_prefix) <= prefix_cap(TREE_WIDTH):
                    assert view.row(index, TREE_WIDTH).prefix == pi_prefix
