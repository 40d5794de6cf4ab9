"""The MCP servers the person added: where each one is, whether it is connected now, which tools it
brings, and whether its word about its own tools is believed.

Each server comes as the door shows it (`McpServerView`: no secret in it), with its connection
(none: "Not connected in this session"). A server that is down says why (its last error) and when it is
tried again. "Trusted" is a switch in plain words: a server describes its own tools, and only a
trusted server's "this tool only reads" lets that tool run without asking. Removing asks first:
its tools disappear from the palette and from sequences.

A server at a web address that refused SeqDesk (it needs a sign-in, or other headers) is not tried
again by itself: its row says so and offers "Sign in" (the page starts the server's sign-in in the
browser) and "Try again". Its headers are shown by name only (their values are secrets), and how
SeqDesk talks to it (automatic, or the older way some servers need) can be changed here; the
protocol version it agreed on is shown beside its state. Its sign-in client (a Client ID made for
SeqDesk in the server's console, and whether a secret is kept) is shown and changed with
"Change sign-in" (`mcp_sign_in_client`). "Use this server" turns it on or off: a server added
through the API is kept off until a person turns it on here, where the command it runs is shown.

The list only draws: every change goes through the callbacks (the card calls the door). Without
a callback its control is not offered (a paired phone sees the list, and changes nothing).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from nicegui import ui

from gui.core.door import McpServerView
from gui.i18n import DATA, N_, _, format_number, ngettext
from gui.ui.components.run.status import duration_words
from gui.ui.components.settings.mcp_sign_in_client import (
    ClientChange,
    client_words,
    close_or_say,
    edit_sign_in_client,
)

STATE_LOOKS = {
    "connected": ("check_circle", "text-green-700 dark:text-green-400"),
    "connecting": ("sync", "text-blue-600 dark:text-blue-400"),
    "down": ("error", "text-red-600 dark:text-red-400"),
    "disabled": ("pause_circle", "text-gray-500 dark:text-gray-400"),
}
UNKNOWN = ("link_off", "text-gray-500 dark:text-gray-400")

TRUST_LABEL = N_("Believe this server when it says a tool only reads")
TRUST_HELP = N_("On: tools it marks as only reading run without asking you, unless they also say they reach "
                "outside this computer (a fetch). Off: every one of its tools asks before it runs. Turn it "
                "on only for a server you trust: any server can call a tool that deletes things "
                "\u201conly reading\u201d.")
TRUST_ON = N_("On: tools it marks as only reading run without asking you, unless they also say they reach "
              "outside this computer (a fetch); the others ask first.")
SIDE_BY_SIDE_LABEL = N_("Its tools may run at the same time")
SIDE_BY_SIDE_ON = N_("On: a group's calls to its tools run at the same time, each on its own (a fan-out to many "
                     "hosts). Each still asks first as set above.")
SIDE_BY_SIDE_OFF = N_("Off: its tools run one by one in a group, unless it is trusted and says a tool only reads.")
TRUST_OFF = N_("Off: every one of its tools asks before it runs.")
PROTOCOLS = {"auto": N_("Automatic"), "legacy": N_("Older servers")}
PROTOCOL_LABEL = N_("How to talk to it")
PROTOCOL_HELP = N_("Automatic uses the newest way both sides know. Choose \u201cOlder servers\u201d if this "
                   "server's tools that ask you questions fail.")
# The failures seen most (the web library's and the MCP client's own English words): in the page's
# language; any other failure is shown as it was reported.
KNOWN_FAILURES = frozenset({N_("ConnectError: All connection attempts failed"),
                            N_("the server closed the connection")})
SIGN_IN_HELP = N_("Sign in opens the server's own sign-in page; you come back here afterwards.")
ENABLED_LABEL = N_("Use this server")
ENABLED_OFF = {"stdio": N_("Off: SeqDesk does not start this program. Turned on, it runs the command above on this "
                           "computer."),
               "http": N_("Off: SeqDesk does not connect to this address.")}


def protocol_choices() -> dict[str, str]:
    """The protocol toggle's choices in the page's language."""
    return {key: _(words) for key, words in PROTOCOLS.items()}


def protocol_words(state: Any | None) -> str | None:
    """The protocol version the server agreed on, while connected."""
    if state is None or state.status != "connected" or not state.protocol:
        return None
    return _("protocol version {version}").format(version=state.protocol)


def failure_words(error: str | None) -> str:
    if not error:
        return _("no reason given")
    return _(error) if error in KNOWN_FAILURES else error


def state_words(state: Any | None) -> str:
    if state is None:
        return _("Not connected in this session")
    if state.status == "connected":
        n = len(state.tools)
        return ngettext("Connected · {n} tool", "Connected · {n} tools", n).format(n=format_number(n))
    if state.status == "connecting":
        return _("Connecting…")
    if getattr(state, "needs_sign_in", False):
        return _("This server needs you to sign in. SeqDesk does not try again until you sign in or ask it to.")
    if state.status == "down":
        retry = _(" · trying again in {wait}").format(wait=duration_words(state.retry_in)) if state.retry_in else ""
        return _("Not reachable: {problem}").format(problem=failure_words(state.last_error)) + retry
    return _("Turned off")


class McpServerList(ui.column):
    def __init__(self, servers: list[McpServerView],
                 on_remove: Callable[[str], Awaitable[None]] | None = None,
                 on_trust: Callable[[str, bool], Awaitable[None]] | None = None, *,
                 on_enabled: Callable[[str, bool], Awaitable[None]] | None = None,
                 on_sign_in: Callable[[str], Awaitable[None]] | None = None,
                 on_retry: Callable[[str], Awaitable[None]] | None = None,
                 on_protocol: Callable[[str, str], Awaitable[None]] | None = None,
                 on_side_by_side: Callable[[str, bool], Awaitable[None]] | None = None,
                 on_headers: Callable[[str, str], Awaitable[str | None]] | None = None,
                 on_client: ClientChange | None = None,
                 secrets_where: str = N_("kept apart from the settings")) -> None:
        super().__init__()
        self.classes("w-full gap-0")
        self._on_remove = on_remove
        self._on_trust = on_trust
        self._on_enabled = on_enabled
        self._on_sign_in = on_sign_in
        self._on_retry = on_retry
        self._on_protocol = on_protocol
        self._on_side_by_side = on_side_by_side
        self._on_headers = on_headers
        self._on_client = on_client
        self._secrets_where = secrets_where
        self.asking = False  # a "Remove?" dialog is open: the page does not redraw the list under it
        with self:
            if not servers and on_remove is not None:  # only where one can be added (not on a phone)
                ui.label(_("No MCP servers yet. Add one below to use its tools in your sequences.")).classes(
                    "text-gray-600 dark:text-gray-400")
            for server in servers:
                self._row(server)

    def _row(self, server: McpServerView) -> None:
        state = server.state
        icon, colour = STATE_LOOKS.get(state.status if state else "", UNKNOWN)
        with ui.column().classes("w-full gap-1 py-3 border-b border-gray-200 dark:border-gray-700").mark(
                f"mcp-{server.name}"):
            with ui.row(wrap=False).classes("w-full items-start gap-4"):
                with ui.column().classes("gap-0 grow min-w-0"):
                    ui.label(server.name).classes(f"font-mono font-medium {DATA}")
                    ui.label(server.describe()).classes(
                        f"text-sm font-mono text-gray-600 dark:text-gray-400 break-all {DATA}")
                    self._program(server)
                if server.transport == "http" and self._on_headers is not None:
                    key = ui.button(icon="key", on_click=lambda s=server: self._edit_headers(s)).props(
                        "flat dense round").tooltip(_("Change headers"))
                    key.props["aria-label"] = _("Change headers of {name}").format(name=server.name)
                    key.mark(f"mcp-change-headers-{server.name}")
                if server.transport == "http" and self._on_client is not None:
                    client = ui.button(icon="badge", on_click=lambda s=server: self._edit_client(s)).props(
                        "flat dense round").tooltip(_("Change sign-in"))
                    client.props["aria-label"] = _("Change how SeqDesk signs in to {name}").format(name=server.name)
                    client.mark(f"mcp-change-client-{server.name}")
                if self._on_remove is not None:
                    bin_button = ui.button(icon="delete", on_click=lambda n=server.name: self._confirm(n)).props(
                        "flat dense round").tooltip(_("Remove this server"))
                    bin_button.props["aria-label"] = _("Remove {name}").format(name=server.name)
                    bin_button.mark(f"mcp-remove-{server.name}")
            if state is not None and getattr(state, "needs_sign_in", False):
                icon, colour = "lock", "text-orange-700 dark:text-orange-300"
            with ui.row(wrap=False).classes(f"items-start gap-1 {colour}").mark(f"mcp-state-{server.name}"):
                ui.icon(icon).classes("mt-0.5")
                ui.label(state_words(state)).classes("text-sm break-words")
                version = protocol_words(state)
                if version:
                    ui.label(f"· {version}").classes("text-sm text-gray-600 dark:text-gray-400 "
                                                     "whitespace-nowrap").mark(f"mcp-protocol-version-{server.name}")
            if state is not None and state.status == "down":
                self._down_actions(server, state)
            if server.transport == "http":
                self._headers(server)
                client_words(server)
            if state is not None and state.status == "connected" and state.tools:
                with ui.row().classes("items-center gap-1").mark(f"mcp-tools-{server.name}"):
                    ui.label(_("Its tools:")).classes("text-xs text-gray-600 dark:text-gray-400")
                    for tool in state.tools:
                        name = tool if tool.startswith(f"{server.name}.") else f"{server.name}.{tool}"
                        ui.label(name).classes(
                            f"text-xs font-mono px-2 rounded bg-gray-100 dark:bg-gray-800 {DATA}")
            self._enabled(server)
            switch = ui.switch(_(TRUST_LABEL), value=server.trusted).props("dense").classes("text-sm").mark(
                f"mcp-trust-{server.name}")
            switch.on_value_change(lambda e, n=server.name: self._trust(n, bool(e.value)))
            switch.set_enabled(self._on_trust is not None)
            ui.label(_(TRUST_ON) if server.trusted else _(TRUST_OFF)).classes(
                "text-xs text-gray-600 dark:text-gray-400 pl-10").mark(f"mcp-trust-words-{server.name}")
            beside = ui.switch(_(SIDE_BY_SIDE_LABEL), value=server.side_by_side).props("dense").classes(
                "text-sm").mark(f"mcp-side-by-side-{server.name}")
            beside.on_value_change(lambda e, n=server.name: self._side_by_side(n, bool(e.value)))
            beside.set_enabled(self._on_side_by_side is not None)
            ui.label(_(SIDE_BY_SIDE_ON) if server.side_by_side else _(SIDE_BY_SIDE_OFF)).classes(
                "text-xs text-gray-600 dark:text-gray-400 pl-10").mark(f"mcp-side-by-side-words-{server.name}")
            with ui.row(wrap=False).classes("items-center gap-3 pt-1"):
                ui.label(_(PROTOCOL_LABEL)).classes("text-sm")
                choice = ui.toggle(protocol_choices(), value=server.protocol).props(
                    "dense no-caps unelevated").classes("text-sm").mark(f"mcp-protocol-{server.name}")
                choice.tooltip(_(PROTOCOL_HELP))
                choice.on_value_change(lambda e, n=server.name: self._protocol(n, str(e.value)))
                choice.set_enabled(self._on_protocol is not None)

    def _program(self, server: McpServerView) -> None:
        """What else decides what a program server runs: its folder, and its environment by name (the
        values may be keys): a server added from outside Settings is checked here before it is turned on."""
        if server.cwd:
            ui.label(_("Runs in the folder {folder}").format(folder=server.cwd)).classes(
                "text-xs text-gray-600 dark:text-gray-400 break-all").mark(f"mcp-cwd-{server.name}")
        if server.env:
            ui.label(_("With the environment variables {names}").format(names=", ".join(server.env))).classes(
                "text-xs text-gray-600 dark:text-gray-400 break-all").mark(f"mcp-env-{server.name}")

    def _enabled(self, server: McpServerView) -> None:
        switch = ui.switch(_(ENABLED_LABEL), value=server.enabled).props("dense").classes("text-sm").mark(
            f"mcp-enabled-{server.name}")
        switch.on_value_change(lambda e, n=server.name: self._switched(n, bool(e.value)))
        switch.set_enabled(self._on_enabled is not None)
        if not server.enabled:
            ui.label(_(ENABLED_OFF[server.transport])).classes("text-xs text-gray-600 dark:text-gray-400 pl-10").mark(
                f"mcp-enabled-words-{server.name}")

    async def _switched(self, name: str, enabled: bool) -> None:
        if self._on_enabled is not None:
            await self._on_enabled(name, enabled)

    def _down_actions(self, server: McpServerView, state: Any) -> None:
        needs = bool(getattr(state, "needs_sign_in", False))
        with ui.row().classes("items-center gap-2"):
            if needs and server.transport == "http" and self._on_sign_in is not None:
                ui.button(_("Sign in"), icon="login", on_click=lambda n=server.name: self._on_sign_in(n)).props(
                    "no-caps dense unelevated").classes("px-3").mark(f"mcp-sign-in-{server.name}")
            if self._on_retry is not None:
                ui.button(_("Try again"), icon="refresh", on_click=lambda n=server.name: self._on_retry(n)).props(
                    "no-caps dense outline").classes("px-3").mark(f"mcp-retry-{server.name}")
        if needs and server.transport == "http" and self._on_sign_in is not None:
            ui.label(_(SIGN_IN_HELP)).classes("text-xs text-gray-600 dark:text-gray-400")

    def _headers(self, server: McpServerView) -> None:
        missing = server.headers_missing
        with ui.column().classes("gap-0").mark(f"mcp-headers-{server.name}"):
            if server.headers:
                ui.label(_("Sends the headers {names} (their values are {where}, never shown)").format(
                    names=", ".join(sorted(server.headers)), where=_(self._secrets_where))).classes(
                    "text-xs text-gray-600 dark:text-gray-400")
            if missing and self._on_headers is not None:
                ui.label(_("No value is kept for {names}: type it again with \u201cChange headers\u201d.").format(
                    names=", ".join(sorted(missing)))).classes("text-xs text-red-700 dark:text-red-400")

    def _edit_headers(self, server: McpServerView) -> None:
        with ui.dialog().on_value_change(lambda e: setattr(self, "asking", bool(e.value))) as dialog, \
                ui.card().classes("gap-3 w-[32rem] max-w-full"):
            ui.label(_("Headers sent to {name}").format(name=server.name)).classes("text-lg font-semibold")
            ui.label(_("One Name: value per line. Leave the value empty to keep the one it has (values are "
                       "never shown); delete a line to stop sending that header.")).classes(
                "text-sm text-gray-600 dark:text-gray-400")
            text = ui.textarea(_("Headers"), value="\n".join(f"{name}: " for name in sorted(server.headers))).classes(
                "w-full font-mono").props("autogrow").mark("mcp-edit-headers")
            problem = ui.label().classes("text-red-700 dark:text-red-400 break-words").mark("mcp-edit-headers-problem")
            problem.set_visibility(False)
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button(_("Cancel"), on_click=dialog.close).props("flat no-caps")

                async def save() -> None:
                    assert self._on_headers is not None
                    close_or_say(dialog, problem, await self._on_headers(server.name, text.value or ""))

                ui.button(_("Save"), icon="save", on_click=save).props("no-caps").mark("mcp-save-headers")
        dialog.open()

    def _edit_client(self, server: McpServerView) -> None:
        assert self._on_client is not None
        edit_sign_in_client(server, self._on_client, lambda is_open: setattr(self, "asking", is_open))

    async def _protocol(self, name: str, protocol: str) -> None:
        if self._on_protocol is not None:
            await self._on_protocol(name, protocol)

    async def _side_by_side(self, name: str, value: bool) -> None:
        if self._on_side_by_side is not None:
            await self._on_side_by_side(name, value)

    async def _trust(self, name: str, trusted: bool) -> None:
        if self._on_trust is not None:
            await self._on_trust(name, trusted)

    def _confirm(self, name: str) -> None:
        with ui.dialog().on_value_change(lambda e: setattr(self, "asking", bool(e.value))) as dialog, \
                ui.card().classes("gap-3"):
            ui.label(_("Remove the server “{name}”? Its tools leave the tool list, and sequences that use "
                       "them will not find them.").format(name=name))
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button(_("Keep it"), on_click=dialog.close).props("flat no-caps")

                async def remove() -> None:
                    dialog.close()
                    assert self._on_remove is not None
                    await self._on_remove(name)

                ui.button(_("Remove"), icon="delete", on_click=remove).props("no-caps color=negative").mark(
                    "mcp-confirm-remove")
        dialog.open()
