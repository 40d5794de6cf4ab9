"""Who answers a step's requests, how many must agree, and what happens while nobody does (issue 26).

A group, or one tool step inside it, may say:

- `approvers`: who may answer, each `"role:NAME"` (anyone with that role) or `"person:NAME"`;
- `required`: how many distinct people must approve before the step runs (default 1);
- `self_approve`: whether the person who started the run may approve its own step (default false;
  only a team server knows who started a run, so the desktop is never stopped by it);
- `remind_after`: a duration after which the approvers are reminded;
- `escalate_after` with `escalate_to`: a duration after which someone else is asked as well;
- `expire_after`: a duration after which the request ends: an approval is then denied, a question
  takes the default it declares (never an approval by time alone).

A step's own keys win over its group's, key by key (`Asking.over`). Nothing here is part of a step's
fingerprint (`gui.core.sequences.fingerprint`): who answers does not change what runs.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

from gui.core.sequences.durations import parse_duration

TargetKind = Literal["role", "person"]
TARGET_KINDS: tuple[TargetKind, ...] = ("role", "person")
# The keys a group or a tool step may carry, in the order the help and the editor name them.
ASKING_KEYS = ("approvers", "required", "self_approve", "remind_after", "escalate_after", "escalate_to",
               "expire_after")


def split_target(target: str) -> tuple[str, str] | None:
    """`("role", "oncall")` of `"role:oncall"`; None when it has no known prefix or no name."""
    kind, sep, name = target.partition(":")
    if not sep or kind not in TARGET_KINDS or not name.strip() or name != name.strip():
        return None
    return kind, name


class Asking(BaseModel):
    """The answering rules of a group or a step; every field left unset keeps its default."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    approvers: tuple[str, ...] = ()
    required: int = 1
    self_approve: bool = False
    remind_after: str | None = None
    escalate_after: str | None = None
    escalate_to: tuple[str, ...] = ()
    expire_after: str | None = None

    @model_serializer(mode="wrap")
    def _only_set(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Only the keys its author wrote: a document reads as written, and a step's `"required": 1`
        still overrides its group's 2 once stored and read again."""
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items() if k in self.model_fields_set}

    def over(self, group: Asking | None) -> Asking:
        """This step's rules, falling back on its group's for every key the step does not set."""
        if group is None:
            return self
        given = {name: getattr(self, name) for name in self.model_fields_set}
        return Asking.model_validate({**group.model_dump(), **given})

    @property
    def gated(self) -> bool:
        """Something restricts who answers or how many must (else any one person decides, as always)."""
        return bool(self.approvers) or self.required > 1

    def named(self, kind: TargetKind, targets: tuple[str, ...] | None = None) -> tuple[str, ...]:
        """The names of one kind among `targets` (the approvers by default): `persons`, or `roles`."""
        found = [split_target(target) for target in (self.approvers if targets is None else targets)]
        return tuple(pair[1] for pair in found if pair is not None and pair[0] == kind)

    @staticmethod
    def seconds(text: str | None) -> float | None:
        return None if text is None else parse_duration(text)

