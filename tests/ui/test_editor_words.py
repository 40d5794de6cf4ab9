"""Words on the editor's visual view: never the format's `null`, `cwd`, `string`, `$args` or
"(none declared)", wherever a person reads (text, labels, hints, placeholders, choices)."""

from __future__ import annotations

import json
import re

from nicegui import ui
from nicegui.testing import User
from support.editor import R, find
from support.ui import app_ctx

from gui.core.sequences.help import EXAMPLE

FORBIDDEN = re.compile(r"\bnull\b|\bcwd\b|\bstring\b|\$args|\(none declared\)|\bNone\b")


def _said(user: User) -> list[str]:
    """Every text a person can read on the page, the text view and the format help aside."""
    out: list[str] = []
    for el in user.client.layout.descendants():
        if not el.visible or any(m in ("text-view", "help-text") for m in el._markers):
            continue
        for key in ("text", "label", "hint", "placeholder", "error-message"):
            value = el.props.get(key) if key != "text" else getattr(el, "text", None)
            if isinstance(value, str):
                out.append(value)
        options = getattr(el, "options", None)
        if isinstance(el, ui.select) and isinstance(options, dict):
            out.extend(str(v) for v in options.values())
    return out


async def test_the_example_in_the_visual_editor_says_no_format_words(user: User) -> None:
    await app_ctx().engine.create(json.loads(EXAMPLE))
    await user.open("/sequences/check-three-nodes/edit")
    await user.should_see(marker="group-2", retries=R)
    find(user, "group-1", "tool-1", "more-options").click()
    bad = [text for text in _said(user) if FORBIDDEN.search(text)]
    assert bad == []


async def test_a_broken_draft_says_its_problems_in_plain_words(user: User) -> None:
    await app_ctx().engine.create(json.loads(EXAMPLE))
    await user.open("/sequences/check-three-nodes/edit")
    await user.should_see(marker="group-2", retries=R)
    with user.client:
        row = next(iter(find(user, "group-2", "in-1", "slot-type").elements))
        row.value = "number"  # host is text in group 1 and a number here: a signature conflict
    user.find(marker="save").click()
    await user.should_see(marker="problem-list", retries=R)
    bad = [text for text in _said(user) if FORBIDDEN.search(text)]
    assert bad == []
