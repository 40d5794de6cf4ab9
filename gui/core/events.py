"""Everything that happens to runs and interactions, as events on one bus.

The run panel, the run record, the HTTP event stream and the CLI all consume the same events
through `EventBus.subscribe`. Publishing never blocks: a subscriber is a plain callback that must
return quickly (queue the event and handle it elsewhere); a failing subscriber is dropped from the
delivery of that one event, never from the bus, and never breaks the publisher.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

log = logging.getLogger(__name__)
E = TypeVar("E", bound="Event")

_BASE_FIELDS = frozenset({"run_id", "at", "seq"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """One thing that happened; each kind is a subclass with typed fields. Plain dataclasses:
    thousands are made per second during a run (and none when nobody listens)."""

    TYPE: ClassVar[str] = "event"
    run_id: str | None = None
    at: float = field(default_factory=time.time)
    seq: int = 0

    @property
    def type(self) -> str:
        return self.TYPE

    @property
    def data(self) -> dict[str, Any]:
        """The kind's own fields, as sent on the wire (`data` of the event stream)."""
        return {name: getattr(self, name) for name in _own_fields(type(self))}

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "run_id": self.run_id, "data": self.data, "at": self.at, "seq": self.seq}


_OWN_FIELDS: dict[type[Event], tuple[str, ...]] = {}


def _own_fields(cls: type[Event]) -> tuple[str, ...]:
    # Cached by hand, not with functools.cache: mypy does not see a class object as Hashable when
    # the class defines __hash__ (it checks the unbound instance method), and rejects the call.
    names = _OWN_FIELDS.get(cls)
    if names is None:
        names = _OWN_FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls) if f.name not in _BASE_FIELDS)
    return names


@dataclass(frozen=True, slots=True, kw_only=True)
class RunStarted(Event):
    TYPE: ClassVar[str] = "run.started"
    sequence: str
    target: str | None = None
    depth: int = 0
    parent: str | None = None
    groups: list[str] = field(default_factory=list)
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class RunFinished(Event):
    TYPE: ClassVar[str] = "run.finished"
    sequence: str = ""
    status: str
    error: str | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    cause: str | None = None  # what stopped or interrupted it (`gui.core.causes`); None: it ended by itself


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupStarted(Event):
    TYPE: ClassVar[str] = "group.started"
    group: int
    group_name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupFinished(Event):
    TYPE: ClassVar[str] = "group.finished"
    group: int
    group_name: str
    status: str
    reason: str | None = None
    timed_out: bool = False  # its time limit ran out


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupSkipped(GroupFinished):
    TYPE: ClassVar[str] = "group.skipped"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolEvent(Event):
    """What every tool event says: which tool of which group, and its status now."""

    TYPE: ClassVar[str] = "tool"
    group: int
    group_name: str
    tool: int
    tool_name: str
    status: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolStarted(ToolEvent):
    TYPE: ClassVar[str] = "tool.started"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolWaiting(ToolEvent):
    """The tool waits for a person: `interaction_id` is the request in the inbox."""

    TYPE: ClassVar[str] = "tool.waiting"
    interaction_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResumed(ToolEvent):
    TYPE: ClassVar[str] = "tool.resumed"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolRetrying(ToolEvent):
    TYPE: ClassVar[str] = "tool.retrying"
    attempt: int
    of: int
    delay: float = 0.0
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolProgress(ToolEvent):
    """How far a long tool has come, as its MCP server reports it: `progress` of `total` (None when
    the server does not know the total), with an optional message such as "3 of 10 files"."""

    TYPE: ClassVar[str] = "tool.progress"
    progress: float
    total: float | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolLog(ToolEvent):
    """A log message a tool's MCP server sent during the call (it is kept in the tool's record too)."""

    TYPE: ClassVar[str] = "tool.log"
    level: str
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolFinished(ToolEvent):
    TYPE: ClassVar[str] = "tool.finished"
    error: str | None = None
    timed_out: bool = False  # its group's time limit ran out
    denied: bool = False  # a person said no, or nobody answered in time


@dataclass(frozen=True, slots=True, kw_only=True)
class InteractionCreated(Event):
    TYPE: ClassVar[str] = "interaction.created"
    interaction_id: str
    kind: str
    record: dict[str, Any]  # the stored record, as JSON


@dataclass(frozen=True, slots=True, kw_only=True)
class InteractionEnded(Event):
    TYPE: ClassVar[str] = "interaction.ended"
    interaction_id: str
    status: str
    reason: str | None = None  # why it was cancelled
    auto: bool = False  # approved by a rule, nobody asked
    # its JSON form (`model_dump(mode="json")`): on a data folder, the very document stored (read, never changed)
    record: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class InteractionChanged(Event):
    """A pending request changed without ending: a person approved it and more approvals are needed
    ("approved"), handed it to someone else ("handed_over"), or its approvers were reminded
    ("reminded") or someone else asked as well ("escalated"). `notify` names whom a notice is for
    (`role:NAME`, `person:NAME`; empty: whoever may answer)."""

    TYPE: ClassVar[str] = "interaction.changed"
    interaction_id: str
    change: str
    notify: tuple[str, ...] = ()
    record: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class SequenceSaved(Event):
    TYPE: ClassVar[str] = "sequence.saved"
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SequenceDeleted(Event):
    TYPE: ClassVar[str] = "sequence.deleted"
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SettingsChanged(Event):
    TYPE: ClassVar[str] = "settings.changed"
    setting: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolsChanged(Event):
    """What `list_tools` answers changed: a tool came or went, or an MCP server's connection changed."""

    TYPE: ClassVar[str] = "tools.changed"


@dataclass(frozen=True, slots=True, kw_only=True)
class UnknownEvent(Event):
    """An event of a kind this version does not know (read from a newer app's stream)."""

    kind: str
    payload: dict[str, Any] = field(default_factory=dict)

    @property
    def type(self) -> str:
        return self.kind

    @property
    def data(self) -> dict[str, Any]:
        return self.payload


EVENT_TYPES: dict[str, type[Event]] = {cls.TYPE: cls for cls in (
    RunStarted, RunFinished, GroupStarted, GroupFinished, GroupSkipped, ToolStarted, ToolWaiting, ToolResumed,
    ToolRetrying, ToolProgress, ToolLog, ToolFinished, InteractionCreated, InteractionEnded, InteractionChanged,
    SequenceSaved,
    SequenceDeleted, SettingsChanged, ToolsChanged)}


def parse_event(value: Any) -> Event | None:
    """The typed event from its JSON (`to_json`'s shape); UnknownEvent for a kind not known here,
    None when it is not an event at all."""
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        return None
    kind, data = value["type"], value.get("data")
    data = data if isinstance(data, dict) else {}
    base: dict[str, Any] = {"run_id": value.get("run_id") if isinstance(value.get("run_id"), str) else None,
                            "seq": value.get("seq") if isinstance(value.get("seq"), int) else 0}
    if isinstance(value.get("at"), int | float):
        base["at"] = float(value["at"])
    cls = EVENT_TYPES.get(kind)
    if cls is not None:
        known = {k: v for k, v in data.items() if k in _own_fields(cls)}
        try:
            return cls(**base, **known)
        except TypeError:  # a field it needs is missing: keep what came, untyped
            pass
    return UnknownEvent(**base, kind=kind, payload=data)


Subscriber = Callable[[Event], None]


class EventBus:
    def __init__(self) -> None:
        self._subscribers: dict[int, Subscriber] = {}
        # What `publish` delivers to: the subscribers as a tuple, made anew as one comes or goes (rarely),
        # so that a publish (thousands a second during a run) takes no lock and copies nothing.
        self._delivery: tuple[Subscriber, ...] = ()
        # Whether anyone subscribes now: a publisher may skip gathering an event's fields if not (an
        # attribute kept with `_delivery`, read for every tool call's two events).
        self.listened = False
        self._ids = itertools.count(1)
        self._seq = itertools.count(1)
        self._lock = threading.Lock()

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback` for every event from now on; returns the function that unsubscribes."""
        key = next(self._ids)
        with self._lock:
            self._subscribers[key] = callback
            self._delivery = tuple(self._subscribers.values())
            self.listened = bool(self._delivery)

        def unsubscribe() -> None:
            with self._lock:
                self._subscribers.pop(key, None)
                self._delivery = tuple(self._subscribers.values())
                self.listened = bool(self._delivery)

        return unsubscribe

    def publish(self, event_type: type[E], run_id: str | None = None, /, **fields: Any) -> E | None:
        """Deliver an event of `event_type` to every subscriber; None (and nothing built) when nobody listens."""
        subscribers = self._delivery
        if not subscribers:
            return None
        event = event_type(run_id=run_id, seq=next(self._seq), **fields)
        for callback in subscribers:
            try:
                callback(event)
            except Exception:  # a broken subscriber must not break a run
                log.exception("event subscriber failed on %s", event.type)
        return event

    def stream(self, maxsize: int = 10_000) -> EventStream:
        """Events as an async iterator on the current loop, subscribed from this call on (so nothing
        published after it is missed); safe to publish from other threads. Close it when done."""
        return EventStream(self, asyncio.get_running_loop(), maxsize)


class EventStream:
    """An eager subscription read with `async for`; `close()` (or leaving `async with`) unsubscribes.

    A reader too slow for `maxsize` waiting events loses the newest ones; `dropped` counts them.
    """

    def __init__(self, bus: EventBus, loop: asyncio.AbstractEventLoop, maxsize: int) -> None:
        self._loop = loop
        self._queue: asyncio.Queue[Event] = asyncio.Queue(maxsize=maxsize)
        self.dropped = 0
        self._unsubscribe = bus.subscribe(self._put)

    def _put(self, event: Event) -> None:
        def deliver() -> None:
            if self._queue.full():
                self.dropped += 1
            else:
                self._queue.put_nowait(event)

        try:
            if threading.get_ident() == getattr(self._loop, "_thread_id", None):
                deliver()
            else:
                self._loop.call_soon_threadsafe(deliver)
        except RuntimeError:  # loop closed
            pass

    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> Event:
        return await self._queue.get()

    def close(self) -> None:
        self._unsubscribe()

    async def __aenter__(self) -> EventStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
