"""No screen ever draws a character that could act on a terminal.

Every SVG snapshot holds exactly the characters the app sent to the screen. Session text is full
of escape sequences, bidi controls and lone surrogates (the hostile fixtures); if any widget drew
one as it is, it would be in its snapshot. This test looks through all of them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SNAPSHOTS = sorted((Path(__file__).parent / "__snapshots__").glob("*/*.svg"))
# C0 controls but tab and line feed (the SVG's own layout), DEL, C1 controls, bidi controls
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def test_there_are_snapshots() -> None:
    assert len(SNAPSHOTS) > 40


@pytest.mark.parametrize("svg", SNAPSHOTS, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_snapshot_holds_no_terminal_control(svg: Path) -> None:
    text = svg.read_bytes().decode("utf-8")  # a lone surrogate would not even decode
    found = UNSAFE.search(text)
    assert found is None, f"{found.group()!r} drawn at offset {found.start()}"
