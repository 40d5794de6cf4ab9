"""What an MCP form's answer costs in the process, from the person's answer to the server's reply.

A script, not a test: `python tests/bench/bench_form_answer.py [--count 500] [--fields 5]`.

A form of `--fields` fields (text, whole number, number, on/off, choice: the shapes of
`tests/mcp/elicit_server.py`'s order, repeated) is asked through `gui.mcp.elicit.answer_form`, as
the SDK's callback asks it, of the inbox's handler (`InboxElicitationHandler`) on the real
interaction service over the in-memory stores. Each sample answers it with `service.respond`, as
the inbox sends it, and ends when `answer_form` has the server's reply: the answer checked, stored
with its entry in the record of decisions, the handler woken, the reply typed for the server. The
form is asked before the clock starts.

Prints the median and the 10th-90th percentiles of each sample's wall and CPU time (the CPU time of
this process: the loop runs on one thread), in microseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

SHAPES: list[tuple[dict[str, Any], Any]] = [
    ({"type": "string", "minLength": 2}, "Bo"),
    ({"type": "integer", "minimum": 1, "maximum": 10, "default": 1}, 3),
    ({"type": "number"}, 1.5),
    ({"type": "boolean", "default": False}, True),
    ({"type": "string", "enum": ["S", "M", "L"], "default": "M"}, "L"),
]


def form(fields: int) -> tuple[Any, dict[str, Any]]:
    from mcp_types import ElicitRequestFormParams

    props: dict[str, Any] = {}
    values: dict[str, Any] = {}
    for i in range(fields):
        prop, value = SHAPES[i % len(SHAPES)]
        props[f"f{i}"], values[f"f{i}"] = prop, value
    schema = {"type": "object", "properties": props, "required": list(props)}
    return ElicitRequestFormParams(message="Order", requested_schema=schema), values


async def measure(count: int, fields: int) -> tuple[list[float], list[float]]:
    from gui.core.asks import ElicitationResponse, InboxElicitationHandler, InteractionService
    from gui.core.events import EventBus
    from gui.mcp.elicit import answer_form
    from gui.memory import MemoryApprovalModes, MemoryAuditLog, MemoryInteractionStore

    bus = EventBus()
    service = InteractionService(MemoryInteractionStore(), bus, modes=MemoryApprovalModes(), audit=MemoryAuditLog())
    handler = InboxElicitationHandler(service)
    asked: asyncio.Queue[str] = asyncio.Queue()
    bus.subscribe(lambda e: asked.put_nowait(e.data["interaction_id"]) if e.type == "interaction.created" else None)
    params, values = form(fields)
    answer = ElicitationResponse.accept(values)
    walls: list[float] = []
    cpus: list[float] = []
    for i in range(count + count // 10):  # the first tenth warms up, and is not kept
        replying = asyncio.ensure_future(answer_form("bench", params, None, handler))
        iid = await asyncio.wait_for(asked.get(), 5)
        wall, cpu = time.perf_counter(), time.process_time()
        await service.respond(iid, answer)
        reply = await replying
        if i >= count // 10:
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        assert getattr(reply, "action", None) == "accept", reply
    return walls, cpus


def spread(samples: list[float]) -> str:
    cuts = statistics.quantiles(samples, n=10)
    return f"median {statistics.median(samples) * 1e6:7.1f} us  (p10 {cuts[0] * 1e6:.1f}, p90 {cuts[-1] * 1e6:.1f})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--fields", type=int, default=5)
    args = parser.parse_args()
    walls, cpus = asyncio.run(measure(args.count, args.fields))
    print(f"form answer, {args.fields} fields, {len(walls)} samples")
    print(f"  wall: {spread(walls)}")
    print(f"  cpu:  {spread(cpus)}")


if __name__ == "__main__":
    main()
