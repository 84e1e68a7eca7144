"""pitui.core.js against JavaScript itself: node answers a table of edge cases, pitui must agree.

Needs only ``node`` (not pi's package). Without it the test is skipped;
``PITUI_REQUIRE_PI_ORACLE=1`` turns the skip into a failure, as in ``tests/interop``.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pitui.core import js
from tests.conftest import local_zone

ORACLE_SCRIPT = Path(__file__).with_name("js_oracle.mjs")
# A zone with DST, so that local-time parsing is tested away from UTC.
ZONE = "America/New_York"

_SPECIAL: dict[str, Any] = {
    "undefined": js.UNDEFINED,
    "NaN": math.nan,
    "Infinity": math.inf,
    "-Infinity": -math.inf,
}


def _wire(value: Any) -> Any:
    """A Python test value as JSON for the node script (markers for what JSON cannot hold)."""
    if value is js.UNDEFINED:
        return {"$": "undefined"}
    if isinstance(value, float) and not math.isfinite(value):
        return {"$": "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")}
    if isinstance(value, list):
        return [_wire(item) for item in value]
    if isinstance(value, dict):
        return {key: _wire(item) for key, item in value.items()}
    return value


def _unwire(value: Any) -> Any:
    if isinstance(value, dict) and list(value) == ["$"]:
        return _SPECIAL[value["$"]]
    return value


def _upper(text: str) -> str:
    return "".join(js.js_upper_char(char) for char in text)


def _slice_to(arg: list[Any]) -> str:
    return js.utf16_slice(arg[0], arg[1])


PITUI: dict[str, Callable[[Any], Any]] = {
    "string": js.js_string,
    "join": js.js_join,
    "truthy": js.js_truthy,
    "label": js.label_text,
    "number": js.js_to_number,
    "jsonNumber": js.json_number,
    "trim": js.js_trim,
    "length": js.utf16_len,
    "lower": js.js_lower,
    "upper": _upper,
    "sliceTo": _slice_to,
    "sessionName": js.normalize_session_name,
    "dateParse": js.parse_iso_ms,
    "dateOf": js.js_date_ms,
    "isoString": js.iso_from_ms,
}

U = js.UNDEFINED
NAN, INF = math.nan, math.inf
VALUES: list[Any] = [
    None, U, True, False, 0, -0.0, 0.0, 1, -1, 1.5, -2.25, 0.1, 1e21, 1e-7, 1.5e-7, 123456789.125,
    2**53, 2**53 + 1, 10**21, 1e300, 5e-324, NAN, INF, -INF, "", "0", "false", " ", "a",
    [], [None], [U, None], [1, [2, [3, None]]], ["a", "b"], [[]], {}, {"a": 1}, [{}],
]  # fmt: skip
STRINGS: list[str] = [
    "", "  \t\n x \r\n", "\ufeff x \ufeff",
    "\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000y",
    "\u200b z \u200b", "\x85 nel \x85", "a😀b", "😀", "\ud83d", "\ude00", "\ude00\ud83d",
    "x\ud83dy", "é", "İstanbul", "ΣΑΣ ΟΔΟΣ", "ß", "ǅ", "ﬁ", "Ⅻ", "Ꭰ", "ꭰ",
]  # fmt: skip
NUMBER_TEXTS: list[Any] = [
    "0x1F", "0X1f", "-0x10", "0o17", "0b101", " 12 ", "1e3", "1E-3", ".5", "5.", "+.5", ".", "+",
    "-", "Infinity", "-Infinity", "+Infinity", "infinity", "inf", "nan", "NaN", "1_000", "1,5",
    "\u00a012\u2028", "12px", "0x", "00012", "-0", [], [5], ["7"], [1, 2], [[3]], {}, U, None,
]  # fmt: skip
DATES: list[str] = [
    "2025-03-15T15:54:32.595Z", "1970-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z",
    "0000-01-01T00:00:00.000Z", "0001-03-01T00:00:00.000Z", "1600-02-29T12:00:00.000Z",
    "-000001-01-01T00:00:00.000Z", "-000002-01-01T00:00:00.000Z", "-000400-02-29T00:00:00.000Z",
    "-000401-03-01T00:00:00.000Z", "-271821-04-20T00:00:00.000Z", "-271821-04-19T23:59:59.999Z",
    "+275760-09-13T00:00:00.000Z", "+275760-09-13T00:00:00.001Z", "+012345-06-07T08:09:10.111Z",
    "+010000-01-01T00:00:00.000Z", "-000000-01-01T00:00:00.000Z", "2024-02-29T00:00:00.000Z",
    "2025-02-29T00:00:00.000Z", "2025-04-31T00:00:00.000Z", "2025-13-01T00:00:00.000Z",
    "2025-01-01T24:00:00.000Z", "2025-01-01T24:00:00.001Z", "2025-01-01T23:60:00.000Z",
    "2025-01-01T23:59:60.000Z", "2025-02-31T00:00:00.000Z", "2025-02-32T00:00:00.000Z",
    "2025-02-00T00:00:00.000Z", "2025-06-31T24:00:00Z", "-000002-02-30T00:00:00Z", "2025-02-30",
    "2025-01-01T12:00:00+24:00", "2025-01-01", "2025-01", "2025", "+002025-01-01",
    "2025-01-01T12:00Z", "2025-01-01T12:00:00Z", "2025-01-01T12:00:00.1Z",
    "2025-01-01T12:00:00.123456Z", "2025-01-01T12:00:00+05:30", "2025-01-01T12:00:00-0800",
    "2025-01-01T12:00:00+23:59", "2025-01-01t12:00:00z", "2025-01-01 12:00:00Z",
    "2025-01-01T12:00:00", "2025-07-01T12:00", "2025-11-02T01:30:00", "1950-06-01T00:00:00",
]  # fmt: skip
DATE_VALUES: list[Any] = [
    None, True, False, 0, -0.0, 1.7, -1.7, 8.64e15, -8.64e15, 8.64e15 + 1, 1e300, NAN, INF,
    "2025-03-15T15:54:32.595Z", "-000002-01-01T00:00:00.000Z", "garbage", {},
]  # fmt: skip
ISO_MS: list[float] = [
    0, 1, -1, 1742054072595, 253402300799999, 253402300800000, -62135596800000, -62198755200000,
    -62198755200001, 8.64e15, -8.64e15, 1.9,
]  # fmt: skip

CASES: list[tuple[str, Any]] = [
    *(("string", v) for v in VALUES),
    *(("truthy", v) for v in VALUES),
    *(("label", v) for v in VALUES),
    *(("join", v) for v in VALUES if isinstance(v, list)),
    *(("jsonNumber", v) for v in VALUES if type(v) in (int, float)),
    *(("number", v) for v in [*NUMBER_TEXTS, *(v for v in VALUES if not isinstance(v, dict))]),
    *(("trim", s) for s in STRINGS),
    *(("length", s) for s in STRINGS),
    *(("lower", s) for s in STRINGS),
    *(("upper", s) for s in STRINGS),
    *(("sessionName", s) for s in [*STRINGS, "a\r\n\r\nb", "\n\nx\ry\n", " \u2028a\rb "]),
    # (a slice that cuts a surrogate pair is left out: pitui drops the half pair on purpose)
    *(
        ("sliceTo", arg)
        for arg in [
            ["abc", 0],
            ["abc", 2],
            ["abc", 9],
            ["a😀b", 1],
            ["a😀b", 3],
            ["😀😀", 2],
            ["😀😀", 4],
            ["\ud83dx", 1],
            ["\ude00\ud83d", 1],
        ]
    ),
    *(("dateParse", d) for d in DATES),
    *(("dateOf", v) for v in DATE_VALUES),
    *(("isoString", ms) for ms in ISO_MS),
]


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None:
        if os.environ.get("PITUI_REQUIRE_PI_ORACLE") == "1":
            pytest.fail("node required (PITUI_REQUIRE_PI_ORACLE=1) but not on PATH", pytrace=False)
        pytest.skip("node is not on PATH")
    return found


@pytest.fixture
def zone() -> Iterator[str]:
    """The local zone for both sides (node and this process) while a test runs."""
    with local_zone(ZONE):
        yield ZONE


def _ask_node(node: str, cases: list[tuple[str, Any]], zone: str) -> list[Any]:
    wire = json.dumps([{"fn": fn, "arg": _wire(arg)} for fn, arg in cases])
    proc = subprocess.run(
        [node, str(ORACLE_SCRIPT)],
        input=wire.encode(),
        capture_output=True,
        env=dict(os.environ, TZ=zone),
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return [_unwire(answer) for answer in json.loads(proc.stdout)]


def _pitui(fn: str, arg: Any) -> Any:
    answer = PITUI[fn](arg)
    if fn in ("dateParse", "dateOf") and answer is None:
        return math.nan  # pitui's None is JavaScript's NaN (an Invalid Date)
    return answer


def _same(ours: Any, theirs: Any) -> bool:
    if isinstance(theirs, float) and theirs != theirs:
        return isinstance(ours, float) and ours != ours
    if isinstance(theirs, int | float) and not isinstance(theirs, bool):
        return type(ours) in (int, float) and ours == theirs
    return type(ours) is type(theirs) and ours == theirs


def test_pitui_agrees_with_node(node: str, zone: str) -> None:
    answers = _ask_node(node, CASES, zone)
    assert len(answers) == len(CASES)
    wrong = [
        f"{fn}({arg!r}): node {theirs!r}, pitui {ours!r}"
        for (fn, arg), theirs in zip(CASES, answers, strict=True)
        if not _same(ours := _pitui(fn, arg), theirs)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_table_covers_what_the_issue_names() -> None:
    """Negative and 5-digit years, lone surrogates, -0, null and undefined are in the table."""
    args = [arg for _, arg in CASES]
    assert "-000002-01-01T00:00:00.000Z" in args
    assert "+012345-06-07T08:09:10.111Z" in args
    assert "\ud83d" in args and "\ude00" in args
    assert any(isinstance(a, float) and a == 0 and math.copysign(1, a) < 0 for a in args)
    assert None in args and U in args


def test_half_a_surrogate_pair_is_dropped() -> None:
    assert js.utf16_slice("a😀b", 2) == "a"  # JavaScript keeps "a\ud83d"
    assert js.utf16_slice("😀😀", 3) == "😀"
