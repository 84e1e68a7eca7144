"""What an export shows, whatever the format: the context at a leaf and facts about the session.

Everything here is still untrusted text (names, folders, message bodies); each format escapes it
for its own syntax.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pitui import __version__
from pitui.core.context import Leaf, build_session_context
from pitui.core.facts import model_text, session_facts
from pitui.core.session import EntryMeta, Session
from pitui.core.units import format_cost, format_count


@dataclass(frozen=True, slots=True)
class ExportDocument:
    title: str
    facts: list[tuple[str, str]]  # (label, value) pairs shown at the top, in order
    messages: list[dict[str, Any]]  # build_session_context(...).messages
    sources: list[str]  # the entry uid each message came from
    leaf: EntryMeta | None
    session: Session = field(repr=False)
    # Extension entries on the branch (``custom``: state an extension keeps, never sent to the
    # model), each with the number of messages that come before it: drawn by the renderer
    # registry where they stand, so what a plug-in draws is in the export too.
    extensions: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    generator: str = f"pitui {__version__}"


def build_document(session: Session, leaf: Leaf = "default") -> ExportDocument:
    """The context the model sees at ``leaf`` (a uid, ``"default"`` = the file's leaf)."""
    leaf_meta = session.leaf if leaf == "default" else (session.get(leaf) if leaf else None)
    if leaf not in ("default", None) and leaf_meta is None:
        raise KeyError(f"entry {leaf!r} is not in {session.path}")
    context = build_session_context(session, leaf_meta.uid if leaf_meta is not None else None)
    known = session_facts(session, leaf_meta)
    branch, spend = list(known.branch_entries), known.branch
    name = session.name
    title = name if name else f"pi session {session.id or '(no id)'}"
    facts: list[tuple[str, str]] = []
    if name:
        facts.append(("Name", name))
    facts.append(("Session", session.id or "(no id)"))
    facts.append(("Folder", session.cwd or "(none)"))
    facts.append(("File", session.path))
    if session.created:
        facts.append(("Created", session.created))
    if session.parent_session:
        facts.append(("Forked from", session.parent_session))
    if leaf_meta is not None:
        ending = f"{format_count(spend.entries)} entries, ending at {leaf_meta.uid}"
        facts.append(("Branch", ending))
    else:
        facts.append(("Branch", "empty"))
    model = context.model
    if model is not None:
        facts.append(("Model", model_text(model.provider, model.model_id) or "(unknown)"))
    facts.append(("Thinking", context.thinking_level))
    facts.append(("Messages", format_count(len(context.messages))))
    tokens = format_count(int(spend.total_tokens))
    facts.append(("Spend on this branch", f"{tokens} tokens, {format_cost(spend.cost)}"))
    return ExportDocument(
        title=title,
        facts=facts,
        messages=context.messages,
        sources=list(context.sources),
        leaf=leaf_meta,
        session=session,
        extensions=extension_entries(session, branch, list(context.sources)),
    )


def extension_entries(
    session: Session, branch: Sequence[EntryMeta], sources: Sequence[str]
) -> list[tuple[int, dict[str, Any]]]:
    """The ``custom`` entries of ``branch``, each after the messages that precede it there."""
    return [(before, session.raw(meta)) for before, meta in custom_entries_on(branch, sources)]


def custom_entries_on(
    branch: Sequence[EntryMeta], sources: Sequence[str]
) -> list[tuple[int, EntryMeta]]:
    """The ``custom`` entries of ``branch`` (state an extension keeps, never sent to the model),
    each with the number of context messages (``sources``: their entries) that come before it.
    The session view's context pane places them the same way."""
    where = {meta.uid: index for index, meta in enumerate(branch)}
    positions = [where.get(uid, -1) for uid in sources]  # each message's place on the branch
    found: list[tuple[int, EntryMeta]] = []
    before = 0
    for index, meta in enumerate(branch):
        if meta.type != "custom":
            continue
        while before < len(positions) and positions[before] < index:
            before += 1
        found.append((before, meta))
    return found
