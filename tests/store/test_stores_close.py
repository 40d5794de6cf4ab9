"""Closing the stores of a data folder: their housekeeping is finished before the writer refuses work."""

from __future__ import annotations

import logging

from gui.core.asks.interactions import ExpiredResult, InteractionRecord, ShellApprovalRequest, ToolSource
from gui.store import journal
from gui.store.open import open_stores


def _request(n: int) -> ShellApprovalRequest:
    return ShellApprovalRequest(
        interaction_id=f"req-{n}", turn_id=f"run-{n}", created_at=1_700_000_000_000 + n,
        source=ToolSource(tool_call_id=f"call-{n}", tool_name="cmd_run"), title="Run a command",
        command="make deploy", cwd="/srv/app", reason="the deploy step", operation="exec")


async def test_closing_moves_what_ended_to_history_before_the_writer_closes(tmp_path, monkeypatch, caplog):
    # Every change of the hot documents makes a compaction due, which the move to history at close asks for
    # as housekeeping: it used to be asked of a writer already closed, and the whole move was reported failed.
    monkeypatch.setattr(journal, "COMPACT_AT_LEAST", 0)
    stores = await open_stores(tmp_path)
    pending = [InteractionRecord(request=_request(n)) for n in range(20)]
    await stores.interactions.save_many(pending)
    ended = [r.model_copy(update={"status": "expired", "resolved_at": r.request.created_at + 1,
                                  "result": ExpiredResult(interaction_id=r.interaction_id)}) for r in pending]
    await stores.interactions.save_many(ended)  # final, hot: their move to history is left for later
    with caplog.at_level(logging.WARNING):
        stores.close()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []

    stores = await open_stores(tmp_path)
    try:
        assert [r.status for r in await stores.interactions.list()] == ["expired"] * 20
    finally:
        stores.close()


async def test_what_the_app_closing_moves_to_history_is_read_on_each_page_not_vouched_for(tmp_path):
    # Vouching for each text the close moved (read and written again by its model) took most of a close
    # with 10,000 runs waiting: those texts are left to be read on each page, as any text not vouched for.
    from gui.core.queries import StoredText

    stores = await open_stores(tmp_path)
    pending = [InteractionRecord(request=_request(n)) for n in range(6)]
    await stores.interactions.save_many(pending)
    ended = [r.model_copy(update={"status": "expired", "resolved_at": r.request.created_at + 1,
                                  "result": ExpiredResult(interaction_id=r.interaction_id)}) for r in pending]
    await stores.interactions.save_many(ended[:3])
    await stores.writer.run(stores.tables[2].archive_pending)  # moved while the app runs: vouched for
    stores.closing()
    await stores.interactions.save_many(ended[3:])
    stores.close()  # moved as the app closes

    stores = await open_stores(tmp_path)
    try:
        page = (await stores.interactions.query_texts(status="ended")).items
        read = (await stores.interactions.query(status="ended")).items
    finally:
        stores.close()
    vouched = sorted(item.id for item in page if isinstance(item, StoredText))
    assert vouched == ["req-0", "req-1", "req-2"]
    assert len(page) == 6 and {r.interaction_id for r in read} == {f"req-{n}" for n in range(6)}
    for item in page:
        if not isinstance(item, StoredText):
            assert item in read  # read, and what reading it says
