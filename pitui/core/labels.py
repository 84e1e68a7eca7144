"""Labels: pi's resolution rule (format §8.1), in one place, and every label of a listing.

:func:`apply_label` is the rule. The session reader (:class:`~pitui.core.session.Session`) and
the listing summary (:class:`~pitui.core.summary.SummaryState`, stored in the index) both fold
their label entries through it, so a label listed from the index is the label the session view
shows. :func:`listed_labels` turns listed sessions (``SessionInfo``) into one row per label: what
``pitui labels`` prints and the picker's ``label:`` mode shows, read from the index with no
session file opened.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from pitui.core.js import js_date_ms
from pitui.core.session_info import ListedSession

__all__ = ["ListedLabel", "apply_label", "label_time_ms", "listed_labels"]


def apply_label(
    labels: MutableMapping[str, str],
    times: MutableMapping[str, str],
    target: str,
    label: str | None,
    timestamp: str | None,
) -> None:
    """Fold one ``label`` entry (its ``targetId``, its label as :func:`~pitui.core.js.label_text`
    gives it, its ``timestamp``) into ``labels`` and ``times`` (target → label, target → the
    timestamp of the entry that set it). The last entry in file order wins; ``None`` (an absent,
    empty or falsy label) clears. Dict order is pi's label map order: a label set again after a
    clear moves last, one set again without a clear keeps its place."""
    if label is None:
        labels.pop(target, None)
        times.pop(target, None)
    else:
        labels[target] = label
        times[target] = timestamp or ""


class ListedLabel(NamedTuple):
    """One resolved label of one listed session."""

    path: str  # the session file
    entry_id: str  # the labelled entry (``targetId``)
    label: str
    time: str  # timestamp of the label entry that set it ("" when it had none)
    time_ms: float | None  # that time as epoch ms (None: not a date)
    session_id: str
    session_name: str | None
    first_message: str
    cwd: str


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


def label_time_ms(stamp: str) -> float | None:
    """``new Date(stamp).getTime()``: pi's own ``2025-01-01T00:00:00.000Z`` form read in C (a
    listing of 10,000 sessions has thousands of labels), any other form as JavaScript reads it."""
    if len(stamp) == 24 and stamp[10] == "T" and stamp[19] == "." and stamp[23] == "Z":
        try:
            return float((datetime.fromisoformat(stamp) - _EPOCH) // _MS)
        except ValueError:
            pass
    return js_date_ms(stamp)


def listed_labels(sessions: Iterable[ListedSession]) -> list[ListedLabel]:
    """Every label of ``sessions``, newest label first (a label without a date after the dated
    ones); ties keep the sessions' order and each session's label map order."""
    found: list[ListedLabel] = []
    for info in sessions:
        labels = info.labels
        if not labels:
            continue
        times = info.label_times
        for target, label in labels.items():
            stamp = times.get(target, "")
            found.append(
                ListedLabel(
                    info.path, target, label, stamp, label_time_ms(stamp) if stamp else None,
                    info.id, info.name, info.first_message, info.cwd,
                )
            )  # fmt: skip
    # (sorted is stable: equal times keep the order above)
    found.sort(key=lambda row: -row.time_ms if row.time_ms is not None else float("inf"))
    return found
