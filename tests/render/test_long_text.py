"""A very long message is drawn in time linear in its size (issue 24.11: a 50 MB message made the
HTML export run for minutes and the Markdown one for seconds)."""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from pitui.export.markdown import _escape_line
from pitui.render.parts import _RUN_ROWS, OutputBlock


@contextmanager
def hang_guard(seconds: int) -> Iterator[None]:
    """Fail instead of hanging (a guard against a hang, not a speed assertion)."""

    def expired(signum: int, frame: object) -> None:
        raise AssertionError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_one_long_line_goes_out_in_bounded_segments() -> None:
    # Rich splits a segment into lines with one str.partition per row, each copying the rest:
    # a segment of n rows costs n², so no segment may carry more than _RUN_ROWS rows.
    console = Console(width=80, color_system=None)
    text = "word " * 200_000  # one line of 1 MB: 12,500 rows at 80 columns
    segments = list(console.render(OutputBlock(text), console.options))
    assert max(segment.text.count("\n") for segment in segments) <= _RUN_ROWS
    rows = "".join(segment.text for segment in segments).split("\n")
    assert "".join(rows) == text


def _escape_line_reference(line: str) -> str:
    """The rule, one character at a time: ``<`` that may open a tag becomes ``&lt;`` outside
    code spans (a backtick run up to the next run of the same size), backslash escapes kept."""
    out: list[str] = []
    i, n = 0, len(line)
    while i < n:
        if line[i] == "\\" and i + 1 < n:
            out.append(line[i : i + 2])
            i += 2
        elif line[i] == "`":
            run = re.match(r"`+", line[i:])
            assert run is not None
            size = len(run.group())
            close = next(
                (m for m in re.finditer(r"`+", line[i + size :]) if len(m.group()) == size), None
            )
            end = i + size + close.end() if close is not None else i + size
            out.append(line[i:end])
            i = end
        elif line[i] == "<" and re.match(r"[A-Za-z/!?]", line[i + 1 : i + 2]):
            out.append("&lt;")
            i += 1
        else:
            out.append(line[i])
            i += 1
    return "".join(out)


@settings(max_examples=500)
@given(st.text(alphabet=st.sampled_from(list("`<\\aZ/!? x")), max_size=60))
def test_escaping_a_line_follows_the_rule(line: str) -> None:
    assert _escape_line(line) == _escape_line_reference(line)


def test_escaping_is_linear_on_unmatched_backtick_runs() -> None:
    # Runs of 1, 2, 3, … backticks never closed: searching from each to the end of the line was
    # quadratic (minutes for this line); bisecting the runs of each size is linear.
    line = "".join("`" * size + " <b> " for size in range(1, 2_500)) + "x" * 1_000_000
    with hang_guard(20):
        escaped = _escape_line(line)
    assert escaped.count("&lt;") == 2_499
