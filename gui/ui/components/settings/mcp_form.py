"""The form that adds an MCP server: a program on this computer (stdio) or a web address (http).

It builds a `McpServerConfig` and shows the model's own validation messages in plain words; it
never saves anything itself (the page does, through `on_add`).
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable

from nicegui import ui
from pydantic import ValidationError

from gui.mcp.config import McpServerConfig
from gui.ui.components.settings.mcp_list import TRUST_HELP, TRUST_LABEL

TRANSPORTS = {"stdio": "A program on this computer", "http": "A web address"}


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


def problem_words(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        if where == "name" and "pattern" in error["type"]:
            message = "use 1 to 40 lowercase letters, digits, _ or -"
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)


class McpServerForm(ui.column):
    def __init__(self, on_add: Callable[[McpServerConfig], Awaitable[str | None]]) -> None:
        super().__init__()
        self.classes("w-full gap-2")
        self._on_add = on_add
        with self:
            self.name = ui.input("Name (short, e.g. time)").classes("w-64").mark("mcp-name")
            self.transport = ui.toggle(TRANSPORTS, value="stdio").props("no-caps unelevated").mark("mcp-transport")
            with ui.column().classes("w-full gap-2").bind_visibility_from(self.transport, "value",
                                                                          value="stdio"):
                self.command = ui.input("Command (e.g. uvx mcp-server-time)").classes("w-full").mark(
                    "mcp-command")
                self.env = ui.textarea("Environment, one KEY=value per line (optional)").classes(
                    "w-full font-mono").props("autogrow").mark("mcp-env")
            self.url = ui.input("URL (http:// or https://)").classes("w-full").mark("mcp-url")
            self.url.bind_visibility_from(self.transport, "value", value="http")
            self.trusted = ui.switch(TRUST_LABEL).mark("mcp-trusted")
            ui.label(TRUST_HELP).classes("text-xs text-gray-600 dark:text-gray-400 pl-10 -mt-2")
            self.problems = ui.label().classes("text-red-700 dark:text-red-400 break-words").mark("mcp-problems")
            self.problems.set_visibility(False)
            ui.button("Add server", icon="add", on_click=self.submit).props("no-caps").mark("mcp-add")

    def config(self) -> McpServerConfig | str:
        """The config, or the words saying what is wrong."""
        try:
            if self.transport.value == "http":
                return McpServerConfig(name=(self.name.value or "").strip(), transport="http",
                                       url=(self.url.value or "").strip(), trusted=bool(self.trusted.value))
            try:
                parts = shlex.split(self.command.value or "")
            except ValueError as exc:
                return f"command: {exc}"
            env, bad = env_pairs(self.env.value or "")
            if bad:
                return "environment: write KEY=value on each line, not: " + ", ".join(bad)
            return McpServerConfig(name=(self.name.value or "").strip(), transport="stdio",
                                   command=parts[0] if parts else None, args=parts[1:], env=env,
                                   trusted=bool(self.trusted.value))
        except ValidationError as exc:
            return problem_words(exc)

    async def submit(self) -> None:
        config = self.config()
        problem = config if isinstance(config, str) else await self._on_add(config)
        self.problems.text = problem or ""
        self.problems.set_visibility(bool(problem))
        if not problem:
            self.reset()

    def reset(self) -> None:
        """Empty the form for the next server (after one was added)."""
        for field in (self.name, self.command, self.env, self.url):
            field.value = ""
        self.trusted.value = False
        self.transport.value = "stdio"
