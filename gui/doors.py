"""The door of the CLI and `seqdesk mcp` (`Operations`): the engine opened here on a data folder or a
team's database, the app that serves the folder through its HTTP API (one app per folder, whichever
door comes first: started in the background when asked to, the next one coming up while one is
ending, or else that one waited out), or a team server's API (`--connect`). Beside the composition
root (`gui.app`), which starts the app itself; like it, imported by the surfaces' commands only, inside
the functions that need it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gui.settings import Settings, load_settings

if TYPE_CHECKING:
    from gui.core.door import Operations
    from gui.second_launch import Starting


def resolve_data_dir(settings: Settings) -> Path:
    """The data folder the settings name (or the platform's), created and checked; DataFolderError."""
    from gui.store.datadir import ENV_VAR, data_dir

    return data_dir({ENV_VAR: str(settings.data)} if settings.data is not None else {})


async def open_operations(settings: Settings | None = None, *, app: bool = False,
                          starting: Starting | None = None) -> Operations:
    """The door for the CLI and `seqdesk mcp`: the engine opened here on the data folder, or, when
    the app holds the folder, the app itself through its HTTP API (its inbox then answers). With
    `app` (`seqdesk run`), always an app: started in the background when none serves the folder, so
    the SeqDesk a person starts meanwhile joins it; this caller still answers its run's requests
    (at its terminal, or as it does without one) unless a person's app holds the folder. `starting`:
    that app, started already before the settings were read (`gui.cli.early_app`)."""
    settings = settings or load_settings()
    to_app = app and settings.connect is None and not settings.memory and settings.store is None
    if starting is not None and not to_app:  # started where the settings say no app is gone through
        starting.abandon()
        starting = None
    if settings.connect is not None:  # a team server is the door (as the person whose token this is): no folder here
        return await team_door(settings.connect, settings.token)
    if to_app:  # a team's database has no folder to serve
        return await app_door(settings, start=True, answered_here=True, starting=starting)
    from gui.runtime import open_runtime

    if settings.memory:
        rt = await open_runtime(memory=True, mcp_wait=10.0, manage_mcp=False)
    elif settings.store is not None:  # a team's database: every process opens it, none holds it alone
        rt = await open_runtime(store=settings.store, mcp_wait=10.0, manage_mcp=False, lease=settings.lease)
    else:
        return await _folder_door(resolve_data_dir(settings), settings.token)
    rt.engine.on_close(rt.close_parts)
    return rt.engine


async def _held_folder_door(folder: Path, token: str | None) -> Operations | None:
    """The door of the app holding `folder` when it answers; None while it is starting or ending
    (it holds the lock before it writes its endpoint, and removes the endpoint before it lets go)."""
    from gui.remote import remote_for

    remote = remote_for(folder, token)
    if remote is None:
        return None
    if await remote.answers():
        return remote
    await remote.close()
    return None


async def _folder_door(folder: Path, token: str | None, within: float = 15.0) -> Operations:
    """The engine opened here on `folder`, or, when an app holds it, that app through its HTTP API.
    An app that holds the folder without answering is starting (it holds the lock before it writes
    its endpoint) or ending (an app started for a program that has left: it removes its endpoint,
    then lets go): waited out, whichever it is. DataFolderInUseError when neither ends within
    `within` s."""
    from gui.runtime import open_runtime
    from gui.store.lock import DataFolderInUseError

    deadline = asyncio.get_running_loop().time() + within
    while True:
        try:
            rt = await open_runtime(folder, mcp_wait=10.0, manage_mcp=False)
        except DataFolderInUseError:
            door = await _held_folder_door(folder, token)
            if door is not None:
                return door
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.1)  # a lock file tells nobody when it is let go: look again soon
            continue
        rt.engine.on_close(rt.close_parts)
        return rt.engine


async def app_door(settings: Settings, *, start: bool = False, answered_here: bool = False,
                   starting: Starting | None = None) -> Operations:
    """The door of the app that serves the settings' data folder (one app per folder, whichever door
    comes first): with `start`, started in the background when none does (`seqdesk mcp`: what it runs
    asks the person there); without, Unavailable then (`seqdesk ask`). `answered_here`: the caller
    answers its runs' requests itself when the app is one started in the background (`seqdesk run`).
    `starting`: that app, started already for this door (`seqdesk run`, before it read the settings)."""
    from gui.core.errors import Unavailable
    from gui.second_launch import read_endpoint, spawn_background

    if settings.connect is not None:  # a team server, reached with a personal token
        return await team_door(settings.connect, settings.token)
    if settings.memory:
        raise Unavailable("SEQDESK_MEMORY is set: no SeqDesk app serves a data folder")
    folder = _usable_folder(settings)
    if starting is not None and starting.data_dir != folder:  # started for another folder (never: the same settings)
        starting.abandon()
        starting = None
    # None serves the folder: the app starts now, and comes up while this process imports the client
    if starting is None and start and read_endpoint(folder) is None:
        starting = spawn_background(folder, settings.token)
    from gui.remote import remote_for

    remote = remote_for(folder, settings.token, answered_here=answered_here) if starting is None else None
    if remote is not None and not await remote.answers():  # it is ending (its program left)
        await remote.close()
        # With `start`, the next app starts now and takes the folder as soon as the ending one lets go of it
        # (or leaves it to that one, should it answer again: `gui.app.start_app`); without, it is waited out.
        remote = None if start else await _after_ending(folder, settings.token, answered_here)
    if remote is None and start:
        if starting is None:
            starting = spawn_background(folder, settings.token)
        from gui.remote import load_transport

        started = asyncio.ensure_future(asyncio.to_thread(starting.wait))
        try:  # while it starts, what the first request to it would load only once it answers
            await load_transport()
        finally:
            await started
        remote = remote_for(folder, settings.token, answered_here=answered_here)
    if remote is None:
        raise Unavailable(f"SeqDesk is not open on the data folder {folder}: start it (seqdesk), then ask again")
    return remote


def local_folder(settings: Settings) -> Path | None:
    """The data folder the settings lead to, as it is (neither created nor checked); None when they lead
    to none here (a team's server or database, SEQDESK_MEMORY)."""
    if settings.connect is not None or settings.memory or settings.store is not None:
        return None
    return _folder_of(settings)


def unknown_run_folder(settings: Settings | None, run_id: str) -> Path | None:
    """The data folder `seqdesk run --resume` would start the app on, when its files show that it holds
    no run `run_id` (`gui.stored_ids`, read without taking the folder): the command says so then,
    rather than start an app only to hear it. None when the run may be there, when the files cannot
    tell, when an app serves the folder (it is asked: nothing is started for that), or when the
    settings lead to no folder here."""
    folder = local_folder(settings or load_settings())
    if folder is None:
        return None
    from gui.second_launch import read_endpoint
    from gui.stored_ids import may_hold

    if read_endpoint(folder) is not None:
        return None
    return folder if may_hold(folder, "runs", run_id) is False else None


async def team_door(url: str, token: str | None) -> Operations:
    """The door of the team server at `url` (`--connect` / SEQDESK_CONNECT: `seqdesk serve`), through its
    HTTP API; Invalid for an address that is none, Unavailable when nothing answers there."""
    from gui.core.errors import Unavailable
    from gui.remote import RemoteEngine
    from gui.serving import team_url

    remote = RemoteEngine(team_url(url), token)
    if not await remote.answers():
        await remote.close()
        raise Unavailable(f"the SeqDesk team server at {url} did not answer: check the address it printed "
                          "when it started (seqdesk serve), and that it runs")
    return remote


async def _after_ending(folder: Path, token: str | None, answered_here: bool, within: float = 15.0) -> Any:
    """The door of the app serving `folder` once the one that no longer answers has ended (its endpoint
    then reads as none: None), or of one that answers again; still the silent one after `within` s."""
    from gui.remote import remote_for

    deadline = asyncio.get_running_loop().time() + within
    while True:
        remote = remote_for(folder, token, answered_here=answered_here)
        if remote is None or await remote.answers(timeout=1.0) or asyncio.get_running_loop().time() > deadline:
            return remote
        await remote.close()
        await asyncio.sleep(0.1)  # an ending process tells nobody when it is gone: look again soon


async def known_host_names(settings: Settings) -> tuple[frozenset[str] | None, str]:
    """The names a step's `on` may give, for `seqdesk check`, from whoever knows them without opening
    the data folder: the team server (`--connect`), else the app serving the data folder, else the
    executor's service (SEQDESK_EXECUTOR); with where they come from. (None, why) when none can say."""
    from gui.core.errors import SeqDeskError
    from gui.remote import RemoteEngine, remote_for
    from gui.runtime import chosen_executor
    from gui.serving import team_url

    if settings.connect is not None:
        where = f"the team server at {settings.connect}"
        try:
            remote = RemoteEngine(team_url(settings.connect), settings.token)
        except SeqDeskError as exc:
            return None, f"{where} cannot be reached: {exc}"
        return await _names_of(remote, where)
    if not settings.memory and (settings.store is None or settings.data is not None):  # a folder, not a database
        folder = _folder_of(settings)
        try:
            serving = remote_for(folder, settings.token)
        except SeqDeskError as exc:
            return None, str(exc)
        if serving is not None:
            return await _names_of(serving, f"the SeqDesk app serving {folder}")
    executor = chosen_executor()
    if executor is None:
        return None, ("no team server is given (--connect), no SeqDesk app serves the data folder, and no "
                      "executor is given (--executor temporal://…)")
    from gui.temporal import parse_target
    from gui.temporal.hosts import host_names_at

    try:
        target = parse_target(executor)
        return await host_names_at(target.address, target.namespace), f"the Temporal service at {target.address}"
    except SeqDeskError as exc:
        return None, str(exc)
    except Exception as exc:  # RuntimeError, RPCError, TimeoutError: the service did not answer
        return None, f"the Temporal service at {executor} did not answer ({type(exc).__name__}: {exc})"


async def _names_of(remote: Any, where: str) -> tuple[frozenset[str] | None, str]:
    from gui.core.errors import SeqDeskError

    try:
        names = await remote.host_names()
    except SeqDeskError as exc:
        return None, f"{where} did not list its hosts: {exc}"
    finally:
        await remote.close()
    if names is None:  # it runs sequences in its own process: as it does, no name is a host's
        return frozenset(), f"{where}, which runs sequences in its own process (no step runs on a host there)"
    return names, where


def _usable_folder(settings: Settings) -> Path:
    """The data folder the settings name, as `resolve_data_dir` gives it, without loading the store
    when it is there and writable (the app that serves it checks it once more as it opens it): a
    door that goes through that app starts it this much sooner."""
    import os

    folder = _folder_of(settings)
    if folder.is_dir() and os.access(folder, os.W_OK | os.X_OK):
        return folder
    return resolve_data_dir(settings)  # created, or a sentence saying why it cannot be


def _folder_of(settings: Settings) -> Path:
    """The data folder the settings name, or the platform's, as it is: neither created nor checked."""
    from gui.second_launch import data_folder  # without loading the store (`gui.store.datadir`)

    return data_folder(settings.data)
