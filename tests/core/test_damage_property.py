"""Random session trees, serialised, then damaged at random (issue 8).

A tree of valid entries of every common type (ids, parents, branches, second roots, labels) is
written as pi writes it; then damage is applied: re-parented entries (a missing parent, the entry
itself, a later entry, one of its own descendants: a cycle), a label pointed at a missing entry,
duplicated entry lines, duplicated header lines, junk lines, junk bytes inside a line, and cut
lines (the tail of a line lost, with or without its newline, so that what is left may run into
the next line or end the file unterminated). Checked for every example:

- the core never raises (Session, context, tree walks, raw re-reads, the doctor, final or not);
- every undamaged entry is found, at its byte offset, with its id, parent and type, and nothing
  else is: an entry is *undamaged* when its line is in the file whole, as a line of its own
  (no byte of it cut, no junk inside it, not glued behind a cut line). A re-parented entry is
  undamaged in this sense (its line is whole, only its parent changed) and must be found too;
- the doctor names every damage it was given, at the line and byte offset where it is.

Re-parenting moves a parent only where pi could not have put it. A parent moved to another,
earlier entry is an ordinary tree (pi could have written it) and nothing could name it.

Each damage targets lines no other damage touches (a line cut after being re-parented would hide
the re-parenting), but damage may still interact through the tree: a cycle can run through other
re-parented entries, and a duplicated entry's children then point at its later copy. The
expectations allow for exactly that and no more.

``-m slow`` runs 10,000 examples; the default run 200.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitui.core.context import build_context_entries, build_session_context
from pitui.core.doctor import FileReport, diagnose_bytes
from pitui.core.problems import ProblemKind
from pitui.core.session import NO_PARENT_KEY, Session
from tests.core.sessiondata import HEADER, ts

K = ProblemKind

# Bytes that are invalid anywhere in a JSON text (raw control characters, not JSON or JavaScript
# white space): a line holding one can never parse, nor be taken for a blank line.
POISON = bytes([*range(0x00, 0x09), *range(0x0E, 0x1C)])
TEXT = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\ufffd"),
    max_size=24,
)
TYPES = (
    "user", "user", "assistant", "assistant", "toolResult", "model_change",
    "thinking_level_change", "custom", "custom_message", "session_info", "compaction",
    "branch_summary", "label", "label",
)  # fmt: skip
DAMAGE = (
    "orphan", "self", "cycle", "later", "label",  # on the objects
    "dup", "header", "junk-line",  # inserted lines
    "junk", "cut", "cut-glue",  # inside lines
)  # fmt: skip


# -------------------------------------------------------------------------------- the tree


def _entry(etype: str, eid: str, parent: str | None, n: int, earlier: list[str], text: str,
           bits: int) -> dict[str, Any]:  # fmt: skip
    """One entry of ``etype``; ``bits`` picks its variant (optional blocks, targets)."""
    base: dict[str, Any] = {"type": etype, "id": eid, "parentId": parent, "timestamp": ts(n)}
    pick = earlier[bits % len(earlier)] if earlier else eid
    if etype in ("user", "assistant", "toolResult"):
        base["type"] = "message"
        message: dict[str, Any] = {"role": etype, "timestamp": 1735689600000 + n}
        if etype == "user":
            message["content"] = text if bits & 1 else [{"type": "text", "text": text}]
            if bits % 10 == 0:
                message["content"] = [
                    {"type": "text", "text": text},
                    {"type": "image", "data": "QUJD" * (bits + 1), "mimeType": "image/png"},
                ]
        elif etype == "assistant":
            content: list[dict[str, Any]] = [{"type": "text", "text": text}]
            if bits & 1:
                content.insert(0, {"type": "thinking", "thinking": text[::-1]})
            if bits & 2:
                content.append({"type": "toolCall", "id": f"call{n}", "name": "bash",
                                "arguments": {"command": text}})  # fmt: skip
            usage = {"input": n, "output": 1, "totalTokens": n + 1}
            message.update(content=content, provider="anthropic", model="claude-test",
                           stopReason="stop", usage=usage)  # fmt: skip
        else:
            message.update(toolCallId=f"call{n}", toolName="bash", isError=False,
                           content=[{"type": "text", "text": text * 3}])  # fmt: skip
        base["message"] = message
    elif etype == "label":
        base["targetId"] = pick
        if bits & 1:
            base["label"] = text  # no key: the label is cleared
    elif etype == "compaction":
        # firstKeptEntryId: an earlier entry, or its own id (retain none)
        base.update(summary=text, tokensBefore=n * 100, firstKeptEntryId=pick)
    elif etype == "branch_summary":
        base.update(fromId=pick, summary=text)
    elif etype == "custom":
        base.update(customType="ext", data={"v": text})
    elif etype == "custom_message":
        base.update(customType="ext", content=text, display=True)
    elif etype == "session_info":
        base["name"] = text
    elif etype == "model_change":
        base.update(provider="openai", modelId="gpt-x" if bits & 1 else "o9")
    else:
        base["thinkingLevel"] = "high" if bits & 1 else "off"
    return base


# Per entry: how it attaches, which earlier entry, its type, its text, variant bits. Drawn as one
# list: far cheaper than drawing field by field.
ENTRY_CHOICES = st.tuples(
    st.integers(0, 9), st.integers(0, 1023), st.sampled_from(TYPES), TEXT, st.integers(0, 255)
)


def _tree(choices: list[tuple[int, int, str, str, int]]) -> list[dict[str, Any]]:
    """Entries in file order, parents always earlier (as pi appends), ids unique."""
    entries: list[dict[str, Any]] = []
    for n, (how, which, etype, text, bits) in enumerate(choices):
        eid = f"e{n:03d}{which:04x}"
        if n == 0 or how == 0:
            parent = None  # a second root (pi's resetLeaf)
        elif how <= 3:
            parent = entries[which % n]["id"]  # a branch
        else:
            parent = entries[-1]["id"]
        earlier = [e["id"] for e in entries if e["type"] != "label"]
        if etype == "label":
            if not earlier:
                etype = "user"  # nothing to label yet
            else:
                parent = entries[-1]["id"]  # pi: a label's parent is the leaf
        entries.append(_entry(etype, eid, parent, n, earlier, text, bits))
    return entries


session_tree = st.lists(ENTRY_CHOICES, min_size=1, max_size=28).map(_tree)


# ------------------------------------------------------------------------------ the file


@dataclass(eq=False)
class Rec:
    """One line as written: its bytes, whether its newline survived, what it is and what the
    doctor must say about it."""

    data: bytes
    what: str  # header | entry | copy | header-copy | junk
    obj: dict[str, Any] | None = None
    newline: bool = True
    intact: bool = True  # the line's own bytes are whole (no cut, no junk, not glued into)
    reserved: bool = False  # no further damage may touch it
    expect: list[tuple[frozenset[ProblemKind], str]] = field(default_factory=list)


def _descendants(tree: list[tuple[str, Any]], index: int) -> set[int]:
    """Indexes of the entries below ``tree[index]`` (``tree``: (id, parentId) in file order)."""
    children: dict[str, list[int]] = {}
    for i, (_, parent) in enumerate(tree):
        if isinstance(parent, str):
            children.setdefault(parent, []).append(i)
    out: set[int] = set()
    stack = list(children.get(tree[index][0], []))
    while stack:
        i = stack.pop()
        if i not in out:
            out.add(i)
            stack.extend(children.get(tree[i][0], []))
    return out


def _free(recs: list[Rec], kinds: tuple[str, ...] = ("entry",)) -> list[Rec]:
    return [r for r in recs if r.what in kinds and not r.reserved]


def damaged_file(data: st.DataObject) -> tuple[bytes, list[Rec]]:
    entries = data.draw(session_tree, label="tree")
    recs = [Rec(orjson.dumps(HEADER), "header", reserved=True)]
    recs.extend(Rec(b"", "entry", obj=e) for e in entries)
    ops = data.draw(
        st.lists(st.sampled_from(DAMAGE), max_size=6),
        label="damage",
    )
    structural = [op for op in ops if op in ("orphan", "self", "cycle", "later", "label")]
    lines = [op for op in ops if op not in structural]
    by_obj = {id(r.obj): r for r in recs if r.obj is not None}
    # as written, before any re-parenting: a descendant here is always later in the file
    tree = [(e["id"], e["parentId"]) for e in entries]
    gone = 0
    # 1. re-parenting and labels, on the objects (the line is written afterwards)
    for op in structural:
        free = [i for i, e in enumerate(entries) if not by_obj[id(e)].reserved]
        if op == "label":
            free = [i for i in free if entries[i]["type"] == "label"]
        if not free:
            continue
        i = data.draw(st.sampled_from(free), label=f"{op} target")
        target = entries[i]
        rec = by_obj[id(target)]
        rec.reserved = True
        gone += 1
        if op == "orphan":
            target["parentId"] = f"gone{gone:04d}"
            rec.expect.append((frozenset({K.ORPHAN}), "first"))
        elif op == "self":
            target["parentId"] = target["id"]
            rec.expect.append((frozenset({K.SELF_PARENT}), "first"))
        elif op == "label":
            target["targetId"] = f"lost{gone:04d}"
            target["label"] = "broken"
            rec.expect.append((frozenset({K.LABEL_TARGET_MISSING}), "first"))
        else:
            below = _descendants(tree, i)
            if op == "cycle":
                choices = sorted(below)
            else:
                choices = [j for j in range(i + 1, len(entries)) if j not in below]
            if not choices:
                rec.reserved = False
                continue
            j = data.draw(st.sampled_from(choices), label=f"{op} parent")
            target["parentId"] = entries[j]["id"]
            by_obj[id(entries[j])].reserved = True  # the new parent stays whole
            # its parent is now later in the file; if it closes a loop, the loop may be cut
            # right here (then it is a root and the cut is named instead)
            rec.expect.append((frozenset({K.PARENT_AFTER_CHILD, K.CYCLE}), "first"))
    for rec in recs:
        if rec.obj is not None:
            rec.data = orjson.dumps(rec.obj)
    # 2. inserted lines: copies of entries and of the header, junk lines
    for op in lines:
        if op == "dup":
            sources = _free(recs)
            if not sources:
                continue
            source = data.draw(st.sampled_from(sources), label="dup source")
            source.reserved = True
            at = data.draw(st.integers(recs.index(source), len(recs) - 1), label="dup after")
            copy = Rec(source.data, "copy", obj=source.obj, reserved=True)
            copy.expect.append((frozenset({K.DUPLICATE_ID}), "first"))
            recs.insert(at + 1, copy)
        elif op == "header":
            at = data.draw(st.integers(0, len(recs) - 1), label="header after")
            copy = Rec(recs[0].data, "header-copy", reserved=True)
            copy.expect.append((frozenset({K.DUPLICATE_HEADER}), "first"))
            recs.insert(at + 1, copy)
        elif op == "junk-line":
            at = data.draw(st.integers(0, len(recs) - 1), label="junk after")
            junk = Rec(data.draw(_junk(), label="junk"), "junk", intact=False, reserved=True)
            junk.expect.append((frozenset({K.MALFORMED}), "each"))
            recs.insert(at + 1, junk)
    # 3. damage inside lines: junk bytes, cuts
    for op in lines:
        if op not in ("junk", "cut", "cut-glue"):
            continue
        targets = _free(recs)
        if op == "cut-glue":  # the next line must be free too: it becomes part of this one
            targets = [r for r in targets if r is recs[-1] or _free([recs[recs.index(r) + 1]])]
        if not targets:
            continue
        rec = data.draw(st.sampled_from(targets), label=f"{op} target")
        rec.reserved = True
        rec.intact = False
        if op == "junk":
            pos = data.draw(st.integers(0, len(rec.data)), label="junk at")
            rec.data = rec.data[:pos] + data.draw(_junk(), label="junk") + rec.data[pos:]
            rec.expect.append((frozenset({K.MALFORMED}), "each"))
            continue
        keep = data.draw(st.integers(1, len(rec.data) - 1), label="cut keeps")
        rec.data = rec.data[:keep]
        if op == "cut-glue":
            rec.newline = False
            if rec is not recs[-1]:
                after = recs[recs.index(rec) + 1]
                after.reserved = True
                after.intact = False
                rec.expect.append((frozenset({K.MALFORMED}), "first"))
            else:
                rec.expect.append((frozenset({K.TRUNCATED}), "first"))
        else:
            rec.expect.append((frozenset({K.MALFORMED}), "first"))
    return b"".join(r.data + (b"\n" if r.newline else b"") for r in recs), recs


@st.composite
def _junk(draw: st.DrawFn) -> bytes:
    """1-3 pieces separated by newlines, each holding at least one poison byte."""
    pieces = []
    for _ in range(draw(st.integers(1, 3))):
        filler = draw(st.binary(max_size=6)).replace(b"\n", b"")
        poison = draw(st.sampled_from(list(POISON))).to_bytes(1, "big")
        at = draw(st.integers(0, len(filler)))
        pieces.append(filler[:at] + poison + filler[at:])
    return b"\n".join(pieces)


# ---------------------------------------------------------------------------------- checks


def _walk_everything(session: Session) -> None:
    preorder = [m for m, _ in session.iter_preorder()]
    assert sorted(m.uid for m in preorder) == sorted(m.uid for m in session.entries)
    for meta in session.entries:
        path = session.path_to(meta)
        assert path[-1] is meta and len(path) <= len(session.entries)
        raw = session.raw(meta)
        assert raw.get("id") == meta.id
        build_context_entries(session, meta.uid)
    build_session_context(session)
    build_session_context(session, None)
    session.stats()


def _loops(recs: list[Rec], starts: dict[int, int]) -> list[set[int]]:
    """Parent loops among the whole entry lines, as ids resolve (the last occurrence wins);
    as offsets."""
    whole = [r for r in recs if r.what in ("entry", "copy") and r.intact]
    by_id = {r.obj["id"]: r for r in whole if r.obj is not None}
    loops: list[set[int]] = []
    done: set[int] = set()
    for start in whole:
        chain: list[Rec] = []
        node: Rec | None = start
        while node is not None and id(node) not in done and node not in chain:
            chain.append(node)
            pid = node.obj.get("parentId") if node.obj is not None else None
            node = by_id.get(pid) if isinstance(pid, str) else None
        if node is not None and node in chain:
            loops.append({starts[id(r)] for r in chain[chain.index(node) :]})
        done.update(id(r) for r in chain)
    return loops


def check(data: st.DataObject) -> None:
    content, recs = damaged_file(data)
    starts: dict[int, int] = {}
    pos = 0
    for rec in recs:
        starts[id(rec)] = pos
        pos += len(rec.data) + (1 if rec.newline else 0)
    line_at = {start: n for n, start in enumerate(_line_starts(content), start=1)}

    # the core never raises, whether the file is taken as finished or still being written
    session = Session.from_bytes(content, final=True)
    _walk_everything(session)
    _walk_everything(Session.from_bytes(content, final=False))
    report = diagnose_bytes(content)
    diagnose_bytes(content, final=False)
    assert report.status in ("ok", "problems")

    # every undamaged entry is found where it is, and nothing else is
    whole = {starts[id(r)]: r for r in recs if r.what in ("entry", "copy") and r.intact}
    got = {m.offset: m for m in session.entries}
    assert sorted(got) == sorted(whole)
    for offset, rec in whole.items():
        meta, obj = got[offset], rec.obj
        assert obj is not None
        assert (meta.id, meta.type, meta.line) == (obj["id"], obj["type"], line_at[offset])
        assert meta.parent_id == obj.get("parentId", NO_PARENT_KEY)
        assert meta.length == len(rec.data)

    # the doctor names every damage, at its line and offset
    problems = {(p.kind, p.line, p.offset) for p in report.problems}
    loops = _loops(recs, starts)
    for rec in recs:
        start = starts[id(rec)]
        for kinds, where in rec.expect:
            # "each": every physical line of the record (junk may hold newlines)
            pieces = [0] if where == "first" else _piece_starts(rec.data)
            places = [start + i for i in pieces]
            for place in places:
                line = line_at[place]
                named = any((kind, line, place) in problems for kind in kinds)
                assert named, (sorted(kinds), line, place, report.problems, content)
    # every loop left in the file is reported (a self-parent as such)
    for loop in loops:
        kind = K.SELF_PARENT if len(loop) == 1 else K.CYCLE
        assert any((kind, line_at[o], o) in problems for o in loop), (loop, report.problems)
    _no_false_file_level(report)


def _line_starts(content: bytes) -> list[int]:
    starts = [0]
    pos = content.find(b"\n")
    while pos >= 0:
        if pos + 1 < len(content):
            starts.append(pos + 1)
        pos = content.find(b"\n", pos + 1)
    return starts


def _piece_starts(data: bytes) -> list[int]:
    out = [0]
    pos = data.find(b"\n")
    while pos >= 0:
        out.append(pos + 1)
        pos = data.find(b"\n", pos + 1)
    return out


def _no_false_file_level(report: FileReport) -> None:
    file_level = {K.EMPTY, K.NOT_A_SESSION, K.UNSUPPORTED_FORMAT, K.UNREADABLE, K.STALE_TEMP}
    assert not [p for p in report.problems if p.kind in file_level]


# ----------------------------------------------------------------------------------- tests

_COMMON = settings(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@settings(_COMMON, max_examples=200)
@given(st.data())
def test_damaged_trees(data: st.DataObject) -> None:
    check(data)


@pytest.mark.slow
@settings(_COMMON, max_examples=10_000)
@given(st.data())
def test_damaged_trees_many(data: st.DataObject) -> None:
    check(data)


def test_the_damage_really_happens() -> None:
    """The generator is not vacuous: damage of every kind shows up in reports."""
    seen: set[ProblemKind] = set()

    @settings(_COMMON, max_examples=300, database=None, derandomize=True)  # (no flakiness)
    @given(st.data())
    def collect(data: st.DataObject) -> None:
        content, _ = damaged_file(data)
        seen.update(p.kind for p in diagnose_bytes(content).problems)

    collect()
    assert {
        K.MALFORMED, K.TRUNCATED, K.DUPLICATE_ID, K.DUPLICATE_HEADER, K.ORPHAN, K.SELF_PARENT,
        K.CYCLE, K.PARENT_AFTER_CHILD, K.LABEL_TARGET_MISSING,
    } <= seen  # fmt: skip
