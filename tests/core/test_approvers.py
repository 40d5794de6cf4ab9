"""Who may answer and how many (issue 26, items 2-4): the interaction service on a team server (a
directory of people and roles), with a clock the test moves (no sleeps), and on the desktop (none)."""

from __future__ import annotations

import pytest
from support.interactions import APPROVE, now_ms, question, shell
from support.team_directory import TEAM, Team
from support.waiting import wait_until, within

from gui.core.asks import (
    AlreadyApproved,
    Answerer,
    ApprovalResponse,
    InteractionRecord,
    InteractionValidationError,
    NotAnApprover,
    QuestionResponse,
    ResolvedResult,
    StillWaiting,
)
from gui.core.asks.interactions import Question, QuestionOption, QuestionRequest, ShellApprovalRequest
from gui.core.asks.service import InteractionService
from gui.core.events import Event, EventBus
from gui.core.sequences import Asking
from gui.memory import MemoryApprovalModes, MemoryInteractionStore
from gui.memory.asks import MemoryAuditLog

DENY = ApprovalResponse(decision="denied", reason="not today")


def person(name: str, token: str | None = None, via: str = "app") -> Answerer:
    return Answerer(person=name, via=via, token=token)  # type: ignore[arg-type]


def asked(iid: str = "a1", started_by: str | None = "runner", **asking: object) -> ShellApprovalRequest:
    return shell(iid).model_copy(update={"asking": Asking.model_validate(asking), "started_by": started_by})


class Clock:
    def __init__(self) -> None:
        self.now = now_ms() / 1000

    def __call__(self) -> float:
        return self.now

    def forward(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def audit() -> MemoryAuditLog:
    return MemoryAuditLog()


@pytest.fixture
def team(store: MemoryInteractionStore, bus: EventBus, clock: Clock, audit: MemoryAuditLog) -> InteractionService:
    return InteractionService(store, bus, clock, modes=MemoryApprovalModes(), audit=audit, directory=Team(TEAM))


# --- how many --------------------------------------------------------------------------------


async def test_two_required_resolves_only_at_the_second_distinct_person(team: InteractionService,
                                                                        store: MemoryInteractionStore) -> None:
    handle = await team.request(asked(approvers=("role:oncall",), required=2))
    first = await team.respond("a1", APPROVE, person("ana"))
    assert isinstance(first, StillWaiting) and first.required == 2
    assert [a.person for a in first.approvals] == ["ana"]
    stored = await store.get("a1")
    assert stored.status == "pending" and [a.person for a in stored.approvals] == ["ana"]
    assert not handle.done()
    second = await team.respond("a1", APPROVE, person("li.wei"))
    assert isinstance(second, ResolvedResult)
    result = await within(handle.result(), "a1's outcome")
    assert result.response.decision == "approved"
    ended = await store.get("a1")
    assert ended.status == "resolved" and [a.person for a in ended.approvals] == ["ana", "li.wei"]
    assert all(a.at > 0 for a in ended.approvals)


async def test_the_same_person_twice_and_a_token_and_its_owner_count_once(team: InteractionService,
                                                                          store: MemoryInteractionStore) -> None:
    await team.request(asked(approvers=("role:oncall",), required=2))
    await team.respond("a1", APPROVE, person("ana"))
    before = await store.get("a1")
    with pytest.raises(AlreadyApproved, match="ana already approved"):
        await team.respond("a1", APPROVE, person("ana"))
    with pytest.raises(AlreadyApproved) as refused:
        await team.respond("a1", APPROVE, person("ana", token="laptop-cli", via="cli"))
    assert refused.value.status == 409
    assert await store.get("a1") == before  # nothing changed


async def test_a_deny_by_any_allowed_approver_ends_it_even_after_an_approval(team: InteractionService) -> None:
    handle = await team.request(asked(approvers=("role:oncall",), required=2))
    await team.respond("a1", APPROVE, person("ana"))
    await team.respond("a1", DENY, person("li.wei"))
    result = await within(handle.result(), "a1's outcome")
    assert result.response.decision == "denied"


async def test_an_approver_outside_approvers_is_refused_with_403_and_nothing_changes(
        team: InteractionService, store: MemoryInteractionStore, audit: MemoryAuditLog) -> None:
    await team.request(asked(approvers=("role:oncall", "person:sam"), required=2))
    before = await store.get("a1")
    for outsider in ("runner", "nobody"):
        with pytest.raises(NotAnApprover, match="is not among the approvers") as refused:
            await team.respond("a1", DENY, person(outsider))
        assert refused.value.status == 403
    assert await store.get("a1") == before
    assert await audit.documents() == []
    assert isinstance(await team.respond("a1", APPROVE, person("sam")), StillWaiting)  # named as a person


async def test_the_starter_cannot_approve_their_own_step_but_may_deny_it(team: InteractionService) -> None:
    handle = await team.request(asked(started_by="ana", approvers=("role:oncall",), required=1))
    with pytest.raises(NotAnApprover, match="ana started this run"):
        await team.respond("a1", APPROVE, person("ana"))
    await team.respond("a1", DENY, person("ana"))
    assert (await within(handle.result(), "a1's outcome")).response.decision == "denied"


async def test_self_approve_lets_the_starter_approve(team: InteractionService) -> None:
    handle = await team.request(asked(started_by="ana", approvers=("role:oncall",), self_approve=True))
    await team.respond("a1", APPROVE, person("ana"))
    assert (await within(handle.result(), "a1's outcome")).response.decision == "approved"


async def test_a_step_with_no_approvers_still_refuses_self_approval_on_a_team_server(team: InteractionService) -> None:
    await team.request(shell("a1").model_copy(update={"started_by": "ana"}))
    with pytest.raises(NotAnApprover):
        await team.respond("a1", APPROVE, person("ana"))
    assert isinstance(await team.respond("a1", APPROVE, person("sam")), ResolvedResult)


async def test_an_approval_that_needs_several_cannot_make_a_rule(team: InteractionService) -> None:
    await team.request(asked(approvers=("role:oncall",), required=2))
    with pytest.raises(InteractionValidationError, match="approve it once"):
        await team.respond("a1", ApprovalResponse(decision="approved", scope="tool"), person("ana"))


async def test_a_rule_never_allows_a_step_several_must_approve(team: InteractionService) -> None:
    await team.modes.set("cmd_run", "always-allow")
    approval = await team.ask_approval(asked(approvers=("role:oncall",), required=2), "cmd_run")
    assert approval.waiting


async def test_each_approval_is_in_the_record_of_decisions_with_who(team: InteractionService,
                                                                    audit: MemoryAuditLog) -> None:
    await team.request(asked(approvers=("role:oncall",), required=2))
    await team.respond("a1", APPROVE, person("ana"))
    await team.respond("a1", APPROVE, person("li.wei", token="phone"))
    docs = await audit.documents()
    assert [(d["decision"], d["person"], d["token"]) for d in docs] == [
        ("approved", "ana", None), ("approved", "li.wei", "phone")]
    assert docs[0]["detail"].startswith("approval 1 of 2")


async def test_a_partial_approval_is_stored_before_it_is_announced(store: MemoryInteractionStore, clock: Clock,
                                                                   bus: EventBus) -> None:
    seen: list[str] = []
    service = InteractionService(store, bus, clock, modes=MemoryApprovalModes(), directory=Team(TEAM))
    await service.request(asked(approvers=("role:oncall",), required=2))

    async def approvals_stored() -> int:
        return len((await store.get("a1")).approvals)

    def on_event(event: Event) -> None:
        if event.type == "interaction.changed":
            record = InteractionRecord.model_validate(event.data["record"])
            seen.append(f"{event.data['change']} with {len(record.approvals)}")
    bus.subscribe(on_event)
    await service.respond("a1", APPROVE, person("ana"))
    assert seen == ["approved with 1"] and await approvals_stored() == 1


async def test_a_partial_approval_survives_a_new_service_on_the_same_store(store: MemoryInteractionStore,
                                                                           clock: Clock) -> None:
    first = InteractionService(store, clock=clock, modes=MemoryApprovalModes(), directory=Team(TEAM))
    await first.request(asked(approvers=("role:oncall",), required=2))
    await first.respond("a1", APPROVE, person("ana"))
    again = InteractionService(store, clock=clock, modes=MemoryApprovalModes(), directory=Team(TEAM))
    with pytest.raises(AlreadyApproved):
        await again.respond("a1", APPROVE, person("ana"))
    assert isinstance(await again.respond("a1", APPROVE, person("li.wei")), ResolvedResult)
    assert [a.person for a in (await store.get("a1")).approvals] == ["ana", "li.wei"]


# --- the desktop -----------------------------------------------------------------------------


async def test_on_the_desktop_one_answer_decides_whatever_the_step_says(service: InteractionService) -> None:
    handle = await service.request(asked(approvers=("person:li.wei",), required=2, started_by=None))
    result = await service.respond("a1", APPROVE, Answerer(via="app"))
    assert isinstance(result, ResolvedResult)
    assert (await within(handle.result(), "a1's outcome")).response.decision == "approved"
    assert await service.inbox("you", "waiting") == []


async def test_on_the_desktop_everything_needs_you(service: InteractionService) -> None:
    await service.request(shell("a1"))
    await service.request(asked("a2", approvers=("role:oncall",)))
    assert [r.interaction_id for r in await service.inbox("you", "needs_you")] == ["a1", "a2"]


# --- the inbox views -------------------------------------------------------------------------


async def test_each_person_sees_what_needs_them_and_what_waits_on_others(team: InteractionService) -> None:
    await team.request(asked("a1", approvers=("role:oncall",), required=2))
    await team.request(asked("a2", approvers=("person:sam",)))
    await team.request(asked("a3", started_by="ana"))
    await team.respond("a1", APPROVE, person("ana"))

    async def ids(name: str, view: str) -> list[str]:
        return [r.interaction_id for r in await team.inbox(name, view)]  # type: ignore[arg-type]

    assert await ids("ana", "needs_you") == []  # a1: approved already; a2: sam's; a3: her own run
    assert await ids("ana", "waiting") == ["a1", "a2", "a3"]
    assert await ids("ana", "started_by_you") == ["a3"]
    assert await ids("li.wei", "needs_you") == ["a1", "a3"]
    assert await ids("sam", "needs_you") == ["a2", "a3"]
    with pytest.raises(InteractionValidationError, match="no inbox view"):
        await team.inbox("sam", "everything")  # type: ignore[arg-type]


# --- hand over, remind, escalate, expire -----------------------------------------------------


async def test_a_hand_over_lets_the_other_person_answer_and_is_recorded_as_a_delegation(
        team: InteractionService, audit: MemoryAuditLog, events: list[Event]) -> None:
    handle = await team.request(asked(approvers=("person:sam",)))
    with pytest.raises(NotAnApprover):
        await team.hand_over("a1", "person:ana", "you know this host", person("li.wei"))
    with pytest.raises(InteractionValidationError, match="person:NAME or role:NAME"):
        await team.hand_over("a1", "ana", "", person("sam"))
    handed = await team.hand_over("a1", "person:ana", "you know this host", person("sam"))
    assert [(h.by, h.to, h.note) for h in handed.handovers] == [("sam", "person:ana", "you know this host")]
    changed = [e for e in events if e.type == "interaction.changed"]
    assert changed[-1].data["change"] == "handed_over" and list(changed[-1].data["notify"]) == ["person:ana"]
    (entry,) = await audit.documents()
    assert (entry["decision"], entry["person"], entry["detail"]) == ("delegated", "sam",
                                                                    "to person:ana: you know this host")
    assert [r.interaction_id for r in await team.inbox("ana", "needs_you")] == ["a1"]
    await team.respond("a1", APPROVE, person("ana"))
    assert (await within(handle.result(), "a1's outcome")).response.decision == "approved"


async def test_reminders_and_escalation_come_when_the_clock_says_and_each_once(
        team: InteractionService, clock: Clock, events: list[Event], store: MemoryInteractionStore) -> None:
    await team.request(asked(approvers=("role:oncall",), remind_after="30m", escalate_after="2h",
                             escalate_to=("role:lead",)))
    assert await team.follow_up() == []
    clock.forward(29 * 60)
    assert await team.follow_up() == []
    clock.forward(61)
    assert await team.follow_up() == [("a1", "remind")]
    assert await team.follow_up() == []
    assert (await store.get("a1")).reminded_at is not None
    notices = [(e.data["change"], list(e.data["notify"])) for e in events if e.type == "interaction.changed"]
    assert notices == [("reminded", ["role:oncall"])]
    with pytest.raises(NotAnApprover):  # the lead may not answer before the escalation
        await team.respond("a1", DENY, person("sam"))
    clock.forward(2 * 3600)
    assert await team.follow_up() == [("a1", "escalate")]
    assert [(e.data["change"], list(e.data["notify"])) for e in events if e.type == "interaction.changed"][-1] == (
        "escalated", ["role:lead"])
    assert [r.interaction_id for r in await team.inbox("sam", "needs_you")] == ["a1"]
    await team.respond("a1", APPROVE, person("sam"))  # now the lead may


async def test_on_expiry_an_approval_is_denied_never_approved(team: InteractionService, clock: Clock,
                                                              store: MemoryInteractionStore) -> None:
    request = asked(approvers=("role:oncall",), required=2, expire_after="1h")
    handle = await team.request(request)
    stored = await store.get("a1")
    assert stored.request.expires_at == request.created_at + 3600 * 1000
    await team.respond("a1", APPROVE, person("ana"))
    clock.forward(3601)
    await team.follow_ups.expire("a1")  # what its timer does when it fires
    result = await within(handle.result(), "a1's outcome at its expiry")
    assert result.status == "expired"


async def test_on_expiry_a_question_takes_its_declared_defaults_recorded_as_the_timeout(
        team: InteractionService, clock: Clock, audit: MemoryAuditLog) -> None:
    base = question("q1")
    request = QuestionRequest(**{**base.model_dump(), "questions": [
        Question(question_id="env", prompt="Where?", response_type="single_select",
                 options=[QuestionOption(value="staging", label="staging"),
                          QuestionOption(value="prod", label="prod")], default="staging")],
        "asking": Asking(expire_after="10m")})
    handle = await team.request(request)
    clock.forward(601)
    await team.follow_ups.expire("q1")
    result = await within(handle.result(), "q1's outcome at its expiry")
    assert isinstance(result, ResolvedResult) and isinstance(result.response, QuestionResponse)
    assert [(a.question_id, a.value) for a in result.response.answers] == [("env", "staging")]
    (entry,) = await audit.documents()
    assert entry["by"] == "timeout" and entry["person"] is None


def test_a_default_must_be_one_of_the_choices() -> None:
    with pytest.raises(ValueError, match="not one of the choices"):
        Question(question_id="env", prompt="Where?", response_type="single_select",
                 options=[QuestionOption(value="a", label="a")], default="b")


async def test_a_rule_made_while_it_waits_does_not_approve_a_step_several_must_approve(
        team: InteractionService, store: MemoryInteractionStore) -> None:
    await team.request(asked("g1", approvers=("role:oncall",), required=2))
    await team.request(shell("p1"))  # the same tool, asking with no approvers named
    await team.respond("p1", ApprovalResponse(decision="approved", scope="tool"), person("sam"))
    assert (await store.get("g1")).status == "pending"


async def test_the_leaders_sweep_reminds_a_request_another_process_asked(
        team: InteractionService, clock: Clock, store: MemoryInteractionStore, bus: EventBus,
        audit: MemoryAuditLog) -> None:
    """`watch_all` (what the process holding a team's schedules runs) follows up a request this process
    did not ask, found in the shared store, on its own pace; `stop_watching` ends it."""
    team.shared = True
    await team.request(asked(approvers=("role:oncall",), remind_after="30m"))
    await team.cancel_all("session_disposed", "app_closed", keep=frozenset({"run-1"}))  # the asker closes;
    # its run goes on elsewhere (a durable executor), so the request stays
    leader = InteractionService(store, bus, clock, modes=MemoryApprovalModes(), audit=audit, directory=Team(TEAM))
    leader.shared = True
    clock.forward(31 * 60)
    assert await leader.follow_up() == []  # not its own request: only the sweep takes it
    leader.watch_all(every=0.01)
    try:
        await wait_until(lambda: _reminded(store), "the sweep reminded a1")
    finally:
        await leader.stop_watching()
    assert (await store.get("a1")).revision == 1


async def _reminded(store: MemoryInteractionStore) -> bool:
    found = await store.get("a1")
    return found is not None and found.reminded_at is not None
