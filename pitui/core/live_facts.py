"""A session's facts (:mod:`pitui.core.facts`) kept current while pi appends to the file.

Counting from scratch walks every entry, which takes a while on a big file; :meth:`LiveFacts.grown`
brings the facts up to date with the entries just appended, walking only what is new (and the
path from the new leaf down to the old one). When the append relinked the index (an orphan's
parent arrived, an id was repeated), it counts from scratch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from pitui.core.facts import SessionFacts, session_facts, tally
from pitui.core.session import EntryMeta, Session

__all__ = ["LiveFacts"]


@dataclass(frozen=True, slots=True)
class LiveFacts:
    facts: SessionFacts
    ids: int  # entries by id when counted: what tells that an append repeated an id

    @classmethod
    def count(cls, session: Session) -> LiveFacts:
        """Count from scratch (any thread, while the index does not change)."""
        return cls(session_facts(session), len(session.by_id))

    def grown(self, session: Session, new: Sequence[EntryMeta]) -> LiveFacts:
        """The facts after ``new`` entries were appended to ``session``."""
        facts = self.facts
        with_ids = sum(1 for meta in new if meta.id is not None)
        if len(session.roots) < facts.roots or len(session.by_id) != self.ids + with_ids:
            return LiveFacts.count(session)  # relinked
        fresh = {id(meta) for meta in new}
        ends = facts.branch_ends + sum(1 for meta in new if not meta.children)
        parents = {id(p): p for m in new if (p := m.parent) is not None and id(p) not in fresh}
        for parent in parents.values():
            if all(id(child) in fresh for child in parent.children or ()):
                ends -= 1  # it was a branch end until now
        walked: list[EntryMeta] = []
        node = session.leaf
        while node is not None and node is not facts.leaf:
            walked.append(node)
            node = node.parent
        if node is not None or facts.leaf is None:
            walked.reverse()
            branch_entries = [*facts.branch_entries, *walked]
            branch = facts.branch + tally(walked)
        else:  # the leaf moved to another branch
            branch_entries = session.path_to(session.leaf)
            branch = tally(branch_entries)
        grown = dataclasses.replace(
            facts,
            name=session.name,
            entries=len(session.entries),
            roots=len(session.roots),
            branch_ends=ends,
            leaf=session.leaf,
            branch_entries=branch_entries,
            branch=branch,
            file=facts.file + tally(new),
        )
        return LiveFacts(grown, len(session.by_id))
