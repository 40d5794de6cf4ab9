"""What the validator knows of everything outside the document it checks: the saved sequences and
the tools (`CatalogView`). The door builds one from its catalog and registry; the format knows neither."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gui.core.sequences.model import SlotType


@dataclass(frozen=True)
class CatalogView:
    """What the validator needs to know about other saved sequences.

    `group_owner` maps every saved group name to the sequence that holds it; `sequence_names` are
    the saved sequences; `calls` maps a saved sequence or group name to the names its `seq_call`
    tools call directly. `tool_exists` answers for the warning `unknown-tool` (None: don't warn);
    `validate_args` checks literal arguments of a known tool (raises ValueError with a message).
    `shell_args` names a tool's shell-text arguments (see `gui.core.sequences.shell.inputs`).
    `host_names`: the hosts a step's `on` may name.
    `as_new`: the document replaces no saved sequence, so a saved one of its name is a conflict
    (`name-taken`) and so are that one's group names, all reported in the same pass.
    """

    group_owner: Mapping[str, str] = field(default_factory=dict)
    sequence_names: frozenset[str] = frozenset()
    calls: Mapping[str, frozenset[str]] = field(default_factory=dict)
    tool_exists: Callable[[str], bool] | None = None
    tool_names: Callable[[], list[str]] | None = None  # every known name, for "did you mean …?"
    validate_args: Callable[[str, dict[str, Any]], None] | None = None
    # (tool, args, the group's input types) -> (what the tool calls itself, the type it gives back)
    result_type: Callable[[str, dict[str, Any], Mapping[str, SlotType]], tuple[str, SlotType] | None] | None = None
    # tool -> what it calls itself, when its result is text unless it sends pictures, sounds or resources
    # with it (an MCP tool without an output schema): saved to a number or yes/no it never fits, and to
    # an object only with such media
    text_result: Callable[[str], str | None] | None = None
    # the arguments of a tool that a shell reads as a command line (`cmd_run`'s command): inputs there
    # may go only where they stay text, and one a program runs as code is warned of
    shell_args: Callable[[str], frozenset[str]] | None = None
    as_new: bool = False
    # The hosts the team knows (`seqdesk worker --name` that registered): a step's `on` must name one
    # (None: not checked); and whether a tool can run on a host (the built-in tools a worker carries).
    host_names: frozenset[str] | None = None
    runs_on_hosts: Callable[[str], bool] | None = None
