"""The data picker: "Use an input" offers what earlier groups give back, picking one declares it as
an input of the group; inputs inside text are marks and removable chips, never `$args.`."""

from __future__ import annotations

from nicegui.testing import User
from support.editor import R, add_tool, choose, element, find, one_group, save
from support.ui import app_ctx


async def _two_groups(user: User) -> None:
    """Group 1 (g1) gives `summary · text` from its echo; group 2 (g2) has an echo and no inputs."""
    await one_group(user)
    find(user, "group-1", "add-output").click()
    find(user, "group-1", "out-1", "slot-name").type("summary")
    choose(user, ("group-1", "tool-1", "save-to"), "summary · text")
    user.find(marker="add-group").click()
    find(user, "group-2", "group-name").type("g2")
    await add_tool(user, "group-2", "echo")


async def test_use_an_input_offers_what_an_earlier_group_gives_and_declares_it(user: User) -> None:
    await _two_groups(user)
    find(user, "group-2", "tool-1", "arg-value-mode").click()
    with user.client:
        element(user, "group-2", "tool-1", "arg-value-mode").value = "input"
    choose(user, ("group-2", "tool-1", "arg-value-input"), "Group 1 › summary · text")
    await user.should_see(marker="in-1", retries=R)
    assert element(user, "group-2", "in-1", "slot-name").value == "summary"
    assert element(user, "group-2", "in-1", "slot-type").value == "string"
    assert element(user, "group-2", "tool-1", "arg-value-input").value == "summary"
    await save(user)
    await user.should_see("Saved 's1'", retries=R)
    stored = await app_ctx().engine.get("s1")
    assert stored is not None
    assert stored.groups[1].tools[0].args == {"value": "$args.summary"}
    assert "summary" in stored.groups[1].in_


async def test_putting_an_earlier_result_in_text_declares_it_and_shows_a_removable_chip(user: User) -> None:
    await _two_groups(user)
    find(user, "group-2", "tool-1", "arg-value-value").type("got")
    find(user, "group-2", "tool-1", "arg-value-insert").click()
    await user.should_see(marker="insert-summary", retries=R)
    user.find(marker="insert-summary").click()
    await user.should_see(marker="in-1", retries=R)
    field = element(user, "group-2", "tool-1", "arg-value-value")
    assert field.value == "got ⤷summary"
    assert "$args" not in field.value
    await user.should_see("⤷ summary", retries=R)
    with user.client:
        chip = element(user, "group-2", "tool-1", "chip-summary")
        chip.value = False  # the chip's ✕
    assert field.value == "got"
    await user.should_not_see(marker="chip-summary", retries=R)


async def test_typing_a_mark_stores_the_reference(user: User) -> None:
    await one_group(user)
    find(user, "group-1", "add-input").click()
    find(user, "group-1", "in-1", "slot-name").type("host")
    with user.client:
        element(user, "group-1", "tool-1", "arg-value-value").value = "hi ⤷host"
    await save(user)
    await user.should_see("Saved 's1'", retries=R)
    stored = await app_ctx().engine.get("s1")
    assert stored is not None and stored.groups[0].tools[0].args == {"value": "hi $args.host"}


async def test_a_new_tool_saves_into_the_first_output_nothing_writes_yet(user: User) -> None:
    await one_group(user)  # its echo came before any output
    find(user, "group-1", "add-output").click()
    find(user, "group-1", "out-1", "slot-name").type("a")
    find(user, "group-1", "add-output").click()
    find(user, "group-1", "out-2", "slot-name").type("b")
    await add_tool(user, "group-1", "echo")
    await add_tool(user, "group-1", "echo")
    await add_tool(user, "group-1", "echo")
    values = [element(user, "group-1", f"tool-{n}", "save-to").value for n in (1, 2, 3, 4)]
    assert values == [None, "a", "b", None]


async def test_a_rule_on_a_text_input_starts_as_is_not_empty(user: User) -> None:
    await one_group(user)
    find(user, "group-1", "add-input").click()
    find(user, "group-1", "in-1", "slot-name").type("host")
    find(user, "group-1", "add-rule").click()
    assert element(user, "group-1", "cond-1", "cond-op").value == "!="
    await user.should_see("Runs if: host is not empty", retries=R)


async def test_an_input_the_person_gives_an_earlier_group_can_be_picked_too(user: User) -> None:
    await _two_groups(user)
    find(user, "group-1", "add-input").click()
    find(user, "group-1", "in-1", "slot-name").type("host")
    with user.client:
        element(user, "group-2", "tool-1", "arg-value-mode").value = "input"
    choose(user, ("group-2", "tool-1", "arg-value-input"), "Group 1 › host · text (you give it when you run)")
    await user.should_see(marker="in-1", retries=R)
    assert element(user, "group-2", "in-1", "slot-name").value == "host"
