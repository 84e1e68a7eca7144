"""Files written by pitui, read by pi 0.73.1's own SessionManager (the oracle).

Sessions are written with pitui's SessionManager (every entry type, branches, labels, names,
compaction with and without ``retainedTail``, custom entries and messages, branch summaries,
branch extraction, forks, a migrated v1 file) and with the writing commands on copies of pi's
own fixtures. pi must open each file without rewriting it, and report the same leaf, branch,
tree, labels, name, header and context as pitui's reader.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from pitui.cli import main
from pitui.core.context import build_session_context, to_llm_messages
from pitui.core.manager import SessionManager
from pitui.core.models import (
    AssistantMessage,
    BashExecutionMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pitui.core.session import Session
from tests.conftest import FIXTURES, load_expected
from tests.core.sessiondata import jsonl, ts
from tests.interop.pi_oracle import PiOracle

CWD = "/home/ana/proj"
_stamp = [1735689600000]


def _ms() -> int:
    _stamp[0] += 1000
    return _stamp[0]


def user(text: str) -> UserMessage:
    return UserMessage(role="user", content=text, timestamp=_ms())


def reply(text: str, model: str = "claude-test", tool: bool = False) -> AssistantMessage:
    content: list[Any] = [TextContent(type="text", text=text)]
    if tool:
        content.append(ToolCall(type="toolCall", id="call-1", name="read", arguments={"p": 1}))
    return AssistantMessage(
        role="assistant",
        content=content,
        api="anthropic-messages",
        provider="anthropic",
        model=model,
        usage=None,
        stopReason="toolUse" if tool else "stop",
        timestamp=_ms(),
    )


# ------------------------------------------------------------------------------ what pitui reads


def _shape(content: Any) -> Any:
    if isinstance(content, str):
        return "string"
    if isinstance(content, list):
        return [b.get("type") if isinstance(b, dict) else None for b in content]
    return None


def _sha(text: Any) -> str | None:
    return hashlib.sha256(text.encode("utf-8")).hexdigest() if isinstance(text, str) else None


def summarize(m: dict[str, Any]) -> dict[str, Any]:
    """The oracle's per-message digest (pi_oracle.mjs summarizeMessage), computed by pitui."""
    role = m.get("role")
    out: dict[str, Any] = {"role": role, "timestamp": m.get("timestamp")}
    if role == "user":
        out["content"] = _shape(m.get("content"))
    elif role == "assistant":
        out.update(provider=m.get("provider"), model=m.get("model"))
        out.update(stopReason=m.get("stopReason"), content=_shape(m.get("content")))
    elif role == "toolResult":
        out.update(toolCallId=m.get("toolCallId"), toolName=m.get("toolName"))
        out["isError"] = m.get("isError")
    elif role == "branchSummary":
        out.update(fromId=m.get("fromId"), summarySha256=_sha(m.get("summary")))
    elif role == "compactionSummary":
        out.update(tokensBefore=m.get("tokensBefore"), summarySha256=_sha(m.get("summary")))
    elif role == "custom":
        out.update(customType=m.get("customType"), display=m.get("display"))
        out["content"] = _shape(m.get("content"))
    elif role == "bashExecution":
        out.update(command=m.get("command"), exitCode=m.get("exitCode"))
        out["excludeFromContext"] = bool(m.get("excludeFromContext"))
    else:
        out["keys"] = sorted(m)
    return out


def pitui_report(path: str | Path) -> dict[str, Any]:
    """What pitui's reader says about a file, in the oracle's terms."""
    with Session.open(path, final=True) as session:
        context = build_session_context(session)
        messages = context.messages
        return {
            "sessionId": session.id,
            "cwd": session.cwd,
            "name": session.name,
            "leafId": session.leaf_id,
            "branchIds": [m.uid for m in session.branch()],
            "rootIds": [m.uid for m in session.roots],
            "entryCount": len(session.entries),
            "labels": dict(session.labels),
            "labelTimestamps": dict(session.label_times),
            "treePreorder": [[m.uid, depth] for m, depth in session.iter_preorder()],
            "header": session.header,
            "context": {
                "messageCount": len(messages),
                "roles": [m.get("role") for m in messages],
                "messages": [summarize(m) for m in messages],
                "model": context.model.to_json() if context.model else None,
                "thinkingLevel": context.thinking_level,
            },
            "llm": {
                "messageCount": len(to_llm_messages(messages)),
                "roles": [m.get("role") for m in to_llm_messages(messages)],
            },
        }


def assert_pi_reads_what_pitui_reads(pi: dict[str, Any], path: str | Path) -> None:
    assert "error" not in pi, pi.get("error")
    assert pi["openRewrote"] is False, "pi had to rewrite a file pitui wrote"
    assert pi["pathCycle"] is False
    ours = pitui_report(path)
    for key, value in ours.items():
        assert pi[key] == value, f"{Path(path).name}: {key}"


# ------------------------------------------------------------------------------ the files


def kitchen_sink(folder: Path) -> SessionManager:
    """Every entry type the API writes, on several branches."""
    sm = SessionManager.create(CWD, folder)
    sm.append_model_change("openai", "gpt-5")
    sm.append_thinking_level_change("high")
    q1 = sm.append_message(user("first question"))
    a1 = sm.append_message(reply("let me look", tool=True))
    sm.append_message(
        ToolResultMessage(role="toolResult", toolCallId="call-1", toolName="read",
                          content=[TextContent(type="text", text="file body")], isError=False,
                          timestamp=_ms())
    )  # fmt: skip
    sm.append_message(
        BashExecutionMessage(role="bashExecution", command="ls", output="a\nb", exitCode=0,
                             cancelled=False, truncated=False, timestamp=_ms())
    )  # fmt: skip
    sm.append_message(
        BashExecutionMessage(role="bashExecution", command="secret", output="x", exitCode=1,
                             cancelled=False, truncated=False, excludeFromContext=True,
                             timestamp=_ms())
    )  # fmt: skip
    a2 = sm.append_message(reply("here is the answer"))
    sm.append_custom_entry("ext-state", {"counter": 1})
    sm.append_custom_message_entry("ext-note", "a visible note", True, {"source": "test"})
    sm.append_custom_message_entry(
        "ext-hidden", [TextContent(type="text", text="hidden context")], False
    )
    sm.append_session_info("First name")
    sm.append_label_change(q1, "start")
    sm.append_label_change(a2, "answer")
    sm.append_label_change(q1)  # cleared
    sm.append_label_change(q1, "start again")  # set again: moves to the end of pi's label map
    sm.append_session_info("")  # the name is cleared ...
    sm.append_session_info("  Final\nname ")  # ... and set again
    # a second branch from the first answer, with a summary of what was left
    sm.branch_with_summary(a1, "tried the other approach", {"readFiles": []}, False)
    sm.append_message(user("second approach"))
    sm.append_message(reply("second answer", model="claude-other"))
    # a legacy compaction keeping the last exchange
    kept = sm.append_message(user("third question"))
    sm.append_message(reply("third answer"))
    sm.append_compaction("summary of everything", kept, 12345, {"readFiles": ["a"]}, False)
    sm.append_message(user("after compaction"))
    last = sm.append_message(reply("after compaction reply"))
    label_id = sm.append_label_change(last, "tip")
    sm.append_label_change(label_id, "a label on a label")
    return sm


def retained_tail_session(folder: Path, *, legacy_too: bool) -> str:
    sm = SessionManager.create(CWD, folder)
    sm.append_message(user("A"))
    sm.append_message(reply("B"))
    tail = [user("C"), reply("D")]  # the kept messages, materialized as they were appended
    kept = sm.append_message(tail[0])
    sm.append_message(tail[1])
    sm.append_compaction("S", kept if legacy_too else None, 99, retained_tail=tail)
    sm.append_message(user("E"))
    sm.append_message(reply("F"))
    return sm.get_session_file() or ""


def two_roots(folder: Path) -> str:
    sm = SessionManager.create(CWD, folder)
    sm.append_message(user("one"))
    sm.append_message(reply("two"))
    sm.reset_leaf()
    sm.append_message(user("a new first message"))
    sm.append_message(reply("a new answer"))
    sm.branch_with_summary(None, "summary at the root")
    sm.append_message(user("after the root summary"))
    sm.append_message(reply("ok"))
    return sm.get_session_file() or ""


def deferred(folder: Path) -> str:
    sm = SessionManager.create(CWD, folder)
    sm.append_model_change("anthropic", "claude-test")
    sm.append_custom_entry("ext-setup")
    first = sm.append_message(user("typed before any answer"))
    sm.append_label_change(first, "early")
    sm.append_message(reply("the answer that writes the file"))
    return sm.get_session_file() or ""


def migrated_v1(folder: Path) -> str:
    header = {"type": "session", "id": "legacy-1", "timestamp": ts(0), "cwd": CWD}
    entries: list[dict[str, Any]] = [
        {"type": "message", "timestamp": ts(1),
         "message": {"role": "user", "content": "old", "timestamp": 1735689601000}},
        {"type": "message", "timestamp": ts(2),
         "message": {"role": "assistant", "content": [{"type": "text", "text": "reply"}],
                     "provider": "anthropic", "model": "m", "stopReason": "stop",
                     "timestamp": 1735689602000}},
        {"type": "compaction", "timestamp": ts(3), "summary": "s", "tokensBefore": 5,
         "firstKeptEntryIndex": 2},
        {"type": "message", "timestamp": ts(4),
         "message": {"role": "hookMessage", "customType": "hook", "content": "h",
                     "display": True, "timestamp": 1735689604000}},
    ]  # fmt: skip
    path = folder / "v1.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    path.write_bytes(jsonl(*entries, header=header))
    past = time.time() - 3600
    os.utime(path, (past, past))
    sm = SessionManager.open(path)
    first = sm.session.entries[0].uid
    sm.append_label_change(first, "migrated")
    sm.append_message(user("new after migration"))
    return str(path)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("written") / "sessions" / "--home-ana-proj--"
    files: dict[str, str] = {}
    sm = kitchen_sink(folder)
    files["kitchen-sink"] = sm.get_session_file() or ""
    source_ids = [m.uid for m in sm.session.entries]
    answer = source_ids[7]  # "here is the answer", labelled
    files["retained+legacy"] = retained_tail_session(folder, legacy_too=True)
    files["retained-only"] = retained_tail_session(folder, legacy_too=False)
    files["two-roots"] = two_roots(folder)
    files["deferred"] = deferred(folder)
    files["migrated-v1"] = migrated_v1(folder)
    fork = SessionManager.fork_from(files["kitchen-sink"], "/home/ana/other", folder / "other")
    files["fork-from"] = fork.get_session_file() or ""
    files["branched"] = sm.create_branched_session(answer) or ""
    return files


@pytest.fixture(scope="module")
def reports(pi_oracle: PiOracle, written: dict[str, str]) -> dict[str, dict[str, Any]]:
    names = list(written)
    got = pi_oracle.report([written[n] for n in names])
    return dict(zip(names, got, strict=True))


@pytest.mark.parametrize(
    "name",
    ["kitchen-sink", "retained+legacy", "two-roots", "deferred", "migrated-v1", "fork-from",
     "branched"],
)  # fmt: skip
def test_pi_reads_files_written_by_the_manager(
    reports: dict[str, dict[str, Any]], written: dict[str, str], name: str
) -> None:
    assert_pi_reads_what_pitui_reads(reports[name], written[name])


def test_kitchen_sink_covers_what_it_claims(
    reports: dict[str, dict[str, Any]], written: dict[str, str]
) -> None:
    pi = reports["kitchen-sink"]
    counts = pi["entryTypeCounts"]
    for kind in (
        "model_change", "thinking_level_change", "message/user", "message/assistant",
        "message/toolResult", "message/bashExecution", "custom", "custom_message", "label",
        "session_info", "branch_summary", "compaction",
    ):  # fmt: skip
        assert counts.get(kind), kind
    assert pi["name"] == "Final name"
    assert len(pi["labels"]) == 4 and "start again" in pi["labels"].values()
    assert pi["context"]["roles"][0] == "compactionSummary"


def test_retained_tail_is_the_documented_difference(
    reports: dict[str, dict[str, Any]], written: dict[str, str]
) -> None:
    # pi 0.73.1 predates retainedTail (format §10.3 [old]): it expands the compaction without
    # the tail. Everything else must agree; the context differs by exactly the two kept messages.
    pi = reports["retained-only"]
    assert "error" not in pi and pi["openRewrote"] is False
    ours = pitui_report(written["retained-only"])
    for key in ("leafId", "branchIds", "treePreorder", "labels", "header", "name", "rootIds"):
        assert pi[key] == ours[key], key
    assert ours["context"]["roles"] == [
        "compactionSummary",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    ours_without_tail = [ours["context"]["messages"][0], *ours["context"]["messages"][3:]]
    assert pi["context"]["messages"] == ours_without_tail


def test_the_manager_agrees_with_its_file(written: dict[str, str]) -> None:
    sm = SessionManager.open(written["kitchen-sink"])
    ours = pitui_report(written["kitchen-sink"])
    assert sm.get_leaf_id() == ours["leafId"]
    assert [m.role for m in sm.build_session_context().messages] == ours["context"]["roles"]


# ------------------------------------------------------------------------------ the commands


@pytest.fixture(scope="module")
def commanded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Copies of pi's fixtures after the writing commands ran on them."""
    agent = tmp_path_factory.mktemp("cmd") / "agent"
    shutil.copytree(FIXTURES / "pi-written" / "agent", agent)
    sessions = load_expected("pi-written")["sessions"]

    def path_of(scenario: str) -> Path:
        rel: str = next(k for k, r in sessions.items() if r["scenario"] == scenario)
        return agent / rel

    def cli(*argv: str) -> None:
        assert main([*argv, "--force"] if argv[0] != "extract" else list(argv)) == 0, argv

    files: dict[str, str] = {}
    branches = path_of("branches")
    session = Session.open(branches, final=True)
    on_path = {m.uid for m in session.branch()}
    other = next(m for m in session.entries if m.role == "assistant" and m.uid not in on_path)
    cli("label", str(branches), other.uid, "other branch")
    cli("rename", str(branches), "Renamed by pitui")
    cli("switch", str(branches), other.uid)
    files["branches+label+rename+switch"] = str(branches)
    labels = path_of("labels")
    first_answer = next(
        m for m in Session.open(labels, final=True).entries if m.role == "assistant"
    )
    cli("switch", str(labels), first_answer.uid, "--summary", "back to the start")
    files["labels+switch-summary"] = str(labels)
    root_user = path_of("reset-leaf-second-root")
    root = next(m for m in Session.open(root_user, final=True).roots if m.role == "user")
    cli("switch", str(root_user), root.uid)  # resumes before the first message: a new root
    files["switch-to-root"] = str(root_user)
    compaction = path_of("compaction")
    target = Session.open(compaction, final=True).entries[1].uid
    cli("label", str(compaction), target, "before the compaction")
    cli("label", str(compaction), target, "--clear")
    files["compaction+label+clear"] = str(compaction)
    out = agent / "extracted.jsonl"
    cli("extract", str(branches), other.uid, "-o", str(out))
    files["extract"] = str(out)
    # shapes of files from other tools (issues 20.2, 24.3): pitui ends the complete last line
    # that lacks its newline in the same write, and writes after a blank first line
    minimal = path_of("minimal").read_bytes()
    unended = agent / "unended.jsonl"
    unended.write_bytes(minimal.rstrip(b"\n"))
    blank_first = agent / "blank-first-line.jsonl"
    blank_first.write_bytes(b"\n" + minimal)
    past = time.time() - 3600
    for path in (unended, blank_first):
        os.utime(path, (past, past))
    cli("rename", str(unended), "Ended by pitui")
    files["no-final-newline+rename"] = str(unended)
    first = Session.open(blank_first, final=True).entries[0].uid
    cli("label", str(blank_first), first, "after a blank line")
    cli("rename", str(blank_first), "Blank first line")
    files["blank-first-line+label+rename"] = str(blank_first)
    return files


def test_pi_reads_files_the_commands_wrote(pi_oracle: PiOracle, commanded: dict[str, str]) -> None:
    names = list(commanded)
    for name, pi in zip(names, pi_oracle.report([commanded[n] for n in names]), strict=True):
        assert_pi_reads_what_pitui_reads(pi, commanded[name])
