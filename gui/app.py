"""The composition root: the one place that builds SeqDesk and hands the parts to the surfaces.

Settings are read once (`gui.settings`); the stores, the registry, the MCP servers and the engine
are built on them (`gui.runtime.open_runtime`) and handed, as an `AppContext` (`gui.context`), to the
pages and the HTTP API (`create_app`); the CLI's and `seqdesk mcp`'s door is chosen in `gui.doors`.
An app a door starts in the background for a program serves the API alone until a person opens it
(`gui.background_app`).
It sits on top: it imports the surfaces, and none of them imports it. Nothing
is looked up from a global: the context lives on the NiceGUI app (`app.state.seqdesk`) only so that
tests can reach the app they started.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gui.doors import resolve_data_dir
from gui.fastapi_load import load_fastapi
from gui.serving import free_port, is_loopback, token_problem, url_host
from gui.settings import Settings

if TYPE_CHECKING:  # the pages' and the API's parts are imported by what builds them: `seqdesk run` needs none
    from gui.api.request_gate import Served
    from gui.context import AppContext
    from gui.core.asks import AuditHead
    from gui.core.people import Accounts

log = logging.getLogger(__name__)
NO_SHARED_TOKEN = ("a team's SeqDesk (a postgresql:// store) has no shared token: people sign in, and make personal "
                   "tokens for scripts (seqdesk people token NAME --name LABEL). Start it without --token or "
                   "SEQDESK_TOKEN.")
NO_ADMIN = ("nobody can manage this team's SeqDesk yet: add the first admin with "
            "`seqdesk people add NAME --role admin --store …`")


def create_app(*, settings: Settings, served: Served, token: str | None = None, url: str | None = None) -> AppContext:
    """Register the API, the pages and the start-up/shut-down hooks (once per NiceGUI app).

    `served` is where the app answers (its hosts and its pages' origins): the request gate refuses
    every other Host and Origin, and NiceGUI's socket.io accepts only those origins.
    """
    from nicegui import app

    from gui.context import AppContext

    existing = getattr(app.state, "seqdesk", None)
    if isinstance(existing, AppContext) and any(getattr(r, "path", None) == "/api/health" for r in app.routes):
        return existing  # already registered on this app (NiceGUI's test reset makes a fresh one)

    ctx = new_context(settings=settings, served=served, token=token, url=url)
    app.state.seqdesk = ctx

    async def startup() -> None:
        await ctx.open()
        if ctx.runtime is not None and ctx.runtime.accounts is not None:
            from gui.ui.signed_in import reload_pages_of

            ctx.runtime.accounts.on_changed.append(reload_pages_of)  # an ended session's pages stop at once
        await turn_phone_on(ctx)
        import gc

        gc.freeze()  # what start-up made lives for the whole session: keep it out of full collections

    app.on_startup(startup)
    app.on_shutdown(ctx.close)
    add_surfaces(app, ctx)
    return ctx


def new_context(*, settings: Settings, served: Served, token: str | None = None,
                url: str | None = None) -> AppContext:
    """The context of an app on these settings, not open yet: on a team's server people sign in (no
    shared token, no phones to pair); on a desktop, phones may be paired."""
    from gui.context import AppContext
    from gui.phone import PhoneAccess

    ctx = AppContext(settings=settings, served=served, token=token, url=url)
    if settings.team:  # people sign in, on their phones too: no pairing, no shared token
        ctx.token = None
        ctx.oidc = oidc_of(settings)
    else:
        from gui.phone.lan import lan_address

        chosen = settings.lan_address
        ctx.phone = PhoneAccess(served, served.port, address=(lambda: chosen) if chosen else lan_address)
    return ctx


async def turn_phone_on(ctx: AppContext) -> None:
    """Phones' access on the network again, once the app serves its pages, when it was on as the app last closed."""
    from nicegui import core

    if ctx.phone is not None and ctx.phone.wanted and ctx.served.port is not None:
        problem = await ctx.phone.turn_on(core.app)
        if problem:
            log.warning("phone access: %s", problem)


def add_surfaces(app: Any, ctx: AppContext) -> None:
    """The gates, the HTTP API and the pages on NiceGUI's `app`, for `ctx` (open already, or opened
    by the app's start-up)."""
    from nicegui import core

    from gui.api import ReadyGate, register_api
    from gui.api.plain_middleware import use_plain_middleware
    from gui.ui import register_pages

    core.sio.eio.cors_allowed_origins = ctx.served.origins  # NiceGUI's default "*" lets every site in
    app.add_middleware(ReadyGate, ctx=ctx)
    register_api(app, engine=ctx.slot.for_api, token=ctx.token, served=ctx.served, phone=ctx.phone,
                 notifier=ctx.notifier_for_api, people=(lambda: ctx.accounts) if ctx.settings.team else None,
                 oidc=ctx.oidc, ready=ctx.wait_open)
    use_plain_middleware(app)  # NiceGUI's middlewares, added by `ui.run` after this, made plain
    if ctx.phone is not None:
        from gui.ui.components.settings.phone import disconnect_phone

        ctx.phone.on_forget.append(disconnect_phone)
    register_pages(ctx)


def oidc_of(settings: Settings) -> Any:
    """The company's OpenID Connect sign-in the settings name (`gui.people.OidcSignIn`), or None."""
    if not (settings.oidc_issuer and settings.oidc_client_id):
        return None
    from gui.people import OidcConfig, OidcSignIn

    return OidcSignIn(OidcConfig(issuer=settings.oidc_issuer, client_id=settings.oidc_client_id,
                                 client_secret=settings.oidc_client_secret or "", claim=settings.oidc_claim))


def context_of(app: Any) -> AppContext:
    """The context `create_app` put on the NiceGUI app (for tests that started it)."""
    from gui.context import AppContext

    ctx = getattr(app.state, "seqdesk", None)
    if not isinstance(ctx, AppContext):
        raise RuntimeError("this app was not made by gui.app.create_app")
    return ctx


def decision_record(settings: Settings) -> tuple[list[dict[str, Any] | None], AuditHead | None]:
    """The record of decisions of the data folder (or team's database) the settings name, each entry
    as stored, and its head when the store keeps one apart (a database does), read without taking the
    folder or opening the stores (`seqdesk audit` works while the app runs). NotFound for a folder
    named that is not there, or a database without a record; OSError when the record cannot be read;
    DatabaseUnreachable when the database cannot be reached."""
    from gui.core.errors import NotFound
    from gui.store.audit import audit_path, read_documents

    if settings.store is not None:
        from gui.pgstore.audit import read_record

        try:
            return asyncio.run(read_record(settings.store))
        except LookupError as exc:
            raise NotFound(str(exc)) from None
    if settings.data is not None and not Path(settings.data).expanduser().is_dir():
        raise NotFound(f"there is no data folder {Path(settings.data).expanduser()}")
    return read_documents(audit_path(resolve_data_dir(settings))), None


@asynccontextmanager
async def team_accounts(settings: Settings) -> AsyncIterator[Accounts]:
    """The people of the team's database the settings name (`seqdesk people`), closed after; Invalid
    when the store is no database (a data folder has one person and no accounts)."""
    from gui.core.errors import Invalid

    if settings.store is None:
        raise Invalid("people are kept on a team's database: give --store postgresql://… or set SEQDESK_STORE "
                      "(a data folder has one person, and no sign-in)")
    from gui.core.people import Accounts
    from gui.people import Argon2Hasher
    from gui.pgstore import open_people_store

    store, close = await open_people_store(settings.store)
    try:
        yield Accounts(store, Argon2Hasher())
    finally:
        await close()


async def _has_admin(settings: Settings) -> bool:
    async with team_accounts(settings) as accounts:
        return await accounts.any_admin()


def _stop_nicegui() -> None:
    from nicegui import app

    app.shutdown()


def start_background_app() -> int:
    """`seqdesk --browser` as a door starts it in the background for a program
    (`gui.second_launch.spawn_background`), past the command line's parser: its settings are the
    environment the door gave it (the data folder, the token, the language)."""
    import os

    from gui import i18n
    from gui.settings import SettingsError, load_settings

    given = os.environ.get("SEQDESK_LANG", "").strip()
    try:
        lang = i18n.normalize(given) if given else None
    except i18n.UnknownLanguage:
        lang = None  # English, as the command line says
    i18n.set_defaults(started=lang)
    try:
        settings = load_settings(lang=lang)
    except SettingsError as exc:
        print(f"seqdesk: {exc}", file=sys.stderr)
        return 2
    return start_app(argparse.Namespace(browser=True, host=None, port=None), settings)


def wait_out_ending(data_dir: Path, within: float = 15.0, on_wait: Callable[[], None] | None = None) -> bool:
    """True once this process holds `data_dir` (the app that held it was ending and let it go, as the
    CLI's doors wait it out); False while an app that serves it answers (join that one), or when the
    folder is still held after `within` s. `on_wait` is told once, when the waiting begins."""
    from gui.second_launch import app_answers, read_endpoint
    from gui.store.lock import DataFolderInUseError, hold_lock

    deadline = time.monotonic() + within
    told = False
    while True:
        endpoint = read_endpoint(data_dir)
        if endpoint is not None and app_answers(str(endpoint["url"])):
            return False
        try:
            hold_lock(data_dir)
        except DataFolderInUseError:
            if time.monotonic() > deadline:
                return False
            if on_wait is not None and not told:
                told = True
                on_wait()
            time.sleep(0.1)  # a lock file tells nobody when it is let go: look again soon
            continue
        return True


def start_app(args: argparse.Namespace, settings: Settings) -> int:
    if settings.connect is not None:  # a team's server: its pages in a window here, nothing served here
        from gui.connect import open_team_app

        return open_team_app(settings.connect, settings.token, browser_only=args.browser, browser=settings.browser)
    from gui.second_launch import OTHER_APP_SECONDS, background_for, focus_running, tell_person

    host = args.host or "127.0.0.1"
    token = settings.token
    if settings.team and token is not None:
        tell_person(NO_SHARED_TOKEN)
        return 2
    problem = None if settings.team else token_problem(host, token)
    if problem:
        tell_person(problem)
        return 2
    port = args.port or free_port(host if is_loopback(host) else "127.0.0.1")
    try:
        data_dir = resolve_data_dir(settings)
    except Exception as exc:  # noqa: BLE001 - shown to the person, never a traceback
        tell_person(str(exc))
        return 2
    from gui.core.errors import SeqDeskError
    from gui.store.lock import DataFolderInUseError
    from gui.store.open import hold_lock

    try:  # refuse early, before the server starts, with a clear message
        if settings.store is not None:  # a team's database: reachable now, or a sentence and exit 2
            from gui.pgstore import check_reachable

            asyncio.run(check_reachable(settings.store))
            if not asyncio.run(_has_admin(settings)):
                print(f"seqdesk: {NO_ADMIN}", file=sys.stderr)
        else:
            hold_lock(data_dir)
    except SeqDeskError as exc:
        if not isinstance(exc, DataFolderInUseError):
            tell_person(str(exc))
            return 2

        def waiting() -> None:
            print(f"seqdesk: another SeqDesk has the data folder {data_dir} and does not answer (it may be "
                  f"ending): waiting up to {OTHER_APP_SECONDS:g} s for it to let go", file=sys.stderr, flush=True)

        # An app ending (its program gone) lets go of the folder a moment after it stops answering: the
        # app started for the next program, or by the person, takes it then.
        if not wait_out_ending(data_dir, OTHER_APP_SECONDS, waiting):
            if background_for() is not None:  # started for a program: it leaves the folder to the app serving it
                tell_person(str(exc))
                return 2
            from gui.second_launch import read_endpoint  # a second launch: join the one running

            if read_endpoint(data_dir) is None:  # a process holds the folder and serves nothing: say which
                tell_person(str(exc))
                return 2
            shown, message = focus_running(data_dir, token, address_only=args.browser)
            if shown:
                print(f"seqdesk: {message}", file=sys.stderr)
                return 0
            tell_person(message)
            return 2
    local = "127.0.0.1" if host in ("0.0.0.0", "::") or is_loopback(host) else host
    load_fastapi()  # before the API: FastAPI without building its OpenAPI models
    from gui.api.request_gate import Served

    program = background_for()
    if program is not None and settings.store is None and not settings.team:  # the API alone, pages when opened
        from gui.background_app import serve_background

        light = new_context(settings=settings.model_copy(update={"data": data_dir, "memory": False}),
                            served=Served.at(host, port), token=token, url=f"http://{url_host(local)}:{port}")
        return serve_background(light, pid=program, host=host, port=port, data_dir=data_dir, browser=settings.browser,
                                surfaces=lambda app: add_surfaces(app, light), phone_on=lambda: turn_phone_on(light))
    ctx = create_app(settings=settings.model_copy(update={"data": data_dir, "memory": False}),
                     served=Served.at(host, port), token=token, url=f"http://{url_host(local)}:{port}")
    from gui.background_app import until_unneeded
    from gui.window import run_ui

    code = run_ui(host=host, port=port, browser_only=args.browser, token=token, browser=settings.browser,
                  data_dir=data_dir, background=until_unneeded(ctx, background_for(), local, port, _stop_nicegui))
    if code not in (0, None) and not args.browser:
        tell_person(f"SeqDesk stopped at start-up (exit code {code}); port {port} may be in use by another "
                    "program. Start it again, or choose another port with --port.")
    return code


def serve_team(host: str, port: int, settings: Settings, *, names: list[str] | None = None) -> int:
    """`seqdesk serve`: the app for a team on the database the settings name, served on `host:port`
    with no window, answering to `names` too (the DNS names desktops use: the request gate refuses
    any other). People sign in there (`gui.api.people_gate`), on any address, so no shared token is
    needed and one given is refused. 2 after a sentence when it cannot be served (no database given,
    one that cannot be reached or used, a shared token given, the port taken); a database with no
    admin yet is served, after saying how to add the first."""
    from gui.core.errors import SeqDeskError

    def say(problem: str) -> int:
        print(f"seqdesk serve: {problem}", file=sys.stderr, flush=True)
        return 2

    if settings.store is None:
        return say("a team server needs a PostgreSQL database: give --store postgresql://user@host/name (or set "
                   "SEQDESK_STORE). A data folder is served for one person by: seqdesk --browser")
    if settings.token is not None:
        return say(NO_SHARED_TOKEN)
    try:  # the database reachable, its schema known, the secret key right: before the server starts
        has_admin = asyncio.run(_usable(settings))
    except SeqDeskError as exc:
        return say(str(exc))
    if not has_admin:
        print(f"seqdesk serve: {NO_ADMIN}", file=sys.stderr, flush=True)
    local = "127.0.0.1" if host in ("0.0.0.0", "::") or is_loopback(host) else host
    load_fastapi()
    from gui.api.request_gate import Served
    from gui.window import run_ui

    create_app(settings=settings.model_copy(update={"memory": False}),
               served=Served.at(host, port, extra_names=names or ()), url=f"http://{url_host(local)}:{port}")
    code = run_ui(host=host, port=port, browser_only=True, token=None, server=True)
    if code not in (0, None):
        return say(f"the server stopped at start-up (exit code {code}); port {port} may be in use by another "
                   "program: choose another with --port")
    return code


async def _usable(settings: Settings) -> bool:
    """Whether the team's database has an admin, once its stores open (reachable, schema known, the
    secret key right); the SeqDeskError that says why they cannot."""
    from gui.pgstore import open_pg_stores

    assert settings.store is not None
    stores = await open_pg_stores(settings.store, process=settings.process_name)  # its name not borne by another
    await stores.close()
    return await _has_admin(settings)
