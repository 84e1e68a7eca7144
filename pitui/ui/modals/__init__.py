"""One modal dialog per module, each returning a typed result."""

from __future__ import annotations

from collections.abc import Callable


def call_if(answer: object, then: Callable[[], object]) -> None:
    """A modal's callback: run ``then`` when the answer is a yes (true, a non-empty text)."""
    if answer:
        then()
