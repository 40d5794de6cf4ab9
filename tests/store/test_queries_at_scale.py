"""History queries answered from the segment views agree with testing every record, across segments
whose key ranges overlap, for every filter the pages use; and a page of the newest orders only the
segments that hold it."""

from __future__ import annotations

import asyncio
import random
import shutil
from pathlib import Path

import pytest

from gui.core.asks.interactions import InteractionRecord, interaction_fields
from gui.core.asks.store import InteractionFilter
from gui.core.queries import sort_key
from gui.core.runs.records import RunRecord
from gui.core.runs.store import RunFilter, run_fields
from gui.store import history as history_module
from gui.store.open import open_stores

SEQUENCES = ["nightly build", "Deploy to production", "backup", "nightly check"]
STATUSES = ["succeeded", "failed", "stopped", "degraded"]


def make_run(n: int, rng: random.Random) -> RunRecord:
    created = 1_000 + n + rng.choice([0, 0, 0, -40, 25])  # mostly in order; some archived late or early
    status = "running" if n % 17 == 0 else rng.choice(STATUSES)
    return RunRecord(run_id=f"r{n:04d}", sequence=rng.choice(SEQUENCES), status=status,  # type: ignore[arg-type]
                     created_at=created, finished_at=None if status == "running" else created + 1)


def make_request(n: int, rng: random.Random) -> InteractionRecord:
    iid = f"i{n:04d}"
    base = {"interaction_id": iid, "turn_id": f"r{rng.randrange(40):04d}", "created_at": 5_000 + n,
            "sequence_name": rng.choice(SEQUENCES),
            "source": {"type": "tool", "tool_call_id": f"c{n}", "tool_name": rng.choice(["cmd_run", "ask_user"])}}
    if rng.random() < 0.5:
        request = {**base, "kind": "approval", "operation": "tool", "validated_input": {}}
        answer = {"kind": "approval", "decision": "approved"}
    else:
        request = {**base, "kind": "question", "title": "t",
                   "questions": [{"question_id": "q", "prompt": "?", "response_type": "text"}]}
        answer = {"kind": "question", "answers": [{"question_id": "q", "value": "x"}]}
    status = rng.choice(["pending", "resolved", "expired", "cancelled"] if n % 9 == 0 else
                        ["resolved", "expired", "cancelled"])
    results = {"resolved": {"status": "resolved", "interaction_id": iid, "response": answer},
               "expired": {"status": "expired", "interaction_id": iid},
               "cancelled": {"status": "cancelled", "interaction_id": iid, "reason": "turn_stopped"}}
    record: dict = {"request": request, "status": status}
    if status != "pending":
        record.update(resolved_at=base["created_at"] + 1, result=results[status])
    return InteractionRecord.model_validate(record)


def records() -> tuple[list[RunRecord], list[InteractionRecord]]:
    """The same 130 runs and 130 requests at every call (fresh objects: a test may not change another's)."""
    rng = random.Random(7)
    runs = [make_run(n, rng) for n in range(130)]
    requests = [make_request(n, rng) for n in range(130)]
    return runs, requests


async def save(folder: Path) -> None:
    opened = await open_stores(folder, segment_docs=9)
    runs, requests = records()
    await opened.runs.save_many(runs)
    await opened.interactions.save_many(requests)
    opened.close()


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The records saved once for the whole module (every write waits for the disk: seconds on a busy one)."""
    folder = tmp_path_factory.mktemp("at-scale")
    asyncio.run(save(folder))
    return folder


@pytest.fixture
async def stores(saved: Path, tmp_path: Path):
    """The saved folder, copied for this test alone and opened: its history read back from its files."""
    folder = tmp_path / "data"
    shutil.copytree(saved, folder)
    reopened = await open_stores(folder, segment_docs=9)
    runs, requests = records()
    yield reopened, runs, requests
    reopened.close()


def newest_first(records, fields, wanted):
    rows = sorted(((sort_key(fields(r), r_id), r_id) for r, r_id in records if wanted.matches(fields(r))),
                  reverse=True)
    return [r_id for _, r_id in rows]


RUN_FILTERS = [RunFilter(), RunFilter(status="failed"), RunFilter(sequence="backup"), RunFilter(text="NIGHTLY"),
               RunFilter(text="production", status="succeeded"), RunFilter(started_from=1040, started_to=1090),
               RunFilter(started_from=1100), RunFilter(status="running"), RunFilter(text="nothing like it")]


@pytest.mark.parametrize("wanted", RUN_FILTERS, ids=repr)
async def test_run_queries_agree_with_testing_every_run(stores, wanted):
    opened, runs, _ = stores
    expected = newest_first([(r, r.run_id) for r in runs], run_fields, wanted)
    for limit, offset in [(50, 0), (7, 3), (10, 60), (1000, 0)]:
        page = await opened.runs.query(status=wanted.status, sequence=wanted.sequence, text=wanted.text,
                                       started_from=wanted.started_from, started_to=wanted.started_to,
                                       limit=limit, offset=offset)
        assert [r.run_id for r in page.items] == expected[offset:offset + limit]
        assert page.total == len(expected)


INTERACTION_FILTERS = [InteractionFilter(), InteractionFilter(status="pending"), InteractionFilter(status="ended"),
                       InteractionFilter(status="expired", kind="question"), InteractionFilter(run_id="r0003"),
                       InteractionFilter(sequence="backup", tool_name="ask_user"),
                       InteractionFilter(status="ended", kind="approval", sequence="nightly check")]


@pytest.mark.parametrize("wanted", INTERACTION_FILTERS, ids=repr)
async def test_interaction_queries_agree_with_testing_every_request(stores, wanted):
    opened, _, requests = stores
    expected = newest_first([(r, r.interaction_id) for r in requests], interaction_fields, wanted)
    for limit, offset in [(50, 0), (5, 2), (1000, 0)]:
        page = await opened.interactions.query(status=wanted.status, kind=wanted.kind, run_id=wanted.run_id,
                                               sequence=wanted.sequence, tool_name=wanted.tool_name,
                                               limit=limit, offset=offset)
        assert [r.interaction_id for r in page.items] == expected[offset:offset + limit]
        assert page.total == len(expected)


async def test_a_page_of_the_newest_orders_only_the_segments_that_hold_it(stores, monkeypatch):
    opened, runs, _ = stores
    ordered: list[int] = []
    real = history_module.SegmentView.ordered

    def counting(self, *args, **kwargs):  # a segment's entries put in order: the work a page must not do for all
        ordered.append(id(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(history_module.SegmentView, "ordered", counting)
    page = await opened.runs.query(limit=5)
    assert page.total == len(runs)
    assert 1 <= len(ordered) <= 3  # of 13 segments: the newest one, and those whose times reach into it
