"""A page of runs sent on as JSON (`TinyRunStore.query_texts`): a history text the store vouches for
(`gui.store.vouching`) is given as it is, unread, and says what reading it would say; any other
text (changed on disk, even with the file's stamp kept; of another shape; one the model would read
otherwise) is read and checked as before, and what does not fit is left out with a sentence."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from support.hotcold import open_store
from tinydb import where

from gui.core.queries import StoredText
from gui.core.runs import GroupRecord, RunRecord, ToolRecord
from gui.store.open import open_stores
from gui.store.slices import KEY, TABLE
from gui.store.vouching import Vouching, vouching


def run(n: int, status: str = "succeeded") -> RunRecord:
    tool = ToolRecord(index=0, tool="echo", tool_call_id=f"c{n}", status="succeeded", started_at=n + 0.5,
                      finished_at=n + 1.25, args={"value": {"nested": [n], "said": "é ✓"}}, result=f"done {n}")
    return RunRecord(run_id=f"run{n:03d}", sequence=f"nightly-{n % 2}", status=status,  # type: ignore[arg-type]
                     created_at=1_700_000_000.5 + n, finished_at=1_700_000_001.5 + n,
                     groups=[GroupRecord(index=0, name="g", tools=[tool])])


def ident(item: RunRecord | StoredText) -> str:
    return item.id if isinstance(item, StoredText) else item.run_id


def values(item: RunRecord | StoredText) -> object:
    """The JSON value a page sends for the item (`gui.api.runs`)."""
    return json.loads(item.text if isinstance(item, StoredText) else item.model_dump_json(by_alias=True))


async def stored(folder: Path, records: list[RunRecord]) -> None:
    stores = await open_stores(folder, segment_docs=3)
    try:
        await stores.runs.save_many(records)
    finally:
        stores.close()


async def page_of(folder: Path, **query: object) -> list[RunRecord | StoredText]:
    stores = await open_stores(folder, segment_docs=3)
    try:
        return (await stores.runs.query_texts(**query)).items  # type: ignore[arg-type]
    finally:
        stores.close()


def segment_holding(folder: Path, run_id: str) -> tuple[Path, int, int]:
    """The history segment holding `run_id`, and where its text lies there."""
    for index in sorted((folder / "history").glob("runs-*.index.json")):
        segment = index.with_name(index.name.replace(".index.json", ".json"))
        raw = segment.read_bytes()
        key = f'"{run_id}":'.encode()
        if key in raw:
            start = raw.index(key) + len(key)
            return segment, start, start + len(json.dumps(json.loads(raw)["runs"][run_id], separators=(",", ":")))
    raise AssertionError(f"{run_id} is in no segment")


def changed_in_place(segment: Path, start: int, stop: int, text: bytes) -> None:
    """`text` written over bytes `start` to `stop` of `segment`, the file keeping its stamp (the
    same inode, size and time of last change): what the slices' stamp cannot see."""
    assert len(text) == stop - start
    before = segment.stat()
    with segment.open("r+b") as out:
        out.seek(start)
        out.write(text)
    os.utime(segment, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = segment.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)


async def test_a_page_of_history_is_the_stored_text_and_says_what_reading_it_says(tmp_path):
    records = [run(n, "failed" if n % 3 == 0 else "succeeded") for n in range(8)]
    await stored(tmp_path, records)
    for query in ({}, {"limit": 3, "offset": 2}, {"status": "failed"}, {"text": "NIGHTLY-1"}):
        items = await page_of(tmp_path, **query)
        stores = await open_stores(tmp_path, segment_docs=3)
        try:
            read = (await stores.runs.query(**query)).items  # type: ignore[arg-type]
        finally:
            stores.close()
        assert items and all(isinstance(item, StoredText) for item in items)  # none of them read
        assert [values(item) for item in items] == [values(record) for record in read]
        assert [ident(item) for item in items] == [record.run_id for record in read]
    assert [values(item) for item in await page_of(tmp_path, limit=2)] == [values(r) for r in records[:-3:-1]]


async def test_a_text_changed_on_disk_with_the_stamp_kept_is_read_and_checked_again(tmp_path, caplog):
    await stored(tmp_path, [run(n) for n in range(6)])
    segment, start, stop = segment_holding(tmp_path, "run004")
    text = segment.read_bytes()[start:stop]
    changed_in_place(segment, start, stop, text.replace(b'"done 4"', b'"DONE 4"'))
    items = {ident(item): item for item in await page_of(tmp_path)}
    assert isinstance(items["run004"], RunRecord)  # not sent as it is: read, as any stored record
    assert items["run004"].groups[0].tools[0].result == "DONE 4"
    assert all(isinstance(item, StoredText) for run_id, item in items.items() if run_id != "run004")
    # a text made into two objects (one of them no run) within the same bytes: refused, never sent on
    injected = b'{"run_id":"run004"},{"x":"' + b"y" * (stop - start - 28) + b'"}'
    changed_in_place(segment, start, stop, injected)
    with caplog.at_level(logging.WARNING):
        items = {ident(item): item for item in await page_of(tmp_path)}
    assert "run004" not in items and len(items) == 5
    assert "the stored RunRecord 'run004' cannot be read and is left out" in caplog.text


async def test_texts_are_not_vouched_for_by_a_store_of_another_shape_or_with_damaged_digests(tmp_path):
    await stored(tmp_path, [run(n) for n in range(3)])
    store = open_store(tmp_path, segment_docs=3, vouching=Vouching(lambda: b"another shape", lambda text: True))
    texts, _ = store.find_vouched_texts(where("created_at") > 0, lambda fields, doc_id: doc_id)
    other = Vouching(lambda: b"another shape", lambda text: True)
    assert texts and not any(other.matches(doc_id, text, digest) for doc_id, text, digest in texts)  # type: ignore[arg-type]
    mine = vouching(RunRecord, by_alias=True)
    assert all(mine.matches(doc_id, text, digest) for doc_id, text, digest in texts)  # type: ignore[arg-type]
    store.close()
    index = tmp_path / "history" / "runs-0001.index.json"
    kept = json.loads(index.read_text())
    kept[TABLE][KEY]["vouched"] = kept[TABLE][KEY]["vouched"][:-8]  # cut short: none of them is vouched for
    index.write_text(json.dumps(kept))
    items = await page_of(tmp_path)
    assert [values(item) for item in items] == [values(run(n)) for n in (2, 1, 0)]
    assert not any(isinstance(item, StoredText) for item in items)


def test_only_a_text_the_model_reads_back_as_itself_is_vouched_for():
    reads_as_written = vouching(RunRecord, by_alias=True).reads_as_written
    record = run(1).model_dump(mode="json", by_alias=True)
    written = json.dumps(record, separators=(",", ":")).encode()
    assert reads_as_written(written)  # as the store writes it (ASCII)
    assert reads_as_written(run(1).model_dump_json(by_alias=True).encode())  # as pydantic (and the API) writes it
    assert not reads_as_written(json.dumps(record).encode())  # the same values, written otherwise
    earlier = {k: v for k, v in record.items() if k != "started_by"}  # a version before the field was
    assert not reads_as_written(json.dumps(earlier, separators=(",", ":")).encode())
    stopped = {**record, "status": "stopped", "error": "stopped by the user"}  # kept before causes were
    assert RunRecord.model_validate(stopped).cause is not None
    assert not reads_as_written(json.dumps(stopped, separators=(",", ":")).encode())
    assert not reads_as_written(json.dumps({**record, "finished_at": float("nan")}, separators=(",", ":")).encode())
    assert not reads_as_written(json.dumps({**record, "status": "weird"}, separators=(",", ":")).encode())
    assert not reads_as_written(b"{" + written[1:-1] + b',"x":1}{}')


async def test_a_text_the_model_would_read_otherwise_is_read_not_sent_as_it_is(tmp_path):
    legacy = run(1)
    legacy.status, legacy.error = "stopped", "stopped by the user"  # as kept before causes were (no cause)
    await stored(tmp_path, [run(0), legacy])
    items = {ident(item): item for item in await page_of(tmp_path)}
    assert isinstance(items["run000"], StoredText)
    assert isinstance(items["run001"], RunRecord) and items["run001"].cause == "person"


async def test_a_text_too_long_to_check_on_the_writer_is_read_as_before(tmp_path):
    from gui.store.vouching import CHECKED_AT_MOST

    long = run(1)
    long.groups[0].tools[0].result = "x" * CHECKED_AT_MOST
    await stored(tmp_path, [run(0), long])
    items = {ident(item): item for item in await page_of(tmp_path)}
    assert isinstance(items["run000"], StoredText)
    assert isinstance(items["run001"], RunRecord) and items["run001"] == long
