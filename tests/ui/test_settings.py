"""Settings (`/settings`): approval modes, the data folder, MCP servers."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from nicegui.testing import User
from support.ui import app_ctx, mcp_store
from support.waiting import wait_until

from gui.core.door import McpServerSpec


async def test_tools_that_need_approval_are_listed_with_their_mode(user: User):
    await user.open("/settings")
    await user.should_see(marker="approval-cmd_run")
    await user.should_see(marker="approval-file_write")
    await user.should_not_see(marker="approval-echo")
    await user.should_see("Asks every time")


async def test_revoking_always_allow_makes_the_tool_ask_again(user: User):
    engine = app_ctx().engine
    engine.modes.set("cmd_run", "always-allow")
    await user.open("/settings")
    await user.should_see("Always allowed")
    user.find(marker="revoke-cmd_run").click()
    await user.should_not_see("Always allowed", retries=50)
    assert engine.modes.get("cmd_run") == "ask"
    await user.should_see(marker="approval-cmd_run")


async def test_the_data_folder_says_in_memory_when_nothing_is_saved(user: User):
    await user.open("/settings")
    await user.should_see("In memory: nothing is kept after the app closes.")


async def test_an_mcp_server_can_be_added_and_removed(user: User):
    await user.open("/settings")
    await user.should_see("No MCP servers yet.", retries=20)
    user.find(marker="mcp-name").type("time")
    user.find(marker="mcp-command").type("uvx mcp-server-time --local-timezone UTC")
    user.find(marker="mcp-add").click()
    await user.should_see(marker="mcp-time", retries=50)
    await user.should_see("uvx mcp-server-time --local-timezone UTC")
    user.find(marker="mcp-remove-time").click()
    user.find(marker="mcp-confirm-remove").click()
    await user.should_see("No MCP servers yet.", retries=50)


def field(user: User, marker: str) -> Any:
    (element,) = user.find(marker=marker).elements
    return element


async def test_an_mcp_server_form_says_each_problem_at_its_field_an_empty_command_too(user: User):
    await user.open("/settings")
    user.find(marker="mcp-name").type("Bad Name")
    user.find(marker="mcp-add").click()
    await wait_until(lambda: field(user, "mcp-command").error, "the command's problem", timeout=5)
    # both at once, each at its own field, before anything is saved: the command left empty too
    assert field(user, "mcp-name").error == "use 1 to 40 lowercase letters, digits, _ or -"
    assert field(user, "mcp-command").error == "Enter the command that starts the server, such as uvx mcp-server-time"
    assert field(user, "mcp-name").props["error"] is True and "error-message" in field(user, "mcp-command").props
    await user.should_not_see(marker="mcp-problems")  # nothing under the form: it is all at the fields
    user.find(marker="mcp-name").clear().type("good")  # an edit takes its field's problem away
    assert field(user, "mcp-name").error is None
    field(user, "mcp-command").error = None  # to see it said again
    user.find(marker="mcp-add").click()
    await wait_until(lambda: field(user, "mcp-command").error, "the command's problem", timeout=5)
    assert field(user, "mcp-name").error is None
    assert field(user, "mcp-command").error.startswith("Enter the command that starts the server")
    user.find(marker="mcp-env").type("NOT A PAIR")
    user.find(marker="mcp-command").type("uvx x")
    user.find(marker="mcp-add").click()
    await wait_until(lambda: field(user, "mcp-env").error, "the environment's problem", timeout=5)
    assert field(user, "mcp-command").error is None
    assert field(user, "mcp-env").error == "write KEY=value on each line, not: NOT A PAIR"
    assert await mcp_store().list() == []


async def test_a_taken_server_name_is_said_at_the_name(user: User):
    await user.open("/settings")
    for attempt in range(2):
        user.find(marker="mcp-name").type("twice")
        user.find(marker="mcp-command").type("uvx nothing-here")
        user.find(marker="mcp-add").click()
        if attempt == 0:
            await user.should_see(marker="mcp-twice", retries=50)
    await wait_until(lambda: "already there" in (field(user, "mcp-name").error or ""), "the name's problem", timeout=5)
    await user.should_not_see(marker="mcp-problems")


TIME_COMMAND = f"{sys.executable} -m mcp_server_time"


async def add_server(user: User, name: str, command: str) -> None:
    user.find(marker="mcp-name").type(name)
    user.find(marker="mcp-command").type(command)
    user.find(marker="mcp-add").click()
    await user.should_see(marker=f"mcp-{name}", retries=50)


async def test_a_server_says_it_is_connected_lists_its_tools_and_they_leave_the_palette_when_removed(user: User):
    await user.open("/settings")
    await add_server(user, "time", TIME_COMMAND)
    assert next(iter(user.find(marker="mcp-name").elements)).value == ""  # the form is ready for the next one
    await user.should_see("Connected · 2 tools", retries=300)
    await user.should_see("time.get_current_time")

    await user.open("/sequences/new")
    user.find(marker="add-first-group").click()
    user.find(marker="add-tool").click()
    await user.should_see(marker="palette-time.get_current_time", retries=50)

    await user.open("/settings")
    await user.should_see(marker="mcp-remove-time", retries=100)  # the list is drawn once the page is up
    user.find(marker="mcp-remove-time").click()
    user.find(marker="mcp-confirm-remove").click()
    await user.should_see("Removed time", retries=100)  # said once the server has stopped
    assert app_ctx().engine.registry.get("time.get_current_time") is None
    await user.open("/sequences/new")  # the unsaved draft from before comes back, with its group
    await user.should_see(marker="add-tool", retries=50)
    user.find(marker="add-tool").click()
    await user.should_see(marker="palette-echo", retries=50)
    await user.should_not_see(marker="palette-time.get_current_time")


async def test_a_server_that_cannot_start_says_why(user: User):
    await user.open("/settings")
    await add_server(user, "nothing", "/no/such/program --flag")
    await user.should_see("Not reachable", retries=100)
    await user.should_see("No such file", retries=50)


async def test_the_trusted_switch_is_explained_in_words_and_saved(user: User):
    await user.open("/settings")
    await add_server(user, "nothing", "/no/such/program")
    await user.should_see("Believe this server when it says a tool only reads")
    await user.should_see(marker="mcp-trust-words-nothing", content="Off: every one of its tools asks")
    user.find(marker="mcp-trust-nothing").click()
    await user.should_see(marker="mcp-trust-words-nothing", content="On: tools it marks as only reading",
                          retries=50)
    (config,) = await mcp_store().list()
    assert config.trusted is True


LINGERING_COMMAND = f"{sys.executable} {Path(__file__).parents[1] / 'mcp' / 'elicit_server.py'} --linger"


async def test_removing_a_server_that_will_not_exit_is_said_when_it_leaves_the_list(user: User):
    """The server ignores its closed stdin and SIGTERM, so closing it takes seconds while the page's 1 s
    timer watches the connections. The list may be redrawn only once the remove handler is done: redrawn
    under it, it deletes the dialog the handler runs in, and the handler's notice cannot be shown."""
    manager = app_ctx().runtime.mcp
    await user.open("/settings")
    await add_server(user, "stuck", LINGERING_COMMAND)
    await user.should_see(marker="mcp-tools-stuck", retries=300)
    user.find(marker="mcp-remove-stuck").click()
    user.find(marker="mcp-confirm-remove").click()
    try:
        await user.should_not_see(marker="mcp-stuck", retries=300)
        assert user.notify.contains("Removed stuck")  # said by then, not later
        await user.should_see("No MCP servers yet.")
        assert not [n for n in app_ctx().engine.registry.names() if n.startswith("stuck.")]
    finally:
        await asyncio.wait_for(manager.stop(), 15.0)  # the close still under way ends (the SDK kills it)


async def test_the_list_is_drawn_once_and_never_redrawn_under_an_open_remove_dialog(user: User):
    await user.open("/settings")
    await add_server(user, "nothing", "/no/such/program")
    conn = app_ctx().runtime.mcp.get("nothing")
    await conn.wait_for("down", timeout=15.0)
    assert len(user.find(marker="mcp-nothing").elements) == 1  # two redraws at once drew it twice
    user.find(marker="mcp-remove-nothing").click()
    # It keeps retrying (after 1 s, then 2 s): each attempt changes its state, and between the last two
    # states below lie at least 1 s, one tick of the page's timer at the least.
    for status in ("connecting", "down", "connecting"):
        await conn.wait_for(status, timeout=15.0)
    user.find(marker="mcp-confirm-remove").click()  # the dialog is still there
    await user.should_see("Removed nothing", retries=100)
    await user.should_see("No MCP servers yet.")


async def test_a_server_added_through_the_api_appears_turned_off_and_runs_only_once_turned_on_here(user: User):
    await user.open("/settings")
    await user.should_see("No MCP servers yet.", retries=20)
    parts = TIME_COMMAND.split()
    answer = await user.http_client.post("/api/mcp/servers", json={
        "name": "time", "command": parts[0], "args": parts[1:], "env": {"TZ": "UTC"}, "cwd": str(Path.cwd())})
    assert answer.status_code == 201, answer.text
    await user.should_see(marker="mcp-time", retries=50)  # the page heard of it: no reload
    await user.should_see("Turned off")
    await user.should_see(TIME_COMMAND)  # all that decides what it runs, before anyone turns it on
    await user.should_see(marker="mcp-env-time", content="With the environment variables TZ")
    await user.should_see(marker="mcp-cwd-time", content=f"Runs in the folder {Path.cwd()}")
    await user.should_see(marker="mcp-enabled-words-time", content="Off: SeqDesk does not start this program")
    assert app_ctx().engine.registry.get("time.get_current_time") is None
    user.find(marker="mcp-enabled-time").click()
    await user.should_see("time: turned on", retries=50)
    await user.should_see("Connected · 2 tools", retries=300)
    (config,) = await mcp_store().list()
    assert config.enabled is True and config.trusted is False


async def add_server_elsewhere(name: str, command: str) -> None:
    """A server added on the computer (through the door, as Settings there would)."""
    await app_ctx().engine.add_mcp_server(McpServerSpec(name=name, command=command))


async def test_on_a_paired_phone_the_servers_are_shown_and_nothing_can_be_changed(user: User, monkeypatch):
    monkeypatch.setattr("gui.ui.pages.settings.on_phone", lambda: True)
    await user.open("/settings")
    await add_server_elsewhere("nothing", "/no/such/program")
    await user.open("/settings")
    await user.should_see(marker="mcp-nothing", retries=50)
    await user.should_see("Servers are added and changed on the computer SeqDesk runs on.")
    for control in ("mcp-add-section", "mcp-name", "mcp-remove-nothing"):
        await user.should_not_see(marker=control)
    for switch in ("mcp-trust-nothing", "mcp-enabled-nothing", "mcp-protocol-nothing"):
        (element,) = user.find(marker=switch).elements
        assert not element.enabled
