"""The record of decisions: who or what decided each request, what they were shown, and a chain of
hashes that names the first entry edited by hand (issue 26, item 5)."""

from __future__ import annotations

import asyncio

import pytest
from support.interactions import now_ms, question, shell
from support.waiting import within

from gui.core.asks import (
    Answerer,
    ApprovalResponse,
    AuditDraft,
    CancelledResult,
    InteractionService,
    QuestionResponse,
    chain,
    chained_lines,
    decision_of,
    entry_document,
    entry_text,
    verify,
)
from gui.core.asks.rules import ApprovalRule
from gui.core.events import EventBus
from gui.memory import MemoryApprovalModes, MemoryAuditLog, MemoryInteractionStore


@pytest.fixture
def audit() -> MemoryAuditLog:
    return MemoryAuditLog()


@pytest.fixture
def audited(audit: MemoryAuditLog) -> InteractionService:
    return InteractionService(MemoryInteractionStore(), EventBus(), modes=MemoryApprovalModes(), audit=audit)


def draft(n: int) -> AuditDraft:
    return AuditDraft(at=n, interaction_id=f"i{n}", run_id="r", kind="approval", decision="approved",
                      by="person", person="you", via="app", shown=f"$ echo {n}")


def chained(count: int) -> list[dict]:
    documents: list[dict] = []
    for n in range(count):
        documents.append(entry_document(chain(draft(n), documents[-1] if documents else None)))
    return documents


async def test_a_person_answering_in_the_app_is_recorded_with_the_command_they_were_shown(
        audited: InteractionService, audit: MemoryAuditLog) -> None:
    handle = await audited.request(shell())
    await audited.respond("a1", ApprovalResponse(decision="denied", reason="not now"), Answerer(via="app"))
    await within(handle.result(), "a1's outcome")
    (entry,) = await audit.documents()
    assert entry is not None
    assert (entry["by"], entry["person"], entry["via"], entry["decision"]) == ("person", "you", "app", "denied")
    assert "$ rm -rf build" in entry["shown"] and "in /tmp" in entry["shown"]
    assert entry["detail"] == "reason: not now" and entry["position"] == 1 and entry["prev"] == "0" * 64


async def test_the_decision_is_on_record_before_the_waiting_tool_goes_on(audit: MemoryAuditLog) -> None:
    seen: list[int] = []
    service = InteractionService(MemoryInteractionStore(), EventBus(), modes=MemoryApprovalModes(), audit=audit)
    handle = await service.request(shell())

    async def tool() -> None:
        await handle.result()
        seen.append(len(await audit.documents()))

    waiting = asyncio.create_task(tool())
    await service.respond("a1", ApprovalResponse(decision="approved"), Answerer(via="cli"))
    await within(waiting, "the waiting tool to go on")
    assert seen == [1]


async def test_a_rule_a_timeout_and_the_app_closing_are_each_recorded_as_what_decided(
        audited: InteractionService, audit: MemoryAuditLog) -> None:
    rule = ApprovalRule(rule_id="p1", tool="cmd_run", scope="prefix", prefix="rm")
    await audited.modes.add_rule(rule)
    await audited.ask_approval(shell("a1"), "cmd_run")
    late = await audited.request(question("q1"), deadline=now_ms() / 1000 + 0.05)
    await within(late.result(), "q1 to expire")
    await audited.request(question("q2"))
    await audited.cancel_all("session_disposed", "app_closed")
    documents = [d for d in await audit.documents() if d is not None]
    assert [(d["interaction_id"], d["by"], d["decision"]) for d in documents] == [
        ("a1", "rule", "approved"), ("q1", "timeout", "expired"), ("q2", "stop", "cancelled")]
    assert documents[0]["rule_id"] == "p1" and documents[0]["rule_text"]
    assert documents[2]["cause"] == "app_closed"
    assert "Where? [Dev, Prod]" in documents[1]["shown"]
    assert verify(documents).ok and verify(documents).count == 3


async def test_an_answer_given_without_saying_who_is_recorded_as_a_person_unknown(
        audited: InteractionService, audit: MemoryAuditLog) -> None:
    await audited.request(question())
    await audited.respond("q1", QuestionResponse(decision="declined"))
    (entry,) = await audit.documents()
    assert entry is not None and (entry["by"], entry["person"], entry["decision"]) == ("person", None, "declined")


def test_an_unbroken_chain_verifies() -> None:
    verdict = verify(chained(50))
    assert verdict.ok and verdict.count == 50
    assert verdict.sentence() == "the chain of 50 decisions is unbroken"


def test_an_entry_edited_by_hand_is_named_by_its_position_and_id() -> None:
    documents = chained(20)
    documents[6]["decision"] = "denied"
    verdict = verify(documents)
    assert (verdict.broken_at, verdict.broken_id) == (7, documents[6]["entry_id"])
    assert verdict.sentence().startswith(f"the chain is broken at entry 7 (id {documents[6]['entry_id']}): "
                                         "its contents were changed")


def test_an_edit_that_recomputes_its_own_hash_is_caught_at_the_next_entry() -> None:
    from gui.core.asks.audit import digest

    documents = chained(5)
    documents[1]["shown"] = "$ echo harmless"
    documents[1]["hash"] = digest(documents[1])
    verdict = verify(documents)
    assert verdict.broken_at == 3 and "the entry before it was changed, removed or moved" in (verdict.problem or "")


def test_a_removed_entry_and_a_line_that_is_not_an_entry_are_named() -> None:
    documents = chained(5)
    assert verify(documents[:2] + documents[3:]).broken_at == 3
    assert verify([*documents[:4], None]).broken_at == 5


async def test_the_memory_log_edited_by_hand_fails_verification(audited: InteractionService,
                                                               audit: MemoryAuditLog) -> None:
    for n in range(3):
        await audited.request(shell(f"a{n}"))
        await audited.respond(f"a{n}", ApprovalResponse(decision="denied"), Answerer(via="api"))
    audit.edit(2, lambda doc: doc.update(decision="approved"))
    assert verify(await audit.documents()).broken_at == 2


def test_the_canonical_form_is_the_standard_librarys_byte_for_byte_for_every_character() -> None:
    """Entries are hashed in pydantic's JSON when they hold only text, whole numbers and nulls: the
    hashes of entries written before (by `json.dumps`) must still match, whatever text they hold."""
    import json

    from gui.core.asks.audit import canonical, entry_text

    def standard(document: dict) -> bytes:
        body = {key: value for key, value in document.items() if key != "hash"}
        return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    characters = "".join(chr(point) for point in range(0x110000) if not 0xD800 <= point <= 0xDFFF)
    for start in range(0, len(characters), 4096):
        document = {"shown": characters[start:start + 4096], "position": 2**70, "at": -1, "detail": None,
                    "b": "x", "hash": "ignored"}
        assert canonical(document) == standard(document)
        assert entry_text(document).encode("utf-8") == json.dumps(
            document, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    odd = {"shown": "x", "ratio": 0.1, "tags": ["a", 1.5e16], "flag": True, "hash": "h"}  # edited in by hand
    assert canonical(odd) == standard(odd)


def test_a_batch_of_entries_chains_as_one_at_a_time_does() -> None:
    from gui.core.asks import chained as chained_document

    documents: list[dict] = []
    for n in range(5):
        documents.append(chained_document(draft(n), documents[-1] if documents else None))
    assert verify(documents).ok and [d["position"] for d in documents] == [1, 2, 3, 4, 5]
    assert list(documents[0]) == list(entry_document(chain(draft(0), None)))  # the same fields, in order


def test_a_drafts_stored_document_is_its_dump_whichever_way_it_was_made() -> None:
    """`chained` copies a draft of text, numbers and nulls rather than dumping it: the copy must be the
    dump, field for field and in order, however the draft was made (a timed-out request's is a copy)."""
    from gui.core.asks import chained as chained_document

    timed_out = draft(1).model_copy(update={"by": "timeout", "person": None, "via": None, "detail": "defaults"})
    for made in (draft(0), timed_out, AuditDraft.model_validate(draft(2).model_dump())):
        document = chained_document(made, None)
        dumped = made.model_dump(mode="json")
        assert list(document)[:len(dumped)] == list(dumped)
        assert {key: document[key] for key in dumped} == dumped


def test_an_entry_id_is_a_random_version_4_uuid_as_uuid4_writes_it() -> None:
    import uuid

    from gui.core.asks.audit import entry_ids

    ids = entry_ids(150) + [made for _ in range(50) for made in entry_ids(1)]
    assert len(set(ids)) == 200
    for made in ids:
        parsed = uuid.UUID(made)
        assert (parsed.version, parsed.variant, parsed.hex) == (4, uuid.RFC_4122, made)


def test_entries_chained_together_are_those_chained_one_at_a_time_and_their_lines_as_stored() -> None:
    """`chained_lines` (a batch, as closing with thousands waiting appends) makes each entry as `chain` does,
    and the lines `entry_text` writes."""
    timed_out = draft(1).model_copy(update={"by": "timeout", "person": None, "via": None, "detail": "défauts"})
    drafts = [draft(0), timed_out, draft(2), draft(3)]
    documents, lines = chained_lines(drafts, None)
    assert verify(documents).ok and [d["position"] for d in documents] == [1, 2, 3, 4]
    assert lines == b"".join(entry_text(d).encode("utf-8") + b"\n" for d in documents)
    for made, document in zip(drafts, documents, strict=True):
        one = entry_document(chain(made, None))
        assert list(document) == list(one)
        assert {k: v for k, v in document.items() if k not in ("entry_id", "position", "prev", "hash")} == {
            k: v for k, v in one.items() if k not in ("entry_id", "position", "prev", "hash")}
    more, _ = chained_lines([draft(4)], documents[-1])
    assert verify([*documents, *more]).ok and more[0]["position"] == 5
    assert chained_lines([], documents[-1]) == ([], b"")


async def test_a_stopped_requests_draft_is_the_one_its_model_would_check(audited: InteractionService) -> None:
    """A cancelled request's draft is made without checking its values again: it must be the draft the
    model makes of them, field for field, in order, with the same fields given."""
    await audited.request(shell())
    (record,) = await audited.pending()
    for reason, cause in (("session_disposed", "app_closed"), ("turn_stopped", None), ("turn_stopped", "person")):
        ended = audited.waiting.ended(record, CancelledResult(interaction_id=record.interaction_id, reason=reason,
                                                              cause=cause))
        made = decision_of(ended)
        checked = AuditDraft(**{name: made.__dict__[name] for name in made.model_fields_set})
        assert made == checked and list(made.__dict__) == list(checked.__dict__)
        assert made.model_fields_set == checked.model_fields_set and made.cause == (cause or reason)
        assert ended == record.model_copy(update={"status": "cancelled", "result": ended.result,
                                                  "resolved_at": ended.resolved_at})
