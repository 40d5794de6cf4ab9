"""Settings (`/settings`): approval modes per tool, the data folder, and the MCP servers.

The MCP wiring is looked up on the runtime (`mcp_settings`: the server list, `mcp`: the
`McpManager`) so this page works before, and after, the app starts connecting servers: without a
manager the list is still kept (in the data folder, or in memory) and applies at the next start.
A server's Sign in goes through `mcp_sign_ins` (`gui.mcp.sign_in.SignIns`): this tab is sent to the
server's sign-in page, which sends the browser back to `/oauth/callback` at the address this page
was opened with (`gui.ui.pages.oauth_callback`), and from there back here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from nicegui import ui
from pydantic import ValidationError

from gui.i18n import DATA, N_, _
from gui.mcp.config import JsonMcpSettings, McpConfigError, McpServerConfig, McpSettingsStore, MemoryMcpSettings
from gui.mcp.oauth_client import UNCHANGED, change_sign_in_client, has_client_secret, set_client_secret
from gui.mcp.secrets import SecretStoreError
from gui.mcp.sign_in import CALLBACK_PATH, SignInError, SignIns
from gui.runtime import Runtime
from gui.ui.components.settings.approvals import ApprovalModesTable, ApprovalRow, RuleRow
from gui.ui.components.settings.language import language_card
from gui.ui.components.settings.mcp_form import McpServerForm, header_updates, problem_words
from gui.ui.components.settings.mcp_list import McpServerList
from gui.ui.components.settings.mcp_sign_in_client import client_values
from gui.ui.components.settings.reach import settings_hooks
from gui.ui.theme import frame

if TYPE_CHECKING:
    from gui.context import AppContext

IN_MEMORY = N_("In memory: nothing is kept after the app closes.")
CLOSE_WAIT = 2.0  # s a remove (or a reconnect) waits for the server to end before it says it is done
_fallback_settings: dict[int, McpSettingsStore] = {}


def mcp_settings(rt: Runtime) -> McpSettingsStore:
    store = getattr(rt, "mcp_settings", None)
    if store is not None:
        return store
    if id(rt) not in _fallback_settings:
        _fallback_settings.clear()  # one runtime per process; a new one (tests) starts afresh
        _fallback_settings[id(rt)] = (JsonMcpSettings.in_folder(rt.data_dir) if rt.data_dir is not None
                                      else MemoryMcpSettings())
    return _fallback_settings[id(rt)]


def sign_ins_of(rt: Runtime, store: McpSettingsStore) -> SignIns:
    sign_ins = getattr(rt, "mcp_sign_ins", None)
    if sign_ins is None:  # no manager started (a runtime built by hand): sign-ins of this page's own
        sign_ins = SignIns(store.secrets)
        rt.mcp_sign_ins = sign_ins
    return sign_ins


def callback_address() -> str:
    """Where the server's sign-in page sends the browser back: this app, at the address the person's
    browser uses for it (the request gate has checked that Host is the app's own)."""
    request = ui.context.client.request
    return str(request.base_url).rstrip("/") + CALLBACK_PATH


async def approval_rows(rt: Runtime) -> list[ApprovalRow]:
    engine = rt.engine
    rules, earlier = await engine.approval_rules(), await engine.earlier_version_rules()
    modes = {r.tool: "always-allow" for r in rules if r.scope == "tool"}
    narrower: dict[str, list[RuleRow]] = {}
    for rule in rules:
        if rule.scope != "tool":
            narrower.setdefault(rule.tool, []).append(
                RuleRow(rule.rule_id, rule.text, rule.sequence if rule.rule_id in earlier else None))
    named = {t.name for t in engine.tools() if t.approval != "none"} | set(modes) | set(narrower)
    rows = []
    for name in named:
        tool = engine.tool(name)
        rows.append(ApprovalRow(name, _(tool.description) if tool else "", modes.get(name, "ask"),
                                available=tool is not None, rules=tuple(narrower.get(name, ()))))
    return sorted(rows, key=lambda r: (r.mode != "always-allow", not r.rules, r.tool))


async def settings_page(ctx: AppContext) -> None:
    rt = ctx.runtime
    assert rt is not None  # pages are served once the engine is open (`ReadyGate`)
    engine = rt.engine

    with frame("Settings", ctx):
        ui.label(_("Settings")).classes("text-2xl font-semibold")
        language_card(ctx)

        with ui.card().classes("w-full gap-2 p-4").props("flat bordered"):
            ui.label(_("Approvals")).classes("text-lg font-semibold")
            ui.label(_("Tools that change, read or send things ask you before they run: commands, writing "
                       "and reading files, fetching web addresses, and tools from servers. Showing text, "
                       "waiting and asking you questions never ask. What you allowed from the inbox (a tool "
                       "always, or only for a run, a sequence or some commands) is listed first; you can take "
                       "it back here.")).classes(
                "text-sm text-gray-600 dark:text-gray-400").mark("approvals-explained")

            @ui.refreshable
            async def approvals() -> None:
                ApprovalModesTable(await approval_rows(rt), on_revoke=revoke)

            async def revoke(rule_id: str) -> None:
                try:
                    rule = await engine.revoke_approval_rule(rule_id)
                except LookupError:
                    ui.notify(_("That rule is gone already"))
                else:
                    ui.notify(_("{tool} asks every time again").format(tool=rule.tool) if rule.scope == "tool"
                              else _("Removed: {rule}").format(rule=rule.text))
                approvals.refresh()

            await approvals()

        settings_hooks(ctx)

        with ui.card().classes("w-full gap-2 p-4").props("flat bordered"):
            ui.label(_("Data folder")).classes("text-lg font-semibold")
            where = str(rt.data_dir) if rt.data_dir is not None else _(IN_MEMORY)
            ui.label(where).classes(f"font-mono break-all {DATA}").mark("data-folder")
            if rt.data_dir is not None:
                ui.label(_("Sequences, runs and requests are kept here. Set SEQDESK_DATA to use another "
                           "folder.")).classes("text-sm text-gray-600 dark:text-gray-400")

        with ui.card().classes("w-full gap-2 p-4").props("flat bordered") as mcp_card:
            ui.label(_("MCP servers")).classes("text-lg font-semibold")
            ui.label(_("Tool servers whose tools you can use in sequences, named server.tool. A server describes "
                       "its own tools: only believe one you trust when it says a tool only reads.")).classes(
                "text-sm text-gray-600 dark:text-gray-400")
            store = mcp_settings(rt)
            manager = getattr(rt, "mcp", None)
            # The list is redrawn when a connection changes, but never under a change still running nor
            # under an open dialog: a redraw deletes the list, with the dialog or switch whose handler
            # is awaiting. That handler then speaks through `done`, in this card, which stays.
            shown: dict[str, Any] = {"list": None, "changing": 0, "redraws": 0}

            @ui.refreshable
            def servers(configs: list[McpServerConfig], with_secret: frozenset[str]) -> None:
                states = {s.name: s for s in manager.states()} if manager is not None else {}
                shown["list"] = McpServerList(configs, states, on_remove=remove, on_trust=trust, on_sign_in=sign_in,
                                              on_retry=retry, on_protocol=protocol, on_headers=change_headers,
                                              on_client=change_client, with_secret=with_secret,
                                              secrets_where=store.secrets.where)

            async def listed() -> tuple[list[McpServerConfig], frozenset[str]]:
                """The servers, and which of those with a Client ID have a Client secret kept."""
                configs = await store.list()
                named = [c.name for c in configs if c.oauth_client_id]
                if not named:  # the usual case: no trip to a thread for nothing
                    return configs, frozenset()
                kept = await asyncio.to_thread(lambda: [n for n in named if has_client_secret(store.secrets, n)])
                return configs, frozenset(kept)

            def busy() -> bool:
                return bool(shown["changing"]) or (shown["list"] is not None and shown["list"].asking)

            async def redraw(*, unless_busy: bool = False) -> bool:
                """Read the list, then clear and draw it in one step (two redraws at once never draw two
                lists); only the latest of redraws under way draws. True if this one drew."""
                shown["redraws"] += 1
                mine = shown["redraws"]
                configs, with_secret = await listed()
                if mine != shown["redraws"] or (unless_busy and busy()):
                    return False
                servers.refresh(configs, with_secret)
                return True

            @contextmanager
            def changing() -> Iterator[None]:
                shown["changing"] += 1
                try:
                    yield
                finally:
                    shown["changing"] -= 1

            async def done(message: str) -> None:
                if mcp_card.is_deleted:  # the page is gone
                    return
                with mcp_card:
                    ui.notify(message)
                await redraw()

            async def add(config: McpServerConfig, secret: str | None = None) -> str | None:
                if any(s.name == config.name for s in await store.list()):
                    return _("A server named “{name}” is already there: remove it first, or pick another "
                             "name.").format(name=config.name)
                try:
                    if secret is not None:  # before the server: its first sign-in finds the secret
                        await asyncio.to_thread(set_client_secret, store.secrets, config.name, secret)
                    await store.save(config)
                except (McpConfigError, SecretStoreError, ValueError) as exc:
                    return str(exc)
                if manager is not None:
                    await manager.add(config)
                engine.settings_changed("mcp_servers", added=config.name)
                ui.notify(_("Added {name}: its tools appear in the tool list once it is connected").format(
                    name=config.name))
                adding.close()
                await redraw()
                return None

            async def trust(name: str, trusted: bool) -> None:
                with changing():
                    config = next((c for c in await store.list() if c.name == name), None)
                    if config is None or config.trusted == trusted:
                        return
                    config = config.model_copy(update={"trusted": trusted})
                    await store.save(config)
                    if manager is not None:  # reconnects: its tools are listed again under the new trust
                        await manager.add(config, wait=CLOSE_WAIT)
                engine.settings_changed("mcp_servers", trusted=name, value=trusted)
                await done((_("{name}: tools it marks as only reading now run without asking") if trusted
                            else _("{name}: every one of its tools asks before it runs")).format(name=name))

            async def protocol(name: str, value: str) -> None:
                with changing():
                    config = next((c for c in await store.list() if c.name == name), None)
                    if config is None or config.protocol == value or value not in ("auto", "legacy"):
                        return
                    config = config.model_copy(update={"protocol": value})
                    await store.save(config)
                    if manager is not None:  # reconnects with the other handshake
                        await manager.add(config, wait=CLOSE_WAIT)
                engine.settings_changed("mcp_servers", protocol=name, value=value)
                await done((_("{name}: talked to the older way now") if value == "legacy"
                            else _("{name}: talked to automatically now")).format(name=name))

            async def change_headers(name: str, text: str) -> str | None:
                with changing():
                    config = next((c for c in await store.list() if c.name == name), None)
                    if config is None:
                        return _("{name} is not there any more").format(name=name)
                    headers, bad = header_updates(text, config.header_values())
                    if bad:
                        return _("Headers: {problems}").format(problems="; ".join(bad))
                    try:
                        config = McpServerConfig.model_validate(
                            {**config.model_dump(exclude={"headers"}), "headers": headers})
                        await store.save(config)
                    except ValidationError as exc:
                        return problem_words(exc)
                    except McpConfigError as exc:
                        return str(exc)
                    if manager is not None:  # reconnects with the new headers
                        await manager.add(config, wait=CLOSE_WAIT)
                engine.settings_changed("mcp_servers", headers=name)
                await done(_("{name}: headers changed").format(name=name))
                return None

            async def change_client(name: str, client_id: str, secret: str, forget: bool) -> str | None:
                with changing():
                    found = client_values(client_id, secret)
                    if isinstance(found, str):
                        return found
                    cid, value = found
                    try:
                        changed = await change_sign_in_client(
                            store, name, cid, value if value is not None else None if forget else UNCHANGED)
                    except ValidationError as exc:
                        return problem_words(exc)
                    except (LookupError, McpConfigError, SecretStoreError, ValueError) as exc:
                        return str(exc)
                    if changed is None:
                        return None
                    sign_ins_of(rt, store).cancel(name)  # a sign-in under way was for the old client
                    if manager is not None:  # reconnects: it asks for a sign-in with the new client
                        await manager.add(changed, wait=CLOSE_WAIT)
                engine.settings_changed("mcp_servers", client=name)
                await done(_("{name}: sign-in client changed; sign in again").format(name=name))
                return None

            async def retry(name: str) -> None:
                conn = manager.get(name) if manager is not None else None
                if conn is not None:
                    conn.retry_now()
                    ui.notify(_("Trying {name} again").format(name=name))

            async def sign_in(name: str) -> None:
                config = next((c for c in await store.list() if c.name == name), None)
                if config is None:
                    return
                sign_ins = sign_ins_of(rt, store)

                def signed_in(server: str) -> None:
                    conn = manager.get(server) if manager is not None else None
                    if conn is not None:
                        conn.retry_now()

                try:
                    url = await sign_ins.start(config, callback_address(), on_signed_in=signed_in)
                except SignInError as exc:
                    await done(_("Cannot sign in to {name}: {problem}").format(name=name, problem=exc))
                    return
                if url is None:
                    await done(_("{name} let SeqDesk in without signing in: trying it again").format(name=name))
                    return
                ui.navigate.to(url)  # this tab goes to the server's sign-in page and comes back

            async def remove(name: str) -> None:
                with changing():
                    sign_ins_of(rt, store).cancel(name)
                    await store.delete(name)
                    if manager is not None:  # its tools leave now; a server slow to end ends on its own
                        await manager.remove(name, wait=CLOSE_WAIT)
                engine.settings_changed("mcp_servers", removed=name)
                await done(_("Removed {name}").format(name=name))

            servers(*(await listed()))
            if manager is not None:
                seen = {"states": manager.states()}

                async def on_tick() -> None:  # redraw only when a connection changed (see `shown` above)
                    states = manager.states()
                    if states != seen["states"] and not busy() and await redraw(unless_busy=True):
                        seen["states"] = states  # else the next tick looks again

                ui.timer(1.0, on_tick)
            with ui.expansion(_("Add a server"), icon="add").classes("w-full").mark("mcp-add-section") as adding:
                McpServerForm(on_add=add)


def register(ctx: AppContext) -> None:
    @ui.page("/settings")
    async def settings_route() -> None:
        await settings_page(ctx)
