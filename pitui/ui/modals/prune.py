"""The prune confirmation (issue 23 §1): what goes, named, before anything is removed."""

from __future__ import annotations

from rich.text import Text

from pitui.core.js import parse_iso_ms
from pitui.core.prune import PrunePlan
from pitui.core.units import format_age, format_local_time
from pitui.render.safe_text import one_line
from pitui.ui.modals.confirm import ConfirmModal


def prune_body(plan: PrunePlan, start: str, *, now_ms: float | None = None) -> Text:
    """The confirmation's text: the branch's first entry (``start``: its tree row text), what
    goes in one line, when the branch ended, the labels of kept entries that go too, and how to
    take it back. Session text is plain ``Text``, never markup."""
    body = Text()
    body.append("Removes from the file the branch that starts at\n")
    body.append(f"  {one_line(start, 120)}\n", "bold")
    body.append("and everything under it:\n")
    body.append(f"  {plan.summary()}\n", "bold")
    ended = parse_iso_ms(plan.ended)
    if ended is not None:
        when = format_local_time(ended) or plan.ended or ""
        age = format_age(ended, now_ms)
        body.append(f"  last entry {when} ({'just now' if age == 'now' else age + ' ago'})\n")
    if plan.labels:
        names = ", ".join(f"“{one_line(text, 40)}”" for text in plan.labels.values())
        body.append(f"  labels that go: {names}\n")
    if plan.kept_labels:
        body.append("\nLabels of entries that stay change (set or cleared inside it):\n", "bold")
        for target, (before, after) in plan.kept_labels.items():
            body.append(f"  {target}: {_label(before)} → {_label(after)}\n")
    body.append(
        "\nEvery other line stays as it is. The original goes to the trash first: Ctrl+Z (or "
        "`pitui restore FILE`) brings it back.",
        "dim",
    )
    return body


def _label(text: str | None) -> str:
    return f"“{one_line(text, 40)}”" if text is not None else "no label"


class PruneModal(ConfirmModal):
    """Returns ``True`` when the user confirms the prune."""

    def __init__(self, plan: PrunePlan, start: str, *, now_ms: float | None = None) -> None:
        super().__init__(
            "Prune this branch?",
            prune_body(plan, start, now_ms=now_ms),
            confirm_label="Prune",
            danger=True,
        )
