"""The built-in demo store: a realistic pi agent directory, written by pitui's own writer.

``pitui --demo`` browses it when a user has no pi sessions yet, so every feature can be tried on
data that cannot be lost. Five fictional projects (none of the folders exist on disk), 30 sessions
of coding-agent work spread over the three months before ``base_time``: tool calls with outputs
that agree with each other (a small in-memory workspace answers ``read``/``ls``/``grep``/``find``/
``edit``/``write``), branches (edit-and-resubmit, regenerate, branch summaries), labels (one
cleared), names, model and thinking-level changes, two kinds of compaction, ``custom`` and
``custom_message`` entries, a ``bashExecution``, an image, error/aborted/length stop reasons,
usage with costs, forks (``fork_from`` and ``create_branched_session``, so the threaded picker shows
a tree) and a session whose text looks like Rich markup and holds an ANSI escape.

The conversations are data: one TOML file per session in ``scenarios/`` (the format is described
in :mod:`pitui.demo.scenario`), the projects' files in ``workspaces/``. :mod:`pitui.demo.builder`
plays them through :class:`pitui.core.manager.SessionManager` with an injected clock and random
source: with a fixed ``base_time`` two builds are byte-identical (screenshots are reproducible).

Example::

    demo = ensure_demo_store()
    Store(agent=demo.agent_dir, cwd=demo.cwd)
"""

from pitui.demo.store import (
    GENERATOR_VERSION,
    MARKER_NAME,
    PROJECTS,
    REFRESH_AFTER,
    DemoStore,
    DemoStoreError,
    demo_agent_dir,
    ensure_demo_store,
    read_demo_store,
    write_demo_store,
)

__all__ = [
    "GENERATOR_VERSION",
    "MARKER_NAME",
    "PROJECTS",
    "REFRESH_AFTER",
    "DemoStore",
    "DemoStoreError",
    "demo_agent_dir",
    "ensure_demo_store",
    "read_demo_store",
    "write_demo_store",
]
