"""Tools and the one registry that holds them: built-ins now, MCP servers' tools later.

A tool is described by a `Tool`: its name, a description a non-developer understands, a JSON
schema for its arguments (the editor draws its form from it), whether it is safe to run beside
other tools, and what kind of approval it needs before it runs. `ModelTool` is the base for tools
whose arguments are a pydantic model; MCP tools implement `Tool` over a JSON schema instead.
"""

from __future__ import annotations

import copy
import functools
import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from gui.core.causes import EndCause
from gui.core.errors import ToolArgumentError, ToolError
from gui.core.json_text import is_plain_json
from gui.core.marks import Sentence, sentence
from gui.core.sequences import SlotType

if TYPE_CHECKING:
    from gui.core.asks import AskPort, ElicitationHandler

JsonValue = Any
ArgsT = TypeVar("ArgsT", bound=BaseModel)

# "none": runs without asking; "exec"/"write"/"start": a shell-style approval (command, folder,
# reason); "tool": a tool approval showing the validated input.
ApprovalKind = Literal["none", "exec", "write", "start", "tool"]


class ToolDeclined(ToolError):
    """The person chose not to go on (declined a question, let it expire): their choice, not a crash,
    so it is recorded like a denied approval and never retried. `cause`: what ended it when it was not
    the person's choice (`gui.core.causes`: nobody answered in time, the request was cancelled)."""

    def __init__(self, message: str, cause: EndCause | None = None) -> None:
        super().__init__(message)
        self.cause = cause


@dataclass(frozen=True)
class ShellApproval:
    """What a shell-style approval shows: the command, the folder, why, and the operation."""

    title: str
    command: str
    cwd: str
    reason: str
    operation: Literal["exec", "start", "write"]
    description: str | None = None
    # What the tool resolved to word this approval (a file's identity): handed back to its `call` as
    # `ToolContext.approved`, so it acts on what was shown instead of resolving it a second time.
    shown: object = field(default=None, compare=False)


@dataclass(frozen=True)
class ApprovalSummary:
    """One sentence of what a tool approval will do, with the part a person must check (a file, a
    web server's name) given apart so the inbox can show it in bold. `words`: the marked template and
    its parameters, so the inbox can say it in the person's language (`text` stays the English)."""

    text: str
    highlight: str | None = None
    words: Sentence | None = None
    shown: object = field(default=None, compare=False)  # as `ShellApproval.shown`

    @classmethod
    def of(cls, template: str, *, highlight: str | None = None, shown: object = None,
           **params: str) -> ApprovalSummary:
        """`ApprovalSummary.of(N_("Read the file {path}"), highlight=path, path=path)`."""
        words = sentence(template, **params)
        return cls(text=words.render(), highlight=highlight, words=words, shown=shown)


@dataclass(slots=True)
class ToolContext:
    """What a running tool may use besides its arguments (slots: one is made per call)."""

    run_id: str
    tool_call_id: str
    tool_name: str
    sequence_name: str = ""
    group_name: str = ""
    interactions: AskPort | None = None  # its own requests (a question); its approval is asked for it
    elicitation: ElicitationHandler | None = None
    # Latest moment (time.time()) any request for a person may wait: the group's deadline.
    deadline: float | None = None
    # Runs a saved sequence or group by name (seq_call); set by the runner.
    call_sequence: Callable[[str, dict[str, JsonValue], int], Awaitable[JsonValue]] | None = None
    depth: int = 0
    # How far it has come (progress, total or None, message or None): the run panel's progress bar.
    progress: Callable[[float, float | None, str | None], None] | None = None
    # A line for the tool's log in the run record (level such as "info", text).
    log: Callable[[str, str], None] | None = None
    # A tool that starts a process says so (pid, the process's start time) and awaits this before
    # letting it act: the run's record holds it on disk first (see `gui.tools.cmd_run`).
    record_process: Callable[[int, float | None], Awaitable[None]] | None = None
    # What the approval of this call showed (its `ShellApproval.shown` or `ApprovalSummary.shown`);
    # None when nothing was asked, or when the person edited the arguments before approving.
    approved: object = None
    # The approval request whose answer allowed this call; None when its tool asks none.
    approval: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Tool(ABC):
    name: str
    description: str
    concurrency_safe: bool = True
    approval: ApprovalKind = "none"
    server: str | None = None  # the MCP server it comes from; None for a built-in tool
    server_address: str | None = None  # where that server is (its web address or program): cards show it
    # A team's worker (`seqdesk worker`) carries it, so a step may run it on a host (`"on"`).
    runs_on_hosts: ClassVar[bool] = False
    # Arguments that a shell reads as a command line: inputs inside them are inserted shell-quoted.
    shell_text_args: ClassVar[frozenset[str]] = frozenset()

    @abstractmethod
    def input_schema(self) -> dict[str, Any]:
        """JSON schema of the arguments."""

    @abstractmethod
    def validate_args(self, args: dict[str, JsonValue]) -> dict[str, JsonValue]:
        """The arguments checked and normalised; ToolArgumentError when they do not fit."""

    @abstractmethod
    async def call(self, args: dict[str, JsonValue], ctx: ToolContext) -> JsonValue:
        """Run the tool; raise ToolError for a failure the person should read."""

    def shell_approval(self, args: dict[str, JsonValue]) -> ShellApproval | None:
        """For shell-style tools, what the approval shows; None means a plain tool approval. `args` are
        as `validate_args` gave them (the runner validates before it asks), as for `approval_summary`."""
        return None

    def output_schema(self) -> dict[str, Any] | None:
        """The JSON schema of what it gives back, when it has one (an MCP tool's `outputSchema`)."""
        return None

    def result_type_for(self, args: dict[str, JsonValue], ins: Mapping[str, SlotType]) -> SlotType | None:
        """The JSON type of what it gives back for these arguments (`ins`: the group's input types);
        None when it cannot be known before it runs."""
        return None

    @property
    def title(self) -> str:
        """What a person calls it ("Run a command"): its arguments' title, else its name."""
        return self.name

    def approval_summary(self, args: dict[str, JsonValue]) -> ApprovalSummary | None:
        """For a tool approval, one sentence saying what it will read or where it will send."""
        return None


class CheckedArgs(dict[str, JsonValue]):
    """Arguments a `ModelTool` checked (`validate_args`), as JSON values, with the model they were read
    into: the runner hands them to the tool's `call`, which reads that model (`ModelTool.read_args`)
    instead of validating them a second time. They are never changed after the check."""

    __slots__ = ("model",)
    model: BaseModel

    @classmethod
    def of(cls, model: BaseModel) -> CheckedArgs:
        """The model's fields as JSON values (`json_values`), copied once, with the model."""
        values = model.__dict__
        checked = cls(values) if _dumps_as_is(type(model)) and _all_plain(values) else cls(
            model.model_dump(mode="json"))
        checked.model = model  # (set here, not by an `__init__` of its own: a call less per tool call)
        return checked


class ModelTool(Tool):
    """A tool whose arguments are a pydantic model (`Args`)."""

    Args: ClassVar[type[BaseModel]]

    def input_schema(self) -> dict[str, Any]:
        return copy.deepcopy(_schema_of(self.Args))  # a copy: the caller may change its own

    @property
    def title(self) -> str:
        title = self.Args.model_config.get("title")
        return title if isinstance(title, str) and title else self.name

    def validate_args(self, args: dict[str, JsonValue]) -> CheckedArgs:
        return CheckedArgs.of(self.read_args(self.Args, args))

    def read_args(self, model: type[ArgsT], args: dict[str, JsonValue]) -> ArgsT:
        """The arguments as `model`: the one this tool's check read them into (`CheckedArgs`), else
        validated now; ToolArgumentError (with field paths) when they do not fit."""
        if isinstance(args, CheckedArgs) and type(args.model) is model:
            return args.model
        try:  # (`model.model_validate`, without its wrapper's checks of options not given: a third of its time)
            validated: ArgsT = model.__pydantic_validator__.validate_python(args)
            return validated
        except ValidationError as exc:
            problems = [(".".join(str(p) for p in e["loc"]), e["msg"]) for e in exc.errors()]
            raise ToolArgumentError(self.name, problems) from None


def json_values(model: BaseModel) -> dict[str, JsonValue]:
    """`model.model_dump(mode="json")`: its fields' values as they are when that dump would give them
    back unchanged (a model that changes nothing as it dumps, and plain JSON values), else that dump.
    Every call's arguments are dumped so: half the cost of their check, for the common case."""
    values = model.__dict__
    if _dumps_as_is(type(model)) and _all_plain(values):
        return dict(values)
    return model.model_dump(mode="json")


def _all_plain(values: dict[str, Any]) -> bool:
    """Whether every one of the values `is_plain_json` (a loop, not `all` of a generator: per tool call)."""
    for value in values.values():
        if type(value) not in _SCALARS and not is_plain_json(value):
            return False
    return True


_SCALARS = frozenset({str, int, bool, type(None)})


@functools.cache
def _dumps_as_is(model: type[BaseModel]) -> bool:
    """Whether a model's dump is its fields as they are: no serializer, excluded or computed field
    anywhere in its schema, no extra fields (kept apart from its fields), and no default that its
    field's dump would change (a whole number as the default of a fraction dumps as 30.0)."""
    for info in model.model_fields.values():
        default = info.get_default(call_default_factory=True, validated_data={})
        if info.is_required() or default is None:
            continue
        dumped = TypeAdapter(info.annotation).dump_python(default, mode="json")
        if not is_plain_json(default) or json.dumps(dumped) != json.dumps(default):
            return False

    def plain(schema: Any) -> bool:
        if isinstance(schema, dict):
            if "serialization" in schema or schema.get("computed_fields") or any(
                    key.startswith("serialization_exclude") and value for key, value in schema.items()):
                return False
            return all(plain(value) for value in schema.values())
        if isinstance(schema, list | tuple):
            return all(plain(value) for value in schema)
        return True

    return model.model_config.get("extra") != "allow" and plain(model.__pydantic_core_schema__)


@functools.cache
def _schema_of(args: type[BaseModel]) -> dict[str, Any]:
    """An argument model's JSON schema, made once (pydantic builds it anew on each call: milliseconds a
    tool, on every tool listing the editor and the run page read)."""
    return args.model_json_schema()


class Registry:
    """Tools by name. Thread-safe: MCP connections add and remove tools from other threads."""

    def __init__(self, tools: list[Tool] | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self._lock = threading.Lock()
        self._listeners: list[Callable[[], None]] = []
        for tool in tools or []:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        with self._lock:
            self._tools[tool.name] = tool
        self._changed()

    def remove(self, name: str) -> None:
        with self._lock:
            self._tools.pop(name, None)
        self._changed()

    def remove_prefix(self, prefix: str) -> None:
        with self._lock:
            for name in [n for n in self._tools if n.startswith(prefix)]:
                del self._tools[name]
        self._changed()

    def get(self, name: str) -> Tool | None:
        # No lock: one lookup in a dict is atomic (the interpreter's lock), against another thread's
        # `add` or `remove` too; it is made for every tool call.
        return self._tools.get(name)

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._tools)

    def edit_problems(self, tool_name: str, edited: dict[str, JsonValue]) -> list[str]:
        """What is wrong with arguments a person edited in an approval (checked against the tool as
        it is now); empty when they fit. The interaction service asks before it takes such an answer."""
        tool = self.get(tool_name)
        if tool is None:
            return [f"the tool '{tool_name}' is not available now to check the edit"]
        try:
            tool.validate_args(edited)
        except ToolArgumentError as exc:
            return [f"the edited input does not fit {tool_name}: {exc}"]
        return []

    def __contains__(self, name: object) -> bool:
        with self._lock:
            return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        with self._lock:
            return iter(sorted(self._tools.values(), key=lambda t: t.name))

    def on_change(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()
