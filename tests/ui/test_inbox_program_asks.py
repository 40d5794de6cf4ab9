"""A program's request in the inbox (`seqdesk ask`, `POST /api/asks`): named as a program and by its claim,
its words shown as text (never as markup), answered like a tool's, and "Allow more…" offering only the
same program asking the same again."""

from __future__ import annotations

from nicegui.testing import User
from support.ui import R, engine, engine_open  # noqa: F401  (engine_open: autouse, wait for the engine)

from gui.core.door import ASK_WAIT, ProgramAsk

MARKUP = "<img src=x onerror=alert(1)> **not bold**"


def approval(**more) -> ProgramAsk:
    return ProgramAsk(**{"kind": "approval", "title": "Deploy <b>now</b>", "command": "make deploy",
                         "asker": "ci-bot", "text": MARKUP, **more})


async def test_a_programs_approval_is_named_as_a_program_and_shown_as_text(user: User):
    state = await engine().ask(approval())
    await user.open(f"/inbox/{state.ask_id}")
    await user.should_see("A program asks: Deploy <b>now</b>", retries=R)
    await user.should_see("a program (it says it is “ci-bot”)")
    await user.should_see(MARKUP)
    await user.should_see("make deploy")
    user.find(marker="approve").click()
    assert (await engine().ask_state(state.ask_id, ASK_WAIT)).status == "approved"


async def test_allow_more_offers_only_the_same_program_asking_the_same_again(user: User):
    state = await engine().ask(approval())
    await user.open(f"/inbox/{state.ask_id}")
    await user.should_see(marker="always-allow", retries=R)
    user.find(marker="always-allow").click()
    await user.should_see(marker="scope-dialog", retries=R)
    await user.should_see("This same request (`make deploy`) whenever the program that calls itself 'ci-bot' asks "
                          "it again, until you take it back in Settings; anything else it asks is asked about")
    user.find(marker="scope-confirm").click()
    assert (await engine().ask_state(state.ask_id, ASK_WAIT)).status == "approved"
    again = await engine().ask(approval())
    assert (again.status, again.auto) == ("approved", True)
    assert (await engine().ask(approval(command="make deploy --force"))).status == "pending"
    await user.open("/settings")
    await user.should_see("Programs on this computer that ask you (seqdesk ask)", retries=R)
    await user.should_see("Runs without asking: `make deploy` whenever the program that calls itself 'ci-bot' asks it")


async def test_a_programs_question_is_answered_with_a_choice(user: User):
    state = await engine().ask(ProgramAsk(kind="question", text="Which branch?", choices=["main", "dev"]))
    await user.open(f"/inbox/{state.ask_id}")
    await user.should_see("A program asks: Question", retries=R)
    await user.should_see("Which branch?")
    await user.should_see("a program (it gave no name)")
