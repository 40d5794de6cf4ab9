"""Helpers the editor's tests share: finding fields by their marks, typing, saving."""


from __future__ import annotations

import json
from contextlib import ExitStack
from typing import Any

from nicegui.testing import User
from nicegui.testing.user_interaction import UserInteraction

R = 50


def find(user: User, *path: str) -> UserInteraction:
    """The element at the end of a marker path, each marker looked up inside the previous one."""
    with ExitStack() as stack:
        for marker in path[:-1]:
            stack.enter_context(user.scope(marker=marker))
        return user.find(marker=path[-1])


def element(user: User, *path: str) -> Any:
    found = find(user, *path).elements
    assert len(found) == 1, f"{path}: {len(found)} elements"
    return next(iter(found))


def choose(user: User, path: tuple[str, ...], label: str) -> None:
    """Open a select and click the option with this label."""
    interaction = find(user, *path)
    interaction.click()
    UserInteraction(user, interaction.elements, label).click()


def set_value(user: User, path: tuple[str, ...], value: Any) -> None:
    """What a person's click on a toggle or typing a whole new value does."""
    with user.client:
        element(user, *path).value = value


def error_of(user: User, *path: str) -> str:
    el = element(user, *path)
    if el.props.get("error"):
        return str(el.props.get("error-message") or "")
    return ""


async def add_tool(user: User, group: str, tool: str) -> None:
    find(user, group, "add-tool").click()
    await user.should_see(marker=f"palette-{tool}", retries=R)
    user.find(marker=f"palette-{tool}").click()


async def save(user: User) -> None:
    user.find(marker="save").click()


async def new_editor(user: User) -> None:
    await user.open("/sequences/new")
    await user.should_see(marker="add-first-group", retries=R)


def write_tools_text(user: User, tools: str) -> None:
    """The first group's tools written as text in the text view, then back to the visual editor."""
    user.find(marker="view-text").click()
    doc = json.loads(element(user, "text-view").value)
    doc["groups"][0]["tools"] = tools
    set_value(user, ("text-view",), json.dumps(doc, indent=2))
    user.find(marker="view-visual").click()


async def one_group(user: User, name: str = "g1") -> None:
    """A new sequence `s1` with one group holding one echo tool: a valid start to break on purpose."""
    await new_editor(user)
    user.find(marker="seq-name").type("s1")
    user.find(marker="add-first-group").click()
    find(user, "group-1", "group-name").type(name)
    await add_tool(user, "group-1", "echo")
    find(user, "group-1", "tool-1", "arg-value-value").type("hi")
