"""Why a tool ended the way it did, in words: "Denied by you: Not during the freeze", "Expired:
nobody answered in time" (the inbox's word for that request), "Stopped by you", "Stopped: the app was
closed", "Not run: an earlier group failed".

A person saying no, nobody answering and pressing Stop are not crashes, so they get their own
state (and icon, in `gui.ui.components.run.status.LOOKS`) instead of a red "Failed". What ended a
tool, group or run from outside (the person's Stop, the app closing or dying, an agent giving up...)
is its `cause`, a code the record carries, said with the one table of words (`gui.core.causes.CAUSES`);
never read back from English. A denial's own note is read from the tool's error, with the sentences
the core defines (`gui.core.asks.service`). Pure: no NiceGUI.
"""

from __future__ import annotations

import re

from gui.core.asks import DECLINED_REASON, DENIED_REASON, EXPIRED_REASON, UNANSWERED_REASON
from gui.core.causes import CAUSES, EndCause
from gui.core.marks import read_back
from gui.core.runs import GroupRecord, ToolRecord, short_id
from gui.core.sequences import ConditionSyntaxError, condition_rows, parse_condition
from gui.i18n import ENGLISH, N_, _, current_language
from gui.wording.glossary import JOINER_WORDS, OPERATOR_WORDS, value_words

# The core's fixed reasons (English, kept in records as written), marked here so a screen can show
# them in the person's language with `core_words`; anything else (a tool's own error) stays as it is.
CORE_SENTENCES = (N_("cancelled"), N_("the run was stopped"), N_("the app was closed"),
                  N_("the app stopped before anyone answered"), N_("there was no one to ask"),
                  N_("an earlier group failed"), N_("an earlier tool of the group failed"),
                  N_("another tool of the group failed"), N_("stopped by the user"),
                  N_("stopped: the app was closed"), N_("the group's condition is false"))


_TOOL_FAILED = re.compile(r"^tool (?P<number>\d+) \((?P<tool>[^)]*)\) failed: (?P<error>.*)$", re.S)


# Where the sentences kept in a run record are marked: a built-in tool's errors, the runner's reasons
# and the condition evaluator's; a record's English is read back into one of them (`marks.read_back`).
RECORD_WORDS = ("gui/tools/", "gui/core/runs/runner.py", "gui/core/runs/decisions.py",
                "gui/core/sequences/conditions/language.py", "gui/core/runs/tool_call.py")


def core_words(text: str) -> str:
    """One of the core's fixed reasons in the person's language (also "tool 1 (x) failed: …", the
    runner's words around a tool's own error, and a built-in tool's own errors); other text (an MCP
    server's words, a program's output) as it is."""
    match = _TOOL_FAILED.match(text)
    if match is not None:
        return _("tool {number} ({tool}) failed: {error}").format(
            number=match["number"], tool=match["tool"], error=core_words(match["error"]))
    if text in CORE_SENTENCES:
        return _(text)
    if current_language() == ENGLISH:
        return text
    from gui.i18n.catalog import templates_marked_in  # babel's catalogue: only where words are translated

    known = templates_marked_in(*RECORD_WORDS)
    if text in known:
        return _(text)
    found = read_back(text, known)
    return found.render(_) if found is not None else text


_GROUP_FAILED = re.compile(r"^group '(?P<name>[^']*)' failed: (?P<reason>.*)$", re.S)


def run_error_words(error: str) -> str:
    """A run's error (`group 'x' failed: …`, `stopped by the user`) in the person's language."""
    match = _GROUP_FAILED.match(error)
    if match is not None:
        return _("group '{name}' failed: {reason}").format(name=match["name"], reason=core_words(match["reason"]))
    return core_words(error)
NOT_RUN = "not run: "
PERSON_ENDS = frozenset({"denied", "declined", "expired", "stopped_by_you"})


def cause_words(cause: EndCause) -> str:
    """How a thing `cause` ended ended, on a line of its own: "Stopped: the app was closed"."""
    return _(CAUSES[cause].ended)


def not_run_words(cause: EndCause) -> str:
    """A thing `cause` kept from starting: "Not run: the app was closed"."""
    return _("Not run: {reason}").format(reason=_(CAUSES[cause].why))


def end_words(status: str, error: str | None, cause: EndCause | None) -> str:
    """Why a run ended so, on one line: its cause's words, else its error in the person's language
    ("" when it has none). The runs list, the run page and notifications say it so."""
    if cause is not None and status not in ("running", "succeeded", "degraded"):
        return cause_words(cause)
    return run_error_words(error) if error else ""


def _after(text: str, head: str) -> str:
    """What follows `head: ` in `text` ("" when nothing does)."""
    rest = text[len(head):].lstrip()
    return rest[1:].strip() if rest.startswith(":") else rest.strip()


def _without(text: str, head: str) -> str:
    """`text` without a leading `head` (any case), so words are never doubled ("Cancelled: cancelled: …")."""
    return text[len(head):] if text.lower().startswith(head) else text


def not_run_reason(text: str) -> str:
    """ "not run: an earlier group failed" → "an earlier group failed" (the chip already says Not run)."""
    return text[len(NOT_RUN):] if text.lower().startswith(NOT_RUN) else text


def ended_state(tool: ToolRecord) -> str:
    """The state of a failed or cancelled tool, by why it ended: its cause first (a tool that had not
    started is "not run" whatever kept it from starting)."""
    error = tool.error or ""
    if tool.cause is not None and tool.status in ("failed", "cancelled"):
        if tool.status == "failed" and tool.timed_out:
            return "timed_out"  # its own error names the limit
        return "not_run" if tool.started_at is None else CAUSES[tool.cause].look
    if tool.status == "failed" and tool.denied:
        if error.startswith(DECLINED_REASON.split(":")[0]):
            return "declined"
        if error in (EXPIRED_REASON, UNANSWERED_REASON):
            return "expired"
        return "denied"
    if tool.status == "failed" and tool.timed_out:
        return "timed_out"
    if tool.status == "cancelled" and (tool.reason or error).lower().startswith(NOT_RUN):
        return "not_run"
    return tool.status


def outcome_words(tool: ToolRecord, state: str | None = None) -> str:
    """The sentence under a tool that did not succeed; "" when there is nothing to add."""
    state = state or ended_state(tool)
    error = tool.error or ""
    cause = tool.cause
    if cause is not None and state == "not_run":
        return not_run_words(cause)
    if cause is not None and state == CAUSES[cause].look and not (state == "timed_out" and tool.timed_out):
        return cause_words(cause)
    if state == "denied":
        note = _after(error, DENIED_REASON) if error.startswith(DENIED_REASON) else error
        return _("Denied by you: {note}").format(note=note) if note else _("Denied by you")
    if state == "declined":
        return _("Declined by you: you chose not to answer")
    if state == "expired":
        return _("Expired: nobody answered in time")
    if state == "stopped_by_you":
        return _("Stopped by you")
    if state == "not_run":
        return _("Not run: {reason}").format(reason=core_words(not_run_reason(tool.reason or error)))
    if state == "timed_out":
        return _("Timed out: {error}").format(error=core_words(error)) if error else _("Timed out")
    if state == "failed":
        return core_words(error) if error else _("it failed without saying why")
    if state == "cancelled":
        why = _without(tool.reason or error, "cancelled: ")
        why = "" if why.lower() == "cancelled" else why  # the bare word: never "Cancelled: cancelled"
        return _("Cancelled: {why}").format(why=core_words(why)) if why else _("Cancelled")
    return core_words(tool.reason or error)


_JOINERS = {"and": N_("and"), "or": N_("or")}
SKIPPED = re.compile(r"^its condition `(?P<when>.*)` is false$", re.S)


def condition_words(when: str) -> str:
    """A condition as people read it: `$args.go == true` → "go is yes" (never `$args`)."""
    try:
        fits = condition_rows(parse_condition(when))
    except ConditionSyntaxError:
        fits = None
    if fits is None:
        return when.replace("$args.", "")
    rows, joiner = fits
    joined = f" {_(_JOINERS.get(joiner, joiner))} ".join(_rule_words(r["arg"], r["op"], r["value"]) for r in rows)
    return joined if len(rows) <= 1 else _("{joiner}: {rules}").format(joiner=_(JOINER_WORDS[joiner]), rules=joined)


def _rule_words(arg: str, op: str, value: object) -> str:
    """`glossary.rule_words` in the person's language ("go is yes", "go 是 是")."""
    if value == "" or isinstance(value, bool):
        shown = _("empty") if value == "" else _("yes") if value else _("no")
        return f"{arg} {_(OPERATOR_WORDS.get(op, op))} {shown}"
    return f"{arg} {_(OPERATOR_WORDS.get(op, op))} {value_words(value)}"


def skipped_words(reason: str | None) -> str:
    match = SKIPPED.match(reason or "")
    if match is not None:
        return _("Skipped: it runs only if {condition}, and that was not so").format(
            condition=condition_words(match["when"]))
    return _("Skipped: {reason}").format(reason=reason) if reason else _("Skipped")


KEPT = N_("Kept from {run}: it had succeeded there, so it was not run again")


def kept_from(group: GroupRecord) -> str | None:
    """The run whose success a group kept (a resumed run's group that was not run again), else None."""
    return group.reused_from if group.reused_from is not None and group.status == "succeeded" else None


def kept_sentence(run: str) -> str:
    """ "Kept from run started 14:02: it had succeeded there, so it was not run again" (`run`: how the run
    is named: a link's words on a screen, its short id in text)."""
    return _(KEPT).format(run=run)


def kept_parts() -> tuple[str, str]:
    """The kept sentence's words before and after the run, for a screen that puts a link between them."""
    before, _run, after = _(KEPT).partition("{run}")
    return before, after


def group_note(group: GroupRecord) -> str:
    """What a group's row says under its name: why it was skipped, failed or not run."""
    if group.status == "skipped":
        return skipped_words(group.reason)
    if group.cause is not None and group.status == "cancelled":
        return not_run_words(group.cause)
    if group.cause is not None and group.status in ("stopped", "failed") and not group.timed_out:
        return cause_words(group.cause)
    if group.status == "stopped":  # a record that does not say what stopped it: the chip says Stopped
        return "" if not group.reason or group.reason == "the run was stopped" \
            else _("Stopped: {reason}").format(reason=core_words(group.reason))
    if group.status == "failed" and group.reason:
        failed = next((t for t in group.tools if t.status == "failed"), None)
        if failed is not None and not group.timed_out and ended_state(failed) in PERSON_ENDS:
            return outcome_words(failed)
        return _("Failed: {reason}").format(reason=core_words(group.reason))
    if group.status == "cancelled" and group.reason:
        return _("Not run: {reason}").format(reason=core_words(not_run_reason(group.reason)))
    if kept_from(group) is not None:
        return kept_sentence(_("run {id}").format(id=short_id(group.reused_from or "")))
    if group.serial_reason:
        return _("Ran one by one: {reason}").format(reason=group.serial_reason)
    return ""
