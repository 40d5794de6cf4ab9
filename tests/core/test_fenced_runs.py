"""A run another process took over (a team's store refuses this process's writes of it: `LeaseLost`):
the runner stops its copy quietly, writes nothing more of it, and reads the run as the store has it."""

from __future__ import annotations

from support.engine import next_pending_request
from support.waiting import within

from gui.core.events import RunFinished
from gui.core.runs import LeaseLost, RunRecord
from gui.memory import MemoryStores
from gui.memory.runs import MemoryRunStore
from gui.runtime import compose_engine
from gui.tools import default_registry

TREE = {"name": "asks", "description": "", "groups": [{
    "name": "g", "description": "", "in": {}, "out": {}, "when": "true", "parallel": True, "missing": "fail",
    "timeout": None, "on_error": "abort", "tools": '{"tool": "cmd_run", "args": {"command": "echo hi"}} ;'}]}


class TakenOver(MemoryRunStore):
    """Runs another process took over: their writes from here are refused, as a fenced store refuses them."""

    def __init__(self) -> None:
        super().__init__()
        self.taken: set[str] = set()
        self.refused = 0

    async def save(self, record: RunRecord) -> None:
        if record.run_id in self.taken:
            self.refused += 1
            raise LeaseLost(f"run {record.run_id} was taken over by another SeqDesk process", [record.run_id])
        await super().save(record)


async def a_waiting_run_taken_over() -> tuple[object, TakenOver, str, str, list[object]]:
    runs = TakenOver()
    engine = compose_engine(default_registry(), MemoryStores(runs=runs))
    await engine.create(TREE)
    ended: list[object] = []
    engine.subscribe(lambda e: ended.append(e) if isinstance(e, RunFinished) else None)
    asked = next_pending_request(engine)
    started = await engine.start("asks", {})
    iid = await within(asked, "the run's approval request")
    theirs = await runs.get(started.run_id)
    assert theirs is not None
    theirs.status, theirs.cause, theirs.error = "interrupted", "app_stopped", "the app stopped"
    await runs.save(theirs)  # the other process marked it interrupted, and holds it now
    runs.taken.add(started.run_id)
    return engine, runs, started.run_id, iid, ended


async def test_a_refused_write_stops_the_run_here_and_keeps_the_other_process_record():
    engine, runs, run_id, iid, ended = await a_waiting_run_taken_over()
    await engine.respond(iid, {"kind": "approval", "decision": "approved"})  # the tool goes on, and saves
    record = await within(engine.runner.wait(run_id), "the run's end")
    assert run_id not in engine.runner.active_ids()
    assert record.status == "interrupted" and runs.refused >= 1
    assert (await runs.get(run_id)).status == "interrupted"
    assert [e.status for e in ended] == ["interrupted"]  # never the end this process would have written
    await engine.close()


async def test_abandoning_a_run_taken_over_writes_nothing_of_it():
    engine, runs, run_id, _iid, ended = await a_waiting_run_taken_over()
    assert await engine.runner.abandon(run_id) is True
    assert run_id not in engine.runner.active_ids() and runs.refused == 0
    assert (await within(engine.runner.wait(run_id), "the abandoned run's end")).status == "interrupted"
    assert await engine.runner.abandon(run_id) is False  # gone from here already
    await engine.close()
