"""`may_hold`: whether a data folder's store may hold an id, read from its files without opening the store
(no lock, nothing written): hot (journal or snapshot) or in history (index, or the segment whose index is
missing or damaged); "cannot tell" rather than a wrong "no"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.hotcold import open_store

from gui.store.lock import InstanceLock
from gui.store.recovery import open_store as repairing
from gui.stored_ids import may_hold


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` with its size and time of its last change."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


def filled(folder: Path) -> None:
    """Runs a1..a6 in history (two segments, a run each in three documents), h1 hot in the journal, h2 hot
    in the snapshot (compacted), and a run naming a1 in a field of its own."""
    store = open_store(folder, segment_docs=3)
    for n in range(1, 7):
        store.put_hot(f"a{n}", {"status": "succeeded"})
        store.archive(f"a{n}")
    store.put_hot("h2", {"status": "running", "resumed_from": "x9"})
    store.compact()
    store.put_hot("h1", {"status": "running"})
    store.close()


def test_an_id_hot_or_in_history_may_be_held_and_any_other_is_not(tmp_path):
    filled(tmp_path)
    for doc_id in ("a1", "a4", "a6", "h1", "h2"):
        assert may_hold(tmp_path, "runs", doc_id) is True, doc_id
    assert may_hold(tmp_path, "runs", "nope") is False
    assert may_hold(tmp_path, "runs", "a") is False  # a start of an id is not the id
    assert may_hold(tmp_path, "runs", "x9") is True  # named by a run: "maybe", and the store is asked
    assert may_hold(tmp_path, "sequences", "a1") is False


def test_the_folder_is_read_as_it_is_while_another_process_holds_it_and_nothing_is_written(tmp_path):
    filled(tmp_path)
    before = listing(tmp_path)
    with InstanceLock(tmp_path):
        assert may_hold(tmp_path, "runs", "nope") is False
        assert may_hold(tmp_path, "runs", "a5") is True
    assert listing(tmp_path) == before | {"seqdesk.lock": listing(tmp_path)["seqdesk.lock"]}
    assert may_hold(tmp_path / "not-there", "runs", "a1") is False  # and not made either
    assert not (tmp_path / "not-there").exists()


def test_a_segment_whose_index_is_missing_or_damaged_is_searched_itself(tmp_path):
    filled(tmp_path)
    history = tmp_path / "history"
    first, second = sorted(history.glob("runs-*.index.json"))
    first.unlink()  # the store rebuilds it from its segment at open
    second.write_bytes(b'{"index":{"a5":{},')  # cut short, without a4: moved aside and rebuilt
    for doc_id in ("a1", "a4"):
        assert may_hold(tmp_path, "runs", doc_id) is True, doc_id
    assert may_hold(tmp_path, "runs", "nope") is False
    repaired = repairing(tmp_path, "runs", report=lambda damage: None)  # the store agrees, once it repaired them
    assert repaired.get("a1") is not None and repaired.get("a4") is not None


def test_it_cannot_tell_for_an_id_json_writes_otherwise_nor_for_a_file_it_cannot_read(tmp_path):
    filled(tmp_path)
    assert may_hold(tmp_path, "runs", 'a"1') is None
    assert may_hold(tmp_path, "runs", "é") is None
    assert may_hold(tmp_path, "runs", "") is None
    (tmp_path / "runs.journal").unlink()
    (tmp_path / "runs.journal").mkdir()  # read as a file, it fails
    assert may_hold(tmp_path, "runs", "nope") is None
    plain = tmp_path / "file"
    plain.write_text("x")
    assert may_hold(plain, "runs", "nope") is None
    if os.geteuid() != 0:  # root reads anything
        (tmp_path / "runs.journal").rmdir()
        (tmp_path / "runs.journal").write_bytes(b"")
        (tmp_path / "runs.journal").chmod(0)
        assert may_hold(tmp_path, "runs", "nope") is None


def test_it_reads_the_store_s_layout_without_loading_the_store(tmp_path):
    from gui import stored_ids
    from gui.store.journal import JOURNAL_SUFFIX

    assert stored_ids.JOURNAL_SUFFIX == JOURNAL_SUFFIX
    assert open_store(tmp_path).history_folder == tmp_path / stored_ids.HISTORY
    script = ("import sys, gui.doors, gui.stored_ids; "
              "print(sorted(m for m in sys.modules if m.split('.')[:2] == ['gui', 'store'] or m == 'tinydb'))")
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"  # `seqdesk run --resume` of a run the folder holds goes on through the app
