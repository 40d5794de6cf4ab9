"""Every cause (`gui.core.causes`) has its words in English and 中文, and every surface says a cause
with them: the run page's tool card, group row and header, the runs list, the inbox, the CLI and a
notification. The table is iterated, so a cause added without words (or without a translation) fails."""

from __future__ import annotations

import pytest

from gui.cli.run import run_lines, why_ended
from gui.core.asks.interactions import CancelledResult
from gui.core.causes import CAUSES, END_CAUSES, EndCause, reason_for
from gui.core.runs.records import GroupRecord, RunRecord, ToolRecord
from gui.i18n import catalogue, use_language
from gui.ui.components.run.status import LOOKS, group_state, run_state, tool_state
from gui.ui.components.runs_history import reason_words
from gui.wording.outcomes import end_words, group_note, outcome_words
from gui.wording.requests import cancel_words

LANGUAGES = ("en", "zh_CN")


def stopped_run(cause: EndCause) -> RunRecord:
    """A run `cause` ended while its first group's tool ran and before its second group started."""
    running = ToolRecord(index=0, tool="cmd_run", tool_call_id="c0", status="cancelled", started_at=10.0,
                         finished_at=12.0, error="cancelled", cause=cause)
    queued = ToolRecord(index=0, tool="echo", tool_call_id="c1", status="cancelled",
                        reason="not run: the run was stopped", cause=cause)
    status = "interrupted" if cause == "app_stopped" else "stopped"
    return RunRecord(run_id="r1", sequence="deploy", status=status, created_at=9.0, finished_at=12.0,
                     error=CAUSES[cause].error, cause=cause, groups=[
                         GroupRecord(index=0, name="build", status="stopped", started_at=10.0, finished_at=12.0,
                                     reason="the run was stopped", cause=cause, tools=[running]),
                         GroupRecord(index=1, name="ship", status="cancelled", reason="not run: the run was stopped",
                                     cause=cause, tools=[queued])])


@pytest.mark.parametrize("cause", END_CAUSES)
def test_every_cause_has_its_words_in_every_language_and_a_look(cause: EndCause):
    words = CAUSES[cause]
    assert words.look in LOOKS
    assert words.error and words.error.isascii()  # the record's English, for the API, MCP and --json
    for text in (words.why, words.ended):
        translated = catalogue("zh_CN").gettext(text)
        assert translated != text, f"{cause}: {text!r} has no Chinese"
    assert words.why[:1].islower() and words.ended[:1].isupper()


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("cause", END_CAUSES)
def test_every_surface_says_a_cause_with_the_table(cause: EndCause, lang: str):
    run = stopped_run(cause)
    with use_language(lang):
        tr = catalogue(lang).gettext
        ended, why = tr(CAUSES[cause].ended), tr(CAUSES[cause].why)
        tool, later = run.groups[0].tools[0], run.groups[1].tools[0]
        assert tool_state(tool) == CAUSES[cause].look
        assert outcome_words(tool) == ended  # the tool card and the tool's detail
        assert tool_state(later) == "not_run"
        assert outcome_words(later) == tr("Not run: {reason}").format(reason=why)
        assert group_state(run.groups[0]) == CAUSES[cause].look and group_note(run.groups[0]) == ended
        assert group_note(run.groups[1]) == tr("Not run: {reason}").format(reason=why)
        assert run_state(run) == CAUSES[cause].look  # the run page's header and the runs list's chip
        assert reason_words(run) == ended  # the runs list's "What happened"
        assert end_words(run.status, run.error, run.cause) == ended  # a notification, the run page's line
        assert why_ended(run.error, run.cause) == why  # the CLI: "run r1 stopped: the app was closed"
        assert cancel_words(CancelledResult(interaction_id="i", reason=reason_for(cause), cause=cause)) == why
        assert not [line for line in run_lines(run) if "cancelled: cancelled" in line.lower()]


def test_a_stop_never_reads_as_the_persons_unless_the_person_stopped_it():
    for cause in END_CAUSES:
        person_words = CAUSES["person"].ended
        assert (outcome_words(stopped_run(cause).groups[0].tools[0]) == person_words) == (cause == "person")
