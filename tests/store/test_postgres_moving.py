"""`seqdesk data export/import`: a data folder's things moved into a PostgreSQL database and back, checked
document by document; an import into a store that holds things refuses unless told to merge."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from contract_support import interaction, run, sequence

from gui.core.asks import ApprovalRule
from gui.core.runs import Schedule
from gui.moving import NotEmpty, documents, export, import_, opened

pytestmark = pytest.mark.postgres
REPO = Path(__file__).resolve().parents[2]  # the repository


async def fill(where: str) -> None:
    async with opened(where) as place:
        stores = place.stores
        await stores.sequences.save(sequence("nightly", "builds every night"))
        await stores.runs.save_many([run(f"r{n}", created_at=1000.0 + n) for n in range(7)])
        await stores.runs.save(run("live", status="running", created_at=2000.0))
        await stores.interactions.save_many([interaction(f"i{n}", status="resolved", created_at=n) for n in range(5)])
        await stores.interactions.save(interaction("waiting", created_at=99))
        await stores.modes.set("http_get", "always-allow")
        await stores.modes.add_rule(ApprovalRule(rule_id="r1", tool="cmd_run", scope="prefix", prefix="git status"))
        await stores.schedules.save(Schedule(schedule_id="s1", sequence="nightly", every=900.0, created_at=1.0,
                                             next_at=901.0))


async def test_a_folder_moves_into_a_database_and_back_whole(tmp_path, seqdesk_database_url):
    folder = str(tmp_path / "data")
    await fill(folder)
    async with opened(folder) as place:
        original = await documents(place)
    moved_out = await export(folder, tmp_path / "out.jsonl")
    assert moved_out.counts == {"sequence": 1, "run": 8, "interaction": 6, "mode": 1, "rule": 1, "schedule": 1}
    into_database = await import_(tmp_path / "out.jsonl", seqdesk_database_url)
    assert into_database.differences == []
    await export(seqdesk_database_url, tmp_path / "back.jsonl")
    back = await import_(tmp_path / "back.jsonl", str(tmp_path / "again"))
    assert back.differences == []
    async with opened(str(tmp_path / "again")) as place:
        assert await documents(place) == original


async def test_an_import_into_a_store_that_holds_things_refuses_unless_told_to_merge(tmp_path, seqdesk_database_url):
    folder = str(tmp_path / "data")
    await fill(folder)
    await export(folder, tmp_path / "out.jsonl")
    await import_(tmp_path / "out.jsonl", seqdesk_database_url)
    with pytest.raises(NotEmpty, match="already holds .* add --merge"):
        await import_(tmp_path / "out.jsonl", seqdesk_database_url)
    assert (await import_(tmp_path / "out.jsonl", seqdesk_database_url, merge=True)).differences == []


def test_the_commands_say_counts_and_refusals_in_one_line(tmp_path, seqdesk_database_url):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("SEQDESK_MEMORY", None)

    def seqdesk(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "gui", *args], env=env, capture_output=True, text=True,
                              timeout=120)

    empty = seqdesk("data", "export", str(tmp_path / "nothing"), str(tmp_path / "empty.jsonl"))
    assert empty.returncode == 0 and "nothing" in empty.stdout
    head = json.loads((tmp_path / "empty.jsonl").read_text().splitlines()[0])
    assert head == {"seqdesk_export": 1, "counts": {}}
    assert seqdesk("data", "import", str(tmp_path / "empty.jsonl"), seqdesk_database_url).returncode == 0
    bad = seqdesk("data", "import", str(tmp_path / "missing.jsonl"), seqdesk_database_url)
    assert bad.returncode == 2 and "cannot read" in bad.stderr and "Traceback" not in bad.stderr
