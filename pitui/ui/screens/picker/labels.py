"""The picker's ``label:`` mode: every label of every session in scope, one row each.

The labels come with the listed sessions (the index keeps each session's resolved labels and
when each was set: :mod:`pitui.core.labels`), so the rows cost no file read, even for 10,000
sessions. A row reads ``label … session · age`` (the label's age); Enter opens the session view
on the labelled entry. The words after ``label:`` narrow the rows as the picker's search narrows
sessions (fuzzy words, ``"phrases"``, ``re:``), over the label text.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from pitui.core.labels import ListedLabel
from pitui.core.paths import home, shorten_home
from pitui.core.regex_search import RegexTooSlow, regex_budget
from pitui.core.search import parse_query, score
from pitui.ui.catalog import Catalog, FullTextHit, PickerItem, Scope
from pitui.ui.messages import LabelsListed
from pitui.ui.screens.picker.state import display_title
from pitui.ui.widgets.session_list import ListRow

SESSION_TITLE_CELLS = 40  # the session's title on a label row is cut to this
CWD_CELLS = 30  # and its folder (all folders)
NO_LABELS = "  No labels in current folder. Press Tab to view all."
NO_LABELS_ALL = "  No labels found"
NO_LABEL_MATCHES = "  No label matches."


def matching(labels: Sequence[ListedLabel], words: str) -> list[ListedLabel]:
    """The labels whose text matches ``words`` (all of them for no words), in their order."""
    query = parse_query(words)
    if query.is_empty:
        return list(labels)
    try:
        with regex_budget():
            return [row for row in labels if score(query, row.label) is not None]
    except RegexTooSlow:
        return []  # (a label long enough for the pattern to backtrack on: matches none)


def _cut(text: str, size: int) -> str:
    # (by characters: one_line's cell-exact cut costs more than all the rest of a row; the
    # row is cut exactly, and sanitized, when it is drawn)
    return text if len(text) <= size else text[: size - 1] + "…"


def label_rows(
    labels: Sequence[ListedLabel],
    items: Sequence[PickerItem],
    *,
    all_scope: bool,
    current: str | None,
    live: Collection[str] = (),
) -> tuple[list[FullTextHit], list[PickerItem], list[ListRow]]:
    """Each label's hit (session and entry), session and display row; labels of sessions not
    in ``items`` are left out."""
    by_path = {item.path: item for item in items}
    rights: dict[str, str] = {}  # session path -> the right part (a session has many labels)
    home_dir = home()
    hits: list[FullTextHit] = []
    sessions: list[PickerItem] = []
    rows: list[ListRow] = []
    for label in labels:
        path = label.path
        item = by_path.get(path)
        if item is None:
            continue
        right = rights.get(path)
        if right is None:
            title = _cut(display_title(item), SESSION_TITLE_CELLS)
            if all_scope:
                right = f"{_cut(shorten_home(item.cwd, home_dir), CWD_CELLS)}  {title}"
            else:
                right = title
            rights[path] = right
        hits.append(FullTextHit(path, label.entry_id, label.label))
        sessions.append(item)
        rows.append(
            ListRow(
                key=f"{path}#{label.entry_id}",
                title=f"[{label.label}]",  # (as the tree draws a label)
                right=right,
                modified=label.time_ms,
                current=path == current,
                live=path in live,
                path=path,
                label=True,
            )
        )
    return hits, sessions, rows


def empty_text(words: str, *, all_scope: bool) -> str:
    if words.strip():
        return NO_LABEL_MATCHES
    return NO_LABELS_ALL if all_scope else NO_LABELS


def list_labels(
    catalog: Catalog,
    query: str,
    scope: Scope,
    items: Sequence[PickerItem],
    *,
    current: str | None,
    live: Collection[str],
    post: Callable[[LabelsListed], object],
    cancelled: Callable[[], bool],
) -> None:
    """The worker's body: the rows of ``label:<query>`` over the scope's sessions ``items``."""
    found = matching(catalog.labels(items), query)
    if cancelled():
        return
    hits, sessions, rows = label_rows(
        found, items, all_scope=scope == "all", current=current, live=live
    )
    post(LabelsListed(query, scope, items, hits, sessions, rows))
