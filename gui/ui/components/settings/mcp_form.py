"""The form that adds an MCP server: a program on this computer (stdio) or a web address (http).

It writes the server as the person typed it (`McpServerSpec`) and hands it to `on_add`, which adds
it through the door and answers what is wrong, if anything: the door checks it whole, and its
complaints are shown here in plain words (`problem_words`). The form never keeps anything itself.
A web address may get headers (an API key, say), one `Name: value` a line; their values are kept
as secrets, never in the settings file. How to talk to the server (automatic, or the older way
some servers need) is chosen here too, and, for a server that does not let SeqDesk register itself
to sign in, the Client ID (and secret) made for SeqDesk in its console (`mcp_sign_in_client`).
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from nicegui import ui
from pydantic import SecretStr, ValidationError

from gui.core.door import McpServerInvalid, McpServerSpec
from gui.i18n import N_, _
from gui.ui.components.settings.mcp_list import (
    PROTOCOL_HELP,
    PROTOCOL_LABEL,
    PROTOCOLS,
    TRUST_HELP,
    TRUST_LABEL,
    protocol_choices,
)
from gui.ui.components.settings.mcp_sign_in_client import client_fields, client_values

TRANSPORTS = {"stdio": N_("A program on this computer"), "http": N_("A web address")}


def env_pairs(text: str) -> tuple[dict[str, str], list[str]]:
    """`KEY=value` lines as a dict, and the lines that are not of that form."""
    env: dict[str, str] = {}
    bad: list[str] = []
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            bad.append(line.strip())
        else:
            env[key.strip()] = value
    return env, bad


def header_pairs(text: str) -> tuple[dict[str, str], list[str]]:
    """`Name: value` lines as a dict, and which lines are not of that form ("line 2"): never their
    text, which may hold a secret."""
    headers: dict[str, str] = {}
    bad: list[str] = []
    for number, line in enumerate((text or "").splitlines(), start=1):
        if not line.strip():
            continue
        name, sep, value = line.partition(":")
        if not sep or not name.strip() or not value.strip():
            bad.append(_("line {number}").format(number=number))
        else:
            headers[name.strip()] = value.strip()
    return headers, bad


def header_updates(text: str, kept: set[str]) -> tuple[dict[str, SecretStr | None], list[str]]:
    """Headers changed in Settings: `Name: value` sets a value, `Name:` keeps the one it has (None;
    `kept` names the headers that have one), a name left out is no longer sent. Returns the headers
    and what is wrong (never with a value in it)."""
    headers: dict[str, SecretStr | None] = {}
    bad: list[str] = []
    for number, line in enumerate((text or "").splitlines(), start=1):
        if not line.strip():
            continue
        name, sep, value = line.partition(":")
        name = name.strip()
        if not sep or not name:
            bad.append(_("line {number} is not Name: value").format(number=number))
        elif value.strip():
            headers[name] = SecretStr(value.strip())
        elif name in kept:
            headers[name] = None
        else:
            bad.append(_("{name} has no value yet").format(name=name[:40]))
    return headers, bad


FIELD_WORDS = {"name": N_("name"), "url": N_("URL"), "command": N_("command"), "args": N_("command"),
               "env": N_("environment"), "headers": N_("headers"), "transport": N_("kind"),
               "oauth_client_id": N_("Client ID"), "smtp": N_("email"),
               "webhook_url": N_("webhook address"), "ntfy_url": N_("ntfy topic address")}


def problem_words(found: ValidationError | Sequence[Mapping[str, Any]]) -> str:
    """A model's complaints (pydantic's errors) in plain words, one per field."""
    parts = []
    for error in found.errors() if isinstance(found, ValidationError) else found:
        where = ".".join(str(p) for p in error["loc"][:1])
        where = _(FIELD_WORDS[where]) if where in FIELD_WORDS else where
        message = _(error["msg"].removeprefix("Value error, "))  # the model's words, where the catalogue has them
        if error["loc"][:1] == ("name",) and "pattern" in error["type"]:
            message = _("use 1 to 40 lowercase letters, digits, _ or -")
        parts.append(_("{field}: {problem}").format(field=where, problem=message) if where else message)
    return "; ".join(parts)


def invalid_words(exc: McpServerInvalid) -> str:
    """What the door found wrong with a server, field by field when it says which."""
    return problem_words(exc.errors) if exc.errors else str(exc)


class McpServerForm(ui.column):
    def __init__(self, on_add: Callable[[McpServerSpec], Awaitable[str | None]]) -> None:
        super().__init__()
        self.classes("w-full gap-2")
        self._on_add = on_add
        with self:
            self.name = ui.input(_("Name (short, e.g. time)")).classes("w-64").mark("mcp-name")
            self.transport = ui.toggle({k: _(v) for k, v in TRANSPORTS.items()}, value="stdio").props(
                "no-caps unelevated").mark("mcp-transport")
            with ui.column().classes("w-full gap-2").bind_visibility_from(self.transport, "value",
                                                                          value="stdio"):
                self.command = ui.input(_("Command (e.g. uvx mcp-server-time)")).classes("w-full").mark(
                    "mcp-command")
                self.env = ui.textarea(_("Environment, one KEY=value per line (optional)")).classes(
                    "w-full font-mono").props("autogrow").mark("mcp-env")
            with ui.column().classes("w-full gap-2").bind_visibility_from(self.transport, "value", value="http"):
                self.url = ui.input(_("URL (http:// or https://)")).classes("w-full").mark("mcp-url")
                self.headers = ui.textarea(_("Headers, one Name: value per line (optional, e.g. an API key)")).classes(
                    "w-full font-mono").props("autogrow").mark(
                    "mcp-headers")
                ui.label(_("Header values are kept as secrets, apart from the settings, and never shown again. "
                           "A server that asks you to sign in needs no header: you sign in after adding it.")).classes(
                    "text-xs text-gray-600 dark:text-gray-400 -mt-1")
                self.client_id, self.client_secret = client_fields()
            with ui.row(wrap=False).classes("items-center gap-3"):
                ui.label(_(PROTOCOL_LABEL)).classes("text-sm")
                self.protocol = ui.toggle(protocol_choices(), value="auto").props("dense no-caps unelevated").mark(
                    "mcp-form-protocol")
            ui.label(_(PROTOCOL_HELP)).classes("text-xs text-gray-600 dark:text-gray-400 -mt-1")
            self.trusted = ui.switch(_(TRUST_LABEL)).mark("mcp-trusted")
            ui.label(_(TRUST_HELP)).classes("text-xs text-gray-600 dark:text-gray-400 pl-10 -mt-2")
            self.problems = ui.label().classes("text-red-700 dark:text-red-400 break-words").mark("mcp-problems")
            self.problems.set_visibility(False)
            ui.button(_("Add server"), icon="add", on_click=self.submit).props("no-caps").mark("mcp-add")

    def spec(self) -> McpServerSpec | str:
        """The server as typed, or the words saying what is wrong with how it is written."""
        try:
            protocol = self.protocol.value if self.protocol.value in PROTOCOLS else "auto"
            if self.transport.value == "http":
                headers, bad = header_pairs(self.headers.value or "")
                if bad:
                    return _("headers: write Name: value on each line ({lines} is not)").format(lines=", ".join(bad))
                client = client_values(self.client_id.value or "", self.client_secret.value or "")
                if isinstance(client, str):
                    return client
                return McpServerSpec.model_validate(
                    {"name": (self.name.value or "").strip(), "transport": "http",
                     "url": (self.url.value or "").strip(), "headers": headers,
                     "trusted": bool(self.trusted.value), "protocol": protocol,
                     "oauth_client_id": client[0], "oauth_client_secret": client[1]})
            try:
                parts = shlex.split(self.command.value or "")
            except ValueError as exc:
                return _("command: {problem}").format(problem=exc)
            env, bad = env_pairs(self.env.value or "")
            if bad:
                return _("environment: write KEY=value on each line, not: {lines}").format(lines=", ".join(bad))
            return McpServerSpec(name=(self.name.value or "").strip(), transport="stdio",
                                 command=parts[0] if parts else None, args=parts[1:], env=env,
                                 trusted=bool(self.trusted.value), protocol=protocol)
        except ValidationError as exc:
            return problem_words(exc)

    async def submit(self) -> None:
        found = self.spec()
        problem = found if isinstance(found, str) else await self._on_add(found)
        self.problems.text = problem or ""
        self.problems.set_visibility(bool(problem))
        if not problem:
            self.reset()

    def reset(self) -> None:
        """Empty the form for the next server (after one was added)."""
        for field in (self.name, self.command, self.env, self.url, self.headers, self.client_id, self.client_secret):
            field.value = ""
        self.trusted.value = False
        self.protocol.value = "auto"
        self.transport.value = "stdio"
