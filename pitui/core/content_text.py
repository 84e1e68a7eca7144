"""The text of a message's ``content`` (raw JSON), by pi's two rules.

- :func:`joined_text`: the picker's (format §12.2, pi's ``extractTextContent``): the ``text`` of
  every text block joined with one space, each written as JavaScript's ``Array.join`` does.
- :func:`concat_text`: the tree's (ui-behaviour §3.6): the string texts of the text blocks
  concatenated without a separator.

A string content is itself in both; anything else has no text. :mod:`pitui.core.models` applies
the same rules to parsed messages.
"""

from __future__ import annotations

from typing import Any

from pitui.core.js import js_join

__all__ = ["concat_text", "joined_text"]


def joined_text(content: Any) -> str:
    """pi's ``extractTextContent``: a string as is; for a list, the ``text`` of every block whose
    ``type`` is ``"text"``, joined with one space exactly like pi's ``filter/map/join`` (a block
    without ``text`` adds an empty piece). Not trimmed. Anything else has no text (pi would
    throw and drop the whole file)."""
    if isinstance(content, str):
        return content
    if type(content) is not list:
        return ""
    texts = [
        block.get("text")
        for block in content
        if type(block) is dict and block.get("type") == "text"
    ]
    return js_join(texts, " ")


def concat_text(content: Any) -> str:
    """The tree's text of a content: a string as is, or the string texts of its text blocks
    concatenated without a separator (cutting is left to the caller)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str):
                texts.append(text)
    return "".join(texts)
