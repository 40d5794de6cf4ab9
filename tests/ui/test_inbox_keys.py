"""The inbox's keyboard shortcuts: the rules alone (a fake clock), then wired into the page.

The simulated user cannot press keys, so the page tests send the browser's message to the hidden
element the listener talks to (`inbox-keys`), exactly as the listener would. The half-second guard
is driven by moving the rules' clock, never by sleeping.
"""

from __future__ import annotations

import string
import time
import uuid
from collections.abc import Awaitable, Callable

import pytest
from nicegui.testing import User
from support.ui import app_ctx, engine_open  # noqa: F401  (autouse: wait for the engine)
from support.waiting import wait_until

from gui.core.asks.interactions import InteractionRecord, Question, QuestionRequest, ShellApprovalRequest, ToolSource
from gui.core.door.engine import Engine
from gui.ui.components.inbox.keys import KeyPress, KeyRules, KeyTarget

R = 50


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def rules() -> tuple[KeyRules, FakeClock]:
    clock = FakeClock()
    return KeyRules(clock=clock, settle_seconds=0.5), clock


# -- the rules ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("key", "action"), [("j", "next"), ("k", "previous"), ("?", "help")])
def test_navigation_and_help_work_at_once_even_while_a_request_settles(key: str, action: str):
    keys, _ = rules()
    keys.settle()
    assert keys.decide(KeyPress(key), opened="shell") == action
    assert keys.decide(KeyPress(key), opened=None) == action


@pytest.mark.parametrize("kind", ["shell", "tool"])
def test_a_d_n_approve_deny_and_go_to_the_note_on_any_approval(kind: str):
    keys, _ = rules()
    assert keys.decide(KeyPress("a"), opened=kind) == "approve"
    assert keys.decide(KeyPress("d"), opened=kind) == "deny"
    assert keys.decide(KeyPress("n"), opened=kind) == "note"
    assert keys.decide(KeyPress("A"), opened=kind) == "approve"  # caps lock: still "approve once"


def test_answering_keys_do_nothing_for_half_a_second_after_a_request_appears_or_changes():
    keys, clock = rules()
    keys.settle()
    for key in "adn":
        assert keys.decide(KeyPress(key), opened="shell") is None
    clock.now += 0.49
    assert keys.decide(KeyPress("a"), opened="shell") is None
    clock.now += 0.02
    assert keys.decide(KeyPress("a"), opened="shell") == "approve"


def test_no_key_works_while_typing_in_a_field_or_with_a_modifier():
    keys, _ = rules()
    for key in "jkadn?":
        assert keys.decide(KeyPress(key, typing=True), opened="shell") is None
        assert keys.decide(KeyPress(key, ctrl=True), opened="shell") is None
        assert keys.decide(KeyPress(key, meta=True), opened="shell") is None
        assert keys.decide(KeyPress(key, alt=True), opened="shell") is None


def test_a_held_down_key_never_answers():
    keys, _ = rules()
    for key in "adn":
        assert keys.decide(KeyPress(key, repeat=True), opened="shell") is None


def test_on_a_question_or_form_the_answering_keys_only_explain_and_with_nothing_open_do_nothing():
    keys, _ = rules()
    for kind in ("question", "form"):
        assert keys.decide(KeyPress("a"), opened=kind) == "approvals-only"
    assert keys.decide(KeyPress("a"), opened=None) is None
    assert keys.decide(KeyPress("d"), opened=None) is None


def test_no_key_chooses_always_allow():
    keys, _ = rules()
    allowed = {"next", "previous", "help", "approve", "deny", "note", "approvals-only", None}
    for key in [*string.printable, "Enter", "Escape", "Tab", " "]:
        for kind in ("shell", "tool", "question", "form", None):
            assert keys.decide(KeyPress(key), opened=kind) in allowed


def test_key_press_reads_the_browser_message_flat_or_wrapped():
    assert KeyPress.from_event({"detail": {"key": "a", "repeat": True}}) == KeyPress("a", repeat=True)
    assert KeyPress.from_event({"key": "j"}) == KeyPress("j")
    assert KeyPress.from_event(None) == KeyPress("")


# -- in the page -------------------------------------------------------------------------------



def engine() -> Engine:
    return app_ctx().engine


def shell(iid: str, command: str, created_at: int) -> ShellApprovalRequest:
    return ShellApprovalRequest(interaction_id=iid, turn_id="run-1", created_at=created_at, sequence_name="Nightly",
                                group_name="Checks", source=ToolSource(tool_call_id=iid, tool_name="cmd_run"),
                                title="Run a command", command=command, cwd="/tmp", reason="", operation="exec")


def target(user: User) -> KeyTarget:
    element = next(iter(user.find(marker="inbox-keys").elements))
    assert isinstance(element, KeyTarget)
    return element


def press(user: User, key: str, *, settled: bool = True) -> None:
    """What the browser's listener sends; `settled` moves past the half-second guard first."""
    if settled:
        target(user).shortcuts.rules.ready_at = 0.0
    user.find(marker="inbox-keys").trigger("seqdeskkey", {"detail": {"key": key}})


async def two_commands(user: User) -> None:
    now = int(time.time() * 1000)
    await engine().interactions.request(shell("older", "echo older", now - 1000))
    await engine().interactions.request(shell("newer", "echo newer", now))
    await user.open("/inbox")
    await user.should_see(marker="detail-title")


def answered(iid: str) -> Callable[[], Awaitable[InteractionRecord | None]]:
    """For `wait_until`: the request once it is no longer pending."""
    async def record() -> InteractionRecord | None:
        found = await engine().interactions.get(iid)
        return found if found is not None and found.status != "pending" else None
    return record


def opened(user: User) -> str:
    return next(iter(user.find(marker="command").elements)).text


async def test_j_and_k_open_the_next_and_previous_request(user: User):
    await two_commands(user)
    assert opened(user) == "echo newer"
    press(user, "j", settled=False)
    await user.should_see(marker="command", content="echo older", retries=R)
    press(user, "j", settled=False)  # already the last: stays
    await user.should_see(marker="command", content="echo older")
    press(user, "k", settled=False)
    await user.should_see(marker="command", content="echo newer", retries=R)


async def test_a_right_after_the_request_opens_does_nothing_then_approves_once(user: User):
    await two_commands(user)
    press(user, "a", settled=False)  # the page just opened this request
    await user.should_see(marker="command", content="echo newer")
    assert (await engine().interactions.get("newer")).status == "pending"
    press(user, "a")
    record = await wait_until(answered("newer"), "the newer request answered")
    assert record.result.response.decision == "approved" and not record.result.response.always_allow
    assert engine().modes.get("cmd_run") == "ask"
    await user.should_see(marker="command", content="echo older", retries=R)  # moved on to the next one


async def test_d_denies_with_the_note_that_was_written(user: User):
    await two_commands(user)
    user.find(marker="deny-reason").type("use the trash instead")
    press(user, "d")
    record = await wait_until(answered("newer"), "the newer request answered")
    assert record.result.response.decision == "denied"
    assert record.result.response.reason == "use the trash instead"


async def test_answering_keys_on_a_question_explain_instead_of_answering(user: User):
    request = QuestionRequest(interaction_id=uuid.uuid4().hex, turn_id="run-1", created_at=int(time.time() * 1000),
                              source=ToolSource(tool_call_id="q", tool_name="ask_user"), title="Which one?",
                              questions=[Question(question_id="x", prompt="Why?", response_type="text")])
    await engine().interactions.request(request)
    await user.open("/inbox")
    await user.should_see("Which one?")
    press(user, "a")
    await user.should_see("A, D and N answer approvals only", retries=R)
    assert (await engine().interactions.get(request.interaction_id)).status == "pending"


async def test_question_mark_and_the_button_show_the_shortcuts(user: User):
    await two_commands(user)
    press(user, "?", settled=False)
    await user.should_see("Keyboard shortcuts", retries=R)
    await user.should_see("There is no key for Always allow", retries=R)
    with user.client:
        assert await target(user).shortcuts.handle(KeyPress("a")) is None  # nothing answers under the dialog
    assert (await engine().interactions.get("newer")).status == "pending"


async def test_a_runs_the_edited_command_when_there_is_one_and_the_hint_says_so(user: User):
    from support.ui import expect, start_command_run, wait

    await user.open("/inbox")
    run_id = await start_command_run("echo as-asked", name="keys-edit")
    await user.should_see(marker="edit-command", retries=R)
    hint = next(iter(user.find(marker="key-hint").elements))
    assert "</kbd> Run once ·" in hint.content
    user.find(marker="edit-command").click()
    user.find(marker="edited-command").elements.pop().set_value("echo as-edited")
    await user.should_see("Run the edited command", retries=R)
    assert "</kbd> Run the edited command ·" in hint.content
    finished = expect("run.finished", lambda e: e.run_id == run_id)
    press(user, "a")
    assert (await wait(finished)).data["status"] == "succeeded"
    assert (await engine().get_run(run_id)).outputs["said"] == "as-edited"


async def test_a_phone_is_shown_no_key_hints(user: User):
    """A phone has no keyboard: the hint under an approval and the "Shortcuts" button are hidden below
    600 px (Quasar's `gt-xs`; the browser check at 390 px is tests/e2e/test_phone_layout.py)."""
    from support.ui import shell

    await user.open("/inbox")
    await engine().interactions.request(shell("p1"))
    await user.should_see(marker="key-hint", retries=R)
    (hint,) = user.find(marker="key-hint").elements
    (button,) = user.find(marker="shortcuts-button").elements
    assert "gt-xs" in hint.classes and "gt-xs" in button.classes
