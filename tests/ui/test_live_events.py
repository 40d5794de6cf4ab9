"""A page's subscription to the engine's events (`gui.ui.live`): the first event after a quiet
moment reaches the page at once; what follows within the interval waits for the next batch."""

from __future__ import annotations

from nicegui import ui
from nicegui.testing import User
from support.ui import engine, engine_open, shell  # noqa: F401  (engine_open: autouse, wait for the engine)
from support.waiting import wait_until

from gui.core.events import Event
from gui.ui.live import LiveEvents, live_events


async def test_the_first_event_arrives_at_once_and_the_next_ones_wait_for_the_batch(user: User):
    got: list[Event] = []
    subscriptions: list[LiveEvents] = []

    @ui.page("/live-probe")
    def probe() -> None:
        ui.label("probe")
        subscriptions.append(live_events(engine(), got.extend, types=("interaction.created",), interval=60))

    await user.open("/live-probe")
    await user.should_see("probe")
    await engine().interactions.request(shell("first"))
    await wait_until(lambda: len(got) == 1, "the first request's event on the page", timeout=5)  # not in 60 s
    await engine().interactions.request(shell("second"))
    await engine().interactions.request(shell("third"))
    assert [e.interaction_id for e in got] == ["first"]  # queued: a batch went less than 60 s ago
    await subscriptions[0].flush()
    assert [e.interaction_id for e in got] == ["first", "second", "third"]
