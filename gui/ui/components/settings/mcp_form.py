"""The form that adds an MCP server: a program on this computer (stdio) or a web address (http).

It writes the server as the person typed it (`McpServerSpec`) and hands it to `on_add`, which adds
it through the door and answers what is wrong, if anything: the door checks it whole, and its
complaints are shown here in plain words, each at the field it is about (`field_problems`); what the
form can tell by itself (an empty name, command or address, a name SeqDesk cannot use, a line that is
not KEY=value) it says at the field before anything is saved. The form never keeps anything itself.
A web address may get headers (an API key, say), one `Name: value` a line; their values are kept
as secrets, never in the settings file. How to talk to the server (automatic, or the older way
some servers need) is chosen here too, and, for a server that does not let SeqDesk register itself
to sign in, the Client ID (and secret) made for SeqDesk in its console (`mcp_sign_in_client`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from nicegui import ui
from pydantic import SecretStr, ValidationError

from gui.core.door import McpServerInvalid, McpServerSpec
from gui.i18n import N_, _
from gui.mcp.config import NAME_PATTERN
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


Problems = dict[str, str]  # the form's field ("name", "command", …; "": the form as a whole) → what is wrong

# The model's fields as the form's (the command line is one field: `command` and `args`).
FORM_FIELDS = {"name": "name", "command": "command", "args": "command", "env": "env", "url": "url",
               "headers": "headers", "oauth_client_id": "client_id", "oauth_client_secret": "client_secret"}
NAME_WORDS = N_("use 1 to 40 lowercase letters, digits, _ or -")


def field_problems(found: ValidationError | Sequence[Mapping[str, Any]]) -> Problems:
    """A model's complaints (pydantic's errors) in plain words, each under the form's field it is about,
    without the field's name (it is shown at it); one about no field of the form keeps its field's name
    and goes under the form ("")."""
    out: dict[str, list[str]] = {}
    for error in found.errors() if isinstance(found, ValidationError) else found:
        model_field = ".".join(str(p) for p in error["loc"][:1])
        message = _(error["msg"].removeprefix("Value error, "))  # the model's words, where the catalogue has them
        if model_field == "name" and "pattern" in error["type"]:
            message = _(NAME_WORDS)
        key = FORM_FIELDS.get(model_field, "")
        if not key and model_field:
            words = _(FIELD_WORDS[model_field]) if model_field in FIELD_WORDS else model_field
            message = _("{field}: {problem}").format(field=words, problem=message)
        out.setdefault(key, []).append(message)
    return {key: "; ".join(dict.fromkeys(messages)) for key, messages in out.items()}


def invalid_words(exc: McpServerInvalid) -> str:
    """What the door found wrong with a server, field by field when it says which."""
    return problem_words(exc.errors) if exc.errors else str(exc)


class McpServerForm(ui.column):
    def __init__(self, on_add: Callable[[McpServerSpec], Awaitable[Problems | None]]) -> None:
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
        self.fields: dict[str, ui.input | ui.textarea] = {
            "name": self.name, "command": self.command, "env": self.env, "url": self.url, "headers": self.headers,
            "client_id": self.client_id, "client_secret": self.client_secret}
        for field in self.fields.values():  # a field's problem goes as soon as the person edits it
            field.on_value_change(lambda _e, field=field: setattr(field, "error", None))

    def spec(self) -> McpServerSpec | Problems:
        """The server as typed, or what is wrong with how it is written, at the field it is about."""
        problems: Problems = {}
        name = (self.name.value or "").strip()
        if not name:
            problems["name"] = _("Enter a name, such as time")
        elif not re.match(NAME_PATTERN, name):
            problems["name"] = _(NAME_WORDS)
        protocol = self.protocol.value if self.protocol.value in PROTOCOLS else "auto"
        try:
            if self.transport.value == "http":
                url = (self.url.value or "").strip()
                if not url:
                    problems["url"] = _("Enter the server's web address, starting with http:// or https://")
                headers, bad = header_pairs(self.headers.value or "")
                if bad:
                    problems["headers"] = _("write Name: value on each line ({lines} is not)").format(
                        lines=", ".join(bad))
                client = client_values(self.client_id.value or "", self.client_secret.value or "")
                if isinstance(client, str):
                    problems["client_secret"] = client
                if problems or isinstance(client, str):
                    return problems
                return McpServerSpec.model_validate(
                    {"name": name, "transport": "http", "url": url, "headers": headers,
                     "trusted": bool(self.trusted.value), "protocol": protocol,
                     "oauth_client_id": client[0], "oauth_client_secret": client[1]})
            parts: list[str] = []
            try:
                parts = shlex.split(self.command.value or "")
            except ValueError as exc:
                problems["command"] = str(exc)
            else:
                if not parts:
                    problems["command"] = _("Enter the command that starts the server, such as uvx mcp-server-time")
            env, bad = env_pairs(self.env.value or "")
            if bad:
                problems["env"] = _("write KEY=value on each line, not: {lines}").format(lines=", ".join(bad))
            if problems:
                return problems
            return McpServerSpec(name=name, transport="stdio", command=parts[0], args=parts[1:], env=env,
                                 trusted=bool(self.trusted.value), protocol=protocol)
        except ValidationError as exc:
            return field_problems(exc)

    async def submit(self) -> None:
        found = self.spec()
        problems = found if isinstance(found, dict) else await self._on_add(found)
        self.show_problems(problems or {})
        if not problems:
            self.reset()

    def show_problems(self, problems: Problems) -> None:
        """Each problem at its field (Quasar's error message under it); one about no field, under the form."""
        for key, field in self.fields.items():
            field.error = problems.get(key)
        rest = "; ".join(words for key, words in problems.items() if key not in self.fields)
        self.problems.text = rest
        self.problems.set_visibility(bool(rest))

    def reset(self) -> None:
        """Empty the form for the next server (after one was added)."""
        for field in (self.name, self.command, self.env, self.url, self.headers, self.client_id, self.client_secret):
            field.value = ""
        self.trusted.value = False
        self.protocol.value = "auto"
        self.transport.value = "stdio"
