"""A damaged store file at open: what parses is saved, the original kept aside, and a notice says so."""

from __future__ import annotations

import json

from contract_support import interaction, run, sequence

from gui.runtime import open_store_runtime
from gui.store.open import open_stores


def cut_after(raw: bytes, marker: str, extra: int = 30) -> bytes:
    """The file cut `extra` bytes into the document that starts with `marker` (a power cut mid-copy)."""
    return raw[: raw.index(marker.encode()) + extra]


def aside(folder, name: str) -> list:
    return sorted(p for p in folder.iterdir() if p.name.startswith(f"{name}.corrupt-"))


async def test_a_damaged_hot_file_keeps_its_intact_documents_and_says_so(tmp_path):
    stores = await open_stores(tmp_path)
    for n in range(4):
        await stores.runs.save(run(f"r{n}", status="running", created_at=n))
    stores.close()
    original = cut_after((tmp_path / "runs.json").read_bytes(), '"r3"')
    (tmp_path / "runs.json").write_bytes(original)

    runtime = await open_store_runtime(tmp_path)
    try:
        running = await runtime.engine.runs.running()
        assert [r.run_id for r in running] == ["r0", "r1", "r2"]
        [moved] = aside(tmp_path, "runs.json")
        assert moved.read_bytes() == original  # the original, byte for byte
        [notice] = runtime.notices
        assert str(tmp_path / "runs.json") in notice and "3 entries were saved" in notice
        assert f"moved aside to {moved}" in notice
    finally:
        await runtime.close()

    again = await open_store_runtime(tmp_path)  # repaired for good: no notice the next time
    try:
        assert again.notices == [] and len(await again.engine.runs.running()) == 3
    finally:
        await again.close()


async def test_garbage_in_the_sequences_file_loses_only_the_sequence_it_hit(tmp_path):
    stores = await open_stores(tmp_path)
    for name in ["alpha", "beta", "gamma"]:
        await stores.sequences.save(sequence(name))
    stores.close()
    text = (tmp_path / "sequences.json").read_text()
    at = text.index(json.dumps("beta"))
    (tmp_path / "sequences.json").write_text(text[:at] + "}}]]garbage" + text[at + 12:])

    stores = await open_stores(tmp_path)
    try:
        assert sorted(s.name for s in await stores.sequences.list()) == ["alpha", "gamma"]
        assert len(stores.notices) == 1 and "2 entries were saved" in stores.notices[0]
    finally:
        stores.close()


async def test_a_damaged_history_segment_keeps_its_intact_runs_queryable(tmp_path):
    stores = await open_stores(tmp_path, segment_docs=4)
    await stores.runs.save_many([run(f"h{n}", created_at=n, status="failed" if n % 2 else "succeeded")
                                 for n in range(8)])
    stores.close()
    segment = tmp_path / "history" / "runs-0001.json"
    segment.write_bytes(cut_after(segment.read_bytes(), '"h2"'))

    stores = await open_stores(tmp_path, segment_docs=4)
    try:
        page = await stores.runs.query(limit=10)
        assert [r.run_id for r in page.items] == ["h7", "h6", "h5", "h4", "h1", "h0"] and page.total == 6
        assert (await stores.runs.query(status="failed")).total == 3
        assert await stores.runs.get("h2") is None and (await stores.runs.get("h1")).status == "failed"
        assert "runs-0001.json" in stores.notices[0] and "2 entries were saved" in stores.notices[0]
    finally:
        stores.close()


async def test_a_damaged_index_is_rebuilt_from_its_segment_and_nothing_is_lost(tmp_path):
    stores = await open_stores(tmp_path, segment_docs=4)
    await stores.interactions.save_many([interaction(f"i{n}", status="resolved", created_at=n) for n in range(6)])
    stores.close()
    (tmp_path / "history" / "interactions-0001.index.json").write_text("{not an index")

    stores = await open_stores(tmp_path, segment_docs=4)
    try:
        page = await stores.interactions.query(status="resolved")
        assert [r.interaction_id for r in page.items] == [f"i{n}" for n in reversed(range(6))]
        [notice] = stores.notices
        assert "interactions-0001.index.json" in notice and "rebuilt" in notice and "nothing was lost" in notice
        assert len(aside(tmp_path / "history", "interactions-0001.index.json")) == 1
    finally:
        stores.close()


async def test_a_damaged_settings_file_keeps_the_approval_modes(tmp_path):
    stores = await open_stores(tmp_path)
    await stores.modes.set("cmd_run", "always-allow")
    stores.close()
    (tmp_path / "settings.json").write_bytes((tmp_path / "settings.json").read_bytes() + b"\x00trailing junk")

    stores = await open_stores(tmp_path)
    try:
        assert stores.modes.get("cmd_run") == "always-allow"
        assert "1 entry was saved" in stores.notices[0]
    finally:
        stores.close()
