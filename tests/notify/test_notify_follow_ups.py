"""Reminders, escalations and hand-overs (issue 26, item 3) reach the notification channels that exist,
saying whom they are for; one approval of several is not sent. The engine's clock is moved, not waited on."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from support.listeners import http_listener
from support.team_directory import TEAM, Team

from gui.core.asks import Answerer
from gui.core.door.engine import Engine
from gui.core.events import InteractionCreated
from gui.memory import MemoryStores
from gui.notify import Notifier, NotifySettingsStore, SettingsInput
from gui.runtime import compose_engine
from gui.tools import default_registry

T = 10.0
STEP = ('{"tool": "cmd_run", "args": {"command": "echo hello"}, "approvers": ["role:oncall"], "required": 2, '
        '"remind_after": "30m", "escalate_after": "2h", "escalate_to": ["role:lead"]} ;')
SEQUENCE = {"name": "paged", "groups": [{"name": "page", "tools": STEP}]}


@pytest.fixture
async def current_engine() -> AsyncIterator[Engine]:
    engine = compose_engine(default_registry(), MemoryStores(), directory=Team(TEAM))
    yield engine
    await engine.close()


async def asked(engine: Engine) -> str:
    created: asyncio.Queue[str] = asyncio.Queue()
    stop = engine.subscribe(lambda e: created.put_nowait(e.interaction_id) if isinstance(e, InteractionCreated)
                            else None)
    try:
        await engine.create(SEQUENCE)
        await engine.start("paged", started_by="runner")
        async with asyncio.timeout(T):
            return await created.get()
    finally:
        stop()


async def test_a_reminder_an_escalation_and_a_hand_over_are_sent_for_whom_they_are(current_engine: Engine) -> None:
    with http_listener() as hook:
        target = Notifier(NotifySettingsStore(None), base_url=lambda: "http://127.0.0.1:9999", delays=(0.05,))
        target.update(SettingsInput.model_validate({"webhook_url": hook.url + "/hook"}))
        target.attach(current_engine)
        iid = await asked(current_engine)
        assert (await hook.arrived(1))[0].body["event"] == "request"
        service = current_engine.interactions
        start = time.time()
        await current_engine.respond(iid, {"kind": "approval", "decision": "approved"},
                                     Answerer(person="ana", via="app"))  # one of two: nobody is told
        service.clock = lambda: start + 31 * 60
        assert await service.follow_up() == [(iid, "remind")]
        service.clock = lambda: start + 2 * 3600 + 1
        assert await service.follow_up() == [(iid, "escalate")]
        await current_engine.hand_over(iid, "person:sam", "sam knows it", Answerer(person="li.wei", via="app"))
        # each is sent on its own (in the background): they may arrive in any order
        sent = {m.body["event"]: m.body for m in (await hook.arrived(4))[1:]}
        assert {(event, tuple(body["for"])) for event, body in sent.items()} == {
            ("reminder", ("role:oncall",)), ("escalation", ("role:lead",)), ("handed_over", ("person:sam",))}
        assert sent["reminder"]["title"] == "Still waiting: Run a command" and sent["reminder"]["interaction_id"] == iid
        assert sent["handed_over"]["title"] == "Handed to you: Run a command (sam knows it)"
        await target.idle()
        await target.close()
