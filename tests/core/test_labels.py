"""Labels as the index lists them are the labels the session reader resolves (format §8.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pitui.core.file_summary import summarise_file
from pitui.core.labels import apply_label, listed_labels
from pitui.core.problems import ProblemKind
from pitui.core.session import Session
from pitui.core.store import Store
from tests.conftest import CORPORA, FIXTURES, fixture_sessions
from tests.core.sessiondata import HEADER, entry, jsonl, ts, user

CWD = HEADER["cwd"]


def label(eid: str, parent: str | None, target: str, text: Any, t: int, **extra: Any) -> Any:
    fields: dict[str, Any] = {"targetId": target, **extra}
    if text is not ...:
        fields["label"] = text
    return entry("label", eid, parent, t, **fields)


# a session whose labels exercise every part of the rule: set, set again (keeps its place),
# cleared by an absent, empty and falsy label, set after a clear (moves last), a non-string
# label (shown as String(value)), a label for an id not in the file, a label on another branch
LABELLED = [
    user("u1", None, "one", t=1),
    user("u2", "u1", "two", t=2),
    user("u3", "u1", "three on a side branch", t=3),
    label("l1", "u2", "u1", "first", 4),
    label("l2", "l1", "u2", "second", 5),
    label("l3", "l2", "u3", "side", 6),
    label("l4", "l3", "u1", "first again", 7),
    label("l5", "l4", "u2", ..., 8),  # absent: clears
    label("l6", "l5", "u2", "back", 9),  # set after a clear: moves last
    label("l7", "l6", "u3", "", 10),  # empty: clears
    label("l8", "l7", "ghost", "no such entry", 11),
    label("l9", "l8", "u3", 0, 12),  # falsy: clears
    label("l10", "l9", "u1", 42, 13),  # shown as "42"
]


def resolved(path: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    session = Session.open(path)
    return list(session.labels.items()), list(session.label_times.items())


def summarised(path: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    result = summarise_file(path)
    assert result.row is not None
    from pitui.core.session_info import SessionInfo

    info = SessionInfo.from_row(path, result.key[0], result.row)
    return list(info.labels.items()), list(info.label_times.items())


def test_apply_label_is_pis_rule() -> None:
    labels: dict[str, str] = {}
    times: dict[str, str] = {}
    apply_label(labels, times, "a", "x", ts(1))
    apply_label(labels, times, "b", "y", ts(2))
    apply_label(labels, times, "a", "x2", ts(3))  # set again: keeps its place
    assert list(labels.items()) == [("a", "x2"), ("b", "y")]
    assert times == {"a": ts(3), "b": ts(2)}
    apply_label(labels, times, "a", None, ts(4))  # cleared
    assert labels == {"b": "y"} and times == {"b": ts(2)}
    apply_label(labels, times, "a", "z", None)  # set after the clear: last, no time
    assert list(labels) == ["b", "a"] and times["a"] == ""


def test_summary_and_session_resolve_the_same_labels(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(*LABELLED))
    labels, times = resolved(str(path))
    assert labels == [("u1", "42"), ("u2", "back"), ("ghost", "no such entry")]
    assert times == [("u1", ts(13)), ("u2", ts(9)), ("ghost", ts(11))]
    assert summarised(str(path)) == (labels, times)


def test_a_resumed_summary_keeps_the_label_order_and_times(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(*LABELLED[:6]))
    store = Store(agent=tmp_path, cwd=CWD, session_dir=str(tmp_path), index_path=tmp_path / "i")
    with store:
        store.load("current")
        with path.open("ab") as grown:  # the rest is appended: the index resumes the summary
            grown.write(jsonl(*LABELLED[6:], header=None))
        (info,) = store.load("current")
    assert (list(info.labels.items()), list(info.label_times.items())) == resolved(str(path))


@pytest.mark.parametrize("corpus", CORPORA)
def test_labels_from_the_index_are_pis(corpus: str, tmp_path: Path) -> None:
    """Every pi-written fixture: the labels and label times the listing stores (and the picker
    and ``pitui labels`` show) are pi's own, and the reader's."""
    sessions = fixture_sessions(corpus)
    agent = FIXTURES / corpus / "agent"
    with Store(agent=agent, cwd=CWD, index_path=tmp_path / "index.sqlite3") as store:
        store.load("all")  # fills the index
        listed = {info.path: info for info in store.load("all")}  # from the index
    labelled = 0
    for path, expected in sessions:
        info = listed[str(path)]
        assert info.labels == expected["labels"], path.name
        assert info.label_times == expected["labelTimestamps"], path.name
        assert (list(info.labels.items()), list(info.label_times.items())) == resolved(str(path))
        labelled += bool(expected["labels"])
    assert labelled >= 3  # (the corpus has labelled sessions: the test can fail)


def test_listed_labels_newest_first_with_sessions(tmp_path: Path) -> None:
    first = tmp_path / "a.jsonl"
    first.write_bytes(jsonl(*LABELLED))
    second = tmp_path / "b.jsonl"
    second.write_bytes(
        jsonl(
            user("v1", None, "other", t=1),
            entry("session_info", "n1", "v1", 2, name="Named one"),
            label("m1", "n1", "v1", "newest of all", 30),
            label("m2", "m1", "v1", "newest of all", 31, timestamp=5),  # a time that is no string
            header={**HEADER, "id": "second"},
        )
    )
    with Store(agent=tmp_path, cwd=CWD, session_dir=str(tmp_path), use_index=False) as store:
        rows = listed_labels(store.load("current"))
    assert [(row.label, row.entry_id, row.time) for row in rows] == [
        ("42", "u1", ts(13)),
        ("no such entry", "ghost", ts(11)),
        ("back", "u2", ts(9)),
        ("newest of all", "v1", ""),  # no date: after the dated ones
    ]
    assert rows[-1].session_name == "Named one" and rows[-1].path == str(second)
    assert rows[0].first_message == "one" and rows[0].time_ms is not None


@pytest.mark.parametrize(
    "stamp",
    [
        "2025-01-01T00:00:00.000Z",
        "2025-03-07T03:17:33.927Z",
        "1969-12-31T23:59:59.999Z",
        "2025-02-30T00:00:00.000Z",  # no such day
        "2025-01-01T24:00:00.000Z",
        "2025-01-01 00:00:00.000Z",
        "+02025-01-01T00:00:00.00Z",
        "2025-01-01T00:00:00.000+01:00",
        "not a date",
        "",
    ],
)
def test_label_time_is_javascripts_date(stamp: str) -> None:
    from pitui.core.js import js_date_ms
    from pitui.core.labels import label_time_ms

    assert label_time_ms(stamp) == js_date_ms(stamp)


@pytest.mark.parametrize("corpus", CORPORA)
def test_label_times_of_the_fixtures_read_as_javascript_reads_them(corpus: str) -> None:
    from pitui.core.js import js_date_ms
    from pitui.core.labels import label_time_ms

    stamps = [
        stamp
        for _, record in fixture_sessions(corpus)
        for stamp in record["labelTimestamps"].values()
    ]
    assert stamps and [label_time_ms(s) for s in stamps] == [js_date_ms(s) for s in stamps]


class _CountedEntries(list[Any]):
    """The session's entries, counting the walks over them."""

    walks = 0

    def __iter__(self) -> Any:
        type(self).walks += 1
        return super().__iter__()


def test_labels_for_missing_entries_are_reported_in_one_walk(tmp_path: Path) -> None:
    # each label for an id not in the file looked for its first setter on its own: a walk over
    # every entry per such label (20,000 of them in a 1.3 MB file: 50 s to open)
    dangling = [label(f"l{i}", f"l{i - 1}" if i else None, f"gone{i}", "x", i) for i in range(40)]
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(*dangling[:20]))
    session = Session.open(path, final=True)
    missing = [p for p in session.problems if p.kind is ProblemKind.LABEL_TARGET_MISSING]
    assert [p.line for p in missing] == list(range(2, 22))
    session.entries = _CountedEntries(session.entries)
    with open(path, "ab") as handle:
        handle.write(jsonl(*dangling[20:], header=None))
    assert session.refresh().kind == "grew"
    assert _CountedEntries.walks <= 2  # not one per label
    lines = [p.line for p in session.problems if p.kind is ProblemKind.LABEL_TARGET_MISSING]
    assert lines == list(range(2, 42))  # each once, in line order
    assert [p.line for p in session.problems] == sorted(p.line for p in session.problems)
