"""The JSON schemas `seqdesk mcp` publishes: a real one for `seq_create`'s `groups`, and each seq_* tool's
`outputSchema` (as pydantic models, which the SDK turns into the schema and checks each result against).

The output models allow fields beyond the ones named: they describe what an agent can rely on, and a
newer SeqDesk may add more without breaking an older agent.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

TYPES = ["string", "number", "boolean", "array", "object"]
_SLOTS: dict[str, Any] = {"type": "object", "additionalProperties": {"type": "string", "enum": TYPES}}

GROUP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "one group: its tools run at the same time; groups run one after another",
    "properties": {
        "name": {"type": "string", "description": "unique across every saved sequence (it can be called by name)"},
        "description": {"type": "string"},
        "in": {**_SLOTS, "description": 'inputs, an OBJECT such as {"host": "string"}; none: {}'},
        "out": {**_SLOTS, "description": 'output slots, an OBJECT such as {"summary": "string"}; none: {}'},
        "when": {"type": "string", "description": 'a condition over this group\'s $args, such as "$args.n > 3"'},
        "parallel": {"type": "boolean", "description": "false runs the tools one by one, in order"},
        "missing": {"type": "string", "enum": ["fail", "skip", "degrade"]},
        "timeout": {"type": "string", "description": 'time limit of the whole group: "500ms", "30s", "2m", "1h"'},
        "on_error": {"type": "string", "enum": ["abort", "continue", "retry"]},
        "approvers": {"type": "array", "items": {"type": "string", "pattern": "^(role|person):.+$"},
                      "description": 'who may answer its requests: "role:NAME" or "person:NAME"'},
        "required": {"type": "integer", "minimum": 1, "description": "how many distinct people must approve"},
        "self_approve": {"type": "boolean", "description": "may whoever started the run approve its own step"},
        "remind_after": {"type": "string", "description": 'remind the approvers after this long, such as "30m"'},
        "escalate_after": {"type": "string", "description": "after this long, ask escalate_to as well"},
        "escalate_to": {"type": "array", "items": {"type": "string", "pattern": "^(role|person):.+$"}},
        "expire_after": {"type": "string", "description": "after this long an approval is denied, a question "
                                                          "takes its default"},
        "tools": {"type": "string", "description": 'a STRING of JSON objects, each followed by ";" (the last one '
                                                   'too): {"tool":"echo","args":{"value":"hi"},"as":"said"} ;'},
    },
    "required": ["name", "tools"],
}

GROUPS_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {"type": "array", "items": GROUP_SCHEMA, "minItems": 1},
        {"type": "string", "description": "the same array written as JSON text"},
        {"type": "null"},
    ],
    "description": "the groups, as in seq_help (give groups or file, exactly one)",
    "default": None,
}


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class SequenceList(_Open):
    sequences: list[dict[str, Any]] = Field(description="each with name, description, groups and signature")


class HelpText(_Open):
    help: str = Field(description="the sequence format and an example; the text content holds the same")


class ToolsOut(_Open):
    tools: list[dict[str, Any]] = Field(description="name, title, description, input_schema, result_type, "
                                                    "asks_first, server and server_state of each tool")
    servers: list[dict[str, Any]] = Field(description="every configured MCP server with its state")


class SavedOut(_Open):
    name: str
    saved: bool
    warnings: list[str]
    signature: dict[str, Any]


class RunOut(_Open):
    """A run record's summary; a condition that was false gives `called: false` instead."""

    run_id: str | None = None
    sequence: str | None = None
    status: str | None = Field(default=None, description="succeeded, degraded, failed, stopped or interrupted")
    error: str | None = None
    cause: str | None = Field(default=None, description="what stopped or interrupted it, when something did: "
                                                        "person, app_closed, app_stopped, agent_gave_up, ...")
    outputs: dict[str, Any] | None = None
    groups: list[dict[str, Any]] | None = None
    called: bool | None = None
    reason: str | None = None


class DeletedOut(_Open):
    deleted: str
