"""Requests, stores and fixtures shared by the interaction service's tests."""


from __future__ import annotations

import asyncio
import time

from gui.core.asks.interactions import (
    Answer,
    ApprovalResponse,
    ElicitationField,
    ElicitationRequest,
    ExecutionSource,
    InteractionRecord,
    Question,
    QuestionOption,
    QuestionRequest,
    QuestionResponse,
    ShellApprovalRequest,
    ToolApprovalRequest,
    ToolSource,
)
from gui.core.events import Event, EventBus
from gui.memory import MemoryInteractionStore


def now_ms() -> int:
    return int(time.time() * 1000)


def shell(iid: str = "a1", run: str = "run-1", expires_at: int | None = None) -> ShellApprovalRequest:
    return ShellApprovalRequest(
        interaction_id=iid,
        turn_id=run,
        source=ToolSource(tool_call_id="c1", tool_name="cmd_run"),
        created_at=now_ms(),
        expires_at=expires_at,
        title="Run a command",
        command="rm -rf build",
        cwd="/tmp",
        reason="clean the build",
        operation="exec",
    )


def tool_approval(iid: str = "t1", run: str = "run-1") -> ToolApprovalRequest:
    return ToolApprovalRequest(
        interaction_id=iid,
        turn_id=run,
        source=ToolSource(tool_call_id="c2", tool_name="file_write"),
        created_at=now_ms(),
        validated_input={"path": "a.txt"},
    )


def options(*values: str) -> list[QuestionOption]:
    return [QuestionOption(value=v, label=v.title()) for v in values]


def question(iid: str = "q1", run: str = "run-1") -> QuestionRequest:
    return QuestionRequest(
        interaction_id=iid,
        turn_id=run,
        source=ExecutionSource(),
        created_at=now_ms(),
        title="Deploy",
        questions=[
            Question(question_id="env", prompt="Where?", response_type="single_select", options=options("dev", "prod")),
            Question(question_id="note", prompt="Why?", response_type="text"),
            Question(question_id="tags", prompt="Tags?", response_type="multi_select", options=options("a", "b")),
        ],
    )


def elicitation(iid: str = "e1", run: str = "run-1") -> ElicitationRequest:
    return ElicitationRequest(
        interaction_id=iid,
        turn_id=run,
        source=ExecutionSource(),
        created_at=now_ms(),
        server_name="db",
        message="Which table?",
        fields=[
            ElicitationField(name="table", type="string", required=True),
            ElicitationField(name="limit", type="number", required=True),
            ElicitationField(name="dry", type="boolean"),
            ElicitationField(name="mode", type="string", enum=["fast", "safe"]),
        ],
    )


APPROVE = ApprovalResponse(decision="approved")
GOOD_ANSWERS = QuestionResponse(
    answers=[
        Answer(question_id="env", value="prod"),
        Answer(question_id="note", value="release"),
        Answer(question_id="tags", value=["a", "b"]),
    ]
)


class LoggingStore(MemoryInteractionStore):
    """Writes 'saved <status>' into a shared log, beside the bus events, to check their order."""

    def __init__(self, log: list[str]) -> None:
        super().__init__()
        self.log = log

    async def save(self, record: InteractionRecord) -> None:
        await super().save(record)
        self.log.append(f"saved {record.status}")


class GateStore(MemoryInteractionStore):
    """Holds every save of a finished record until the test opens `gate`."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = asyncio.Event()
        self.gate = asyncio.Event()

    async def save(self, record: InteractionRecord) -> None:
        if record.status != "pending":
            self.entered.set()
            await self.gate.wait()
        await super().save(record)


def queue_of(bus: EventBus, type_: str) -> asyncio.Queue[Event]:
    queue: asyncio.Queue[Event] = asyncio.Queue()
    bus.subscribe(lambda e: queue.put_nowait(e) if e.type == type_ else None)
    return queue
