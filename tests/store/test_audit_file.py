"""The record of decisions on disk (`audit.jsonl`): one line per decision, only appended, durable
once acknowledged (even if the app is killed right after), continued across restarts, and a line
edited by hand is named by `verify`."""

from __future__ import annotations

import json
from pathlib import Path

from support.interactions import shell
from support.waiting import wait_until, within

from gui.core.asks import ApprovalResponse, AuditDraft, verify
from gui.runtime import open_store_runtime
from gui.store.audit import FileAuditLog, audit_path, read_documents
from gui.store.lock import DataFolderInUseError, InstanceLock
from gui.store.writer import Writer

HERE = Path(__file__).parent


def lock_is_free(folder: Path) -> bool:
    try:
        InstanceLock(folder).acquire().release()
    except DataFolderInUseError:
        return False
    return True


def draft(n: int) -> AuditDraft:
    return AuditDraft(at=n, interaction_id=f"i{n}", run_id="r", kind="approval", decision="approved",
                      by="person", person="you", via="app", shown=f"$ echo {n}")


async def appended(folder: Path, first: int, count: int) -> None:
    with Writer() as writer:
        log = await FileAuditLog.open(folder, writer)
        for n in range(first, first + count):
            await log.append(draft(n))
        log.close()


async def test_each_decision_is_a_line_and_a_reopened_log_continues_the_chain(tmp_path):
    await appended(tmp_path, 0, 3)
    await appended(tmp_path, 3, 2)
    documents = read_documents(audit_path(tmp_path))
    assert [d["position"] for d in documents if d] == [1, 2, 3, 4, 5]
    assert [d["interaction_id"] for d in documents if d] == ["i0", "i1", "i2", "i3", "i4"]
    assert verify(documents).ok


async def test_a_line_edited_by_hand_is_named_with_its_position_and_id(tmp_path):
    await appended(tmp_path, 0, 10)
    path = audit_path(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    edited = json.loads(lines[3])
    lines[3] = lines[3].replace('"decision":"approved"', '"decision":"denied"')
    path.write_text("".join(lines), encoding="utf-8")
    verdict = verify(read_documents(path))
    assert (verdict.broken_at, verdict.broken_id) == (4, edited["entry_id"])


async def test_a_last_line_cut_short_by_a_kill_is_cut_off_and_the_chain_goes_on(tmp_path):
    await appended(tmp_path, 0, 2)
    with audit_path(tmp_path).open("ab") as file:
        file.write(b'{"at":2,"interaction_id":"i2"')  # never acknowledged: the process died here
    await appended(tmp_path, 2, 1)
    documents = read_documents(audit_path(tmp_path))
    assert [d["interaction_id"] for d in documents if d] == ["i0", "i1", "i2"] and verify(documents).ok


async def test_an_answer_acknowledged_is_on_record_even_if_the_app_is_killed_right_after(tmp_path, spawn):
    child = spawn(str(HERE / "respond_child.py"), str(tmp_path), "answer")  # its lines read with a timeout
    iid = child.next_line(timeout=30).split()[1]
    assert child.next_line(timeout=30) == "responded"
    child.kill()
    documents = read_documents(audit_path(tmp_path))
    assert [(d["interaction_id"], d["decision"]) for d in documents if d] == [(iid, "approved")]
    assert "$ echo one" in (documents[0] or {})["shown"] and verify(documents).ok
    await wait_until(lambda: lock_is_free(tmp_path), "the killed child's lock to be gone", timeout=15, every=0.05)
    runtime = await open_store_runtime(tmp_path)  # the next start goes on with the same chain
    try:
        await runtime.engine.recover()
        documents = read_documents(audit_path(tmp_path))
        assert verify(documents).ok
    finally:
        await runtime.close()


async def test_an_answer_writes_its_decision_and_its_end_in_one_operation_of_the_writer(tmp_path, monkeypatch):
    """The decision first, then the request's end, together: an answer waits for the writer once."""
    runtime = await open_store_runtime(tmp_path)
    try:
        assert runtime.stores is not None
        writer, service = runtime.stores.writer, runtime.engine.interactions
        handle = await service.request(shell("a1"))
        operations: list[str] = []
        run = writer.run

        async def counted(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
            operations.append(getattr(fn, "__name__", repr(fn)))
            return await run(fn, *args, **kwargs)

        monkeypatch.setattr(writer, "run", counted)
        await service.respond("a1", ApprovalResponse(decision="approved"))
        assert len(operations) == 1, operations
        assert (await within(handle.result(), "a1's outcome")).status == "resolved"
        assert (await service.get("a1")).status == "resolved"  # type: ignore[union-attr]
        documents = read_documents(audit_path(tmp_path))
        assert [(d["interaction_id"], d["decision"]) for d in documents if d] == [("a1", "approved")]
    finally:
        await runtime.close()
