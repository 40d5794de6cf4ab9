"""The exceptions of SeqDesk: one root, a family for each kind of failure, and the leaves in their concepts.

A family says what kind of failure it is, for everyone who meets it: its HTTP `status` (the API
answers with it) and a stable `code` (a leaf may carry a more precise code of its own). One table,
`gui.wire.errors`, turns them into answers and `gui.remote.RemoteEngine` back into the same exceptions,
so a caller catches the same class whether the engine runs in its process or in the app. Whoever
only needs "something SeqDesk can say in words" catches `SeqDeskError`. `NotFound` is also a
`LookupError` and `Invalid` a `ValueError`, as the leaves in them were before there was a tree; a
leaf keeps any other built-in base it had (`SecretStoreError` is still a `RuntimeError`).

    SeqDeskError
    ├── Unreadable (400 unreadable): the input cannot be read at all (not JSON, not UTF-8, no file)
    ├── NotSignedIn (401 not-signed-in): who asks is not known (no sign-in, a wrong password)
    │   ├── gui.core.people.WrongPassword (wrong-password)
    │   └── gui.people.OidcFailed (oidc-failed)
    ├── Refused (403 refused): not from here, or not without a person
    │   ├── gui.core.people: NotAllowed (not-allowed), PersonRemoved (person-removed)
    │   ├── gui.mcp.auth.SignInNeeded, gui.mcp.client._StepUpNeeded (a scope a new sign-in can give)
    │   ├── gui.core.asks.NotAnApprover (not-an-approver): not among a request's approvers, or its run's starter
    │   └── gui.cli.form_prompt._Stop
    ├── NotFound (404 not-found, LookupError)
    │   ├── gui.core.people.NoSuchPerson (no-such-person)
    │   ├── gui.core.door.NotFoundError (no-such-name)
    │   ├── gui.core.runs.RunNotFoundError
    │   ├── gui.core.door.McpServerNotFound (no-such-server)
    │   ├── gui.core.asks.InteractionNotFoundError (an InteractionNotPendingError too)
    │   └── gui.tools._approved_path.FolderMissing
    ├── Conflict (409 conflict): the state of things forbids it now
    │   ├── gui.core.door.McpServerExists (server-exists)
    │   ├── gui.core.runs.ResumeRefused (resume-refused)
    │   ├── gui.core.runs.AmbiguousRunIdError (ambiguous-run-id, LookupError)
    │   ├── gui.core.runs.LeaseLost (lease-lost): another process of a team took the run over
    │   ├── gui.pgstore.WriteConflict (write-conflict), gui.moving.NotEmpty (target-not-empty)
    │   ├── gui.moving.BrokenRecord (broken-record): a record of decisions to export whose chain is broken
    │   ├── gui.pgstore.ProcessNameTaken (process-name-taken): a team process's name borne by a live one
    │   ├── gui.core.door.TooManyAsks (too-many-asks)
    │   ├── gui.core.people: PersonExists (person-exists), LabelTaken (label-taken), LastAdmin (last-admin)
    │   ├── gui.core.asks.AlreadyApproved (already-approved): the same person approving twice
    │   └── gui.core.asks.InteractionError (interaction-error: it exists already)
    │       ├── InteractionNotPendingError (not-pending)
    │       ├── InteractionNotFoundError (above, in NotFound)
    │       └── InteractionValidationError (above, in Invalid)
    ├── Gone (410 gone): it was there once and is no more (an invite used or expired)
    │   └── gui.core.people.InviteGone (invite-gone)
    ├── TooLarge (413 too-large): over a size limit
    ├── TooSoon (429 too-soon): too many tries in a short time; wait and try again
    │   └── gui.core.people.SlowDown (slow-down)
    ├── Invalid (422 invalid, ValueError): well read, but not right
    │   ├── gui.core.sequences.DslError (dsl-error)
    │   │   └── InvalidSequenceError (invalid-sequence)
    │   ├── gui.core.sequences.RunArgsError (invalid-run-args)
    │   ├── gui.core.runs.ScheduleInvalid (invalid-schedule)
    │   ├── gui.core.asks.InteractionValidationError (invalid-response; an InteractionError too)
    │   ├── gui.core.asks.RuleError, gui.core.door.WhenCallError
    │   ├── gui.core.door.McpServerInvalid (invalid-server), gui.core.door.AskInvalid (invalid-ask)
    │   ├── gui.temporal.ExecutorAddressError, gui.temporal.StepKeyError
    │   ├── gui.core.sequences: ConditionSyntaxError, ConditionEvalError, DurationError,
    │   │   SubstitutionError (ShellPlaceError), ArgumentsError, parser._DuplicateKey, parser._BadNumber
    │   ├── gui.i18n.UnknownLanguage, gui.moving.BadExport (bad-export), gui.settings.SettingsError
    │   ├── gui.moving.CannotSeal (cannot-seal): secrets to export, and no key to seal them with
    │   ├── gui.core.people: PersonNameError (invalid-name), BadPassword (bad-password), BadLabel (bad-label)
    │   └── gui.ui.editor.draft._Invalid
    ├── Internal (500 internal): SeqDesk's own files, store or keyring are not as they must be
    │   ├── gui.store.errors.StoreError (store-error): CorruptDatabaseError, DataFolderError,
    │   │   DataFolderInUseError, DataFolderLostError, WriterClosedError (each with its code)
    │   ├── gui.pgstore: DatabaseNewerError (database-newer), SecretKeyError (secret-key)
    │   ├── gui.mcp.config.McpConfigError (ValueError)
    │   └── gui.mcp.secrets.SecretStoreError (RuntimeError)
    ├── Failed (502 failed): what SeqDesk asked of something else did not happen
    │   ├── ToolError: ToolArgumentError, gui.core.tools.ToolDeclined, gui.core.runs.tool_call._Denied,
    │   │   gui.tools._approved_path.Changed
    │   ├── gui.core.runs.decisions.GroupFailed
    │   ├── gui.notify.channels.SendError
    │   ├── gui.mcp.sign_in.SignInError
    │   └── gui.core.door.SignInFailed (sign-in-failed)
    └── Unavailable (503 unavailable): not there now (the engine, the app, a listener, an answerer)
        ├── gui.core.asks.ElicitationNotHandled
        ├── gui.pgstore.DatabaseUnreachable (database-unreachable), gui.moving.CannotWrite (cannot-write)
        ├── gui.temporal.TemporalUnavailableError
        └── gui.phone.lan.LanError

Signals, not errors: `gui.core.runs.AwaitedElsewhere` (a call pauses while a durable executor waits for
its answer) is a BaseException, as asyncio's CancelledError is, so that no `except Exception` takes it
for a failure; it is below no family and never reaches a person. So are `gui.temporal.steps.RunCalled`
(a seq_call pauses while the run it called goes on as a child workflow) and
`gui.temporal.host_steps.SentToHost` (a step's call pauses while its run's workflow sends it to its host).

A leaf that is also something of another family (an interaction that is not found is not pending
either) names its own family first: the first family in its bases' order gives its status.
"""

from __future__ import annotations

from typing import ClassVar


class SeqDeskError(Exception):
    """The root: a failure SeqDesk can say in words (its message is for people)."""

    status: ClassVar[int] = 500
    code: ClassVar[str] = "error"


class Unreadable(SeqDeskError):
    """The input cannot be read at all: not JSON, not UTF-8 text, empty, no such file."""

    status = 400
    code = "unreadable"


class NotSignedIn(SeqDeskError):
    """Who asks is not known: no sign-in, an unknown token, a wrong password."""

    status = 401
    code = "not-signed-in"


class Refused(SeqDeskError):
    """Not allowed from here (a paired phone, without a sign-in), or a person said no."""

    status = 403
    code = "refused"


class NotFound(SeqDeskError, LookupError):
    """Nothing has that name or id."""

    status = 404
    code = "not-found"


class Conflict(SeqDeskError):
    """It cannot be done in the state things are in now (already ended, ambiguous, resumed already)."""

    status = 409
    code = "conflict"


class Gone(SeqDeskError):
    """It was there once and is no more: an invite used already, or expired."""

    status = 410
    code = "gone"


class TooLarge(SeqDeskError):
    """Over a size limit."""

    status = 413
    code = "too-large"


class Invalid(SeqDeskError, ValueError):
    """It was read, but it is not right: the message says what and where."""

    status = 422
    code = "invalid"


class TooSoon(SeqDeskError):
    """Too many tries in a short time: the message says how long to wait (`retry_after`, s)."""

    status = 429
    code = "too-soon"
    retry_after: float = 60.0


class Internal(SeqDeskError):
    """SeqDesk's own files, store or keyring are not in a state to do it; not the caller's mistake."""

    status = 500
    code = "internal"


class Failed(SeqDeskError):
    """What SeqDesk asked of something else (a tool, a server, a mail server) did not happen."""

    status = 502
    code = "failed"


class Unavailable(SeqDeskError):
    """Not there now: the engine is not open yet, the app does not answer, nobody can answer here."""

    status = 503
    code = "unavailable"


FAMILIES: tuple[type[SeqDeskError], ...] = (Unreadable, NotSignedIn, Refused, NotFound, Conflict, Gone, TooLarge,
                                            TooSoon, Invalid, Internal, Failed, Unavailable)


def family_of(kind: type[SeqDeskError]) -> type[SeqDeskError]:
    """The family a SeqDesk exception belongs to (the first in its bases' order)."""
    return next(base for base in kind.__mro__ if base in FAMILIES)


class ToolError(Failed):
    """A tool call failed; the message is what the person sees."""


class ToolArgumentError(ToolError):
    """The arguments do not fit the tool; `problems` lists (field path, message)."""

    def __init__(self, tool: str, problems: list[tuple[str, str]]) -> None:
        self.tool = tool
        self.problems = problems
        details = "; ".join(_argument_problem(path, msg) for path, msg in problems)
        super().__init__(f"the arguments of '{tool}' do not fit: {details}")


def _argument_problem(path: str, message: str) -> str:
    """One argument's problem in words: "the argument 'command' is missing" (pydantic: "Field required")."""
    if path and message == "Field required":
        return f"the argument '{path}' is missing"
    if path and message.startswith("Extra inputs are not permitted"):
        return f"'{path}' is not one of its arguments"
    return f"'{path}': {message}" if path else message
