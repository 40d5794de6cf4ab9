"""What a waiting request and its run hold, by the thousand: the sets of field names pydantic keeps on
each model (`model_fields_set`) are shared by every model given the same names, and never change."""

from __future__ import annotations

from gui.core.asks import ApprovalResponse, InteractionService, ShellApprovalRequest, ToolSource
from gui.core.runs import GroupRecord, ToolRecord
from gui.core.sequences import Asking
from gui.memory import MemoryApprovalModes, MemoryInteractionStore


def _request(n: int, **team: object) -> ShellApprovalRequest:
    return ShellApprovalRequest(
        interaction_id=f"req-{n}", turn_id=f"run-{n}", created_at=1_000 + n,
        source=ToolSource(tool_call_id=f"call-{n}", tool_name="cmd_run"), sequence_name="nightly",
        group_name="deploy", step_fingerprint="f" * 16, sequence_identity="i" * 16, title="Run a command",
        command=f"make deploy N={n}", cwd="/srv/app", reason="its step", operation="exec",
        bound_inputs={"n": n}, tool_input={"command": f"make deploy N={n}"}, **team)  # type: ignore[arg-type]


async def test_held_requests_of_one_shape_share_their_names_and_a_change_copies_them():
    store = MemoryInteractionStore()
    service = InteractionService(store, modes=MemoryApprovalModes())
    team = {"asking": Asking(approvers=("role:ops",), required=2), "host": "node-a", "started_by": "alice",
            "expires_at": 10**13}  # a team's request: 19 names given (2.2 KB a set of its own)
    for n in range(3):
        await service.request(_request(n))
        await service.request(_request(10 + n, **team))
    plain = [service.waiting.get(f"req-{n}") for n in range(3)]
    teams = [service.waiting.get(f"req-{10 + n}") for n in range(3)]
    for held in (plain, teams):
        assert held[0] is not None and held[1] is not None and held[2] is not None
        assert held[0].model_fields_set is held[1].model_fields_set is held[2].model_fields_set
        assert held[0].request.model_fields_set is held[1].request.model_fields_set
        assert held[0].request.source.model_fields_set is held[2].request.source.model_fields_set
    assert len(teams[0].request.model_fields_set) == 19
    assert teams[0].request.model_fields_set == set(_request(0, **team).model_fields_set)
    assert plain[0].request.model_fields_set is not teams[0].request.model_fields_set
    # what pydantic changes it on, a copy with other values, copies it first: the others keep theirs
    changed = plain[0].model_copy(update={"revision": 1})
    assert changed.model_fields_set == {"request", "revision"} and plain[1].model_fields_set == {"request"}
    # stored as given, and answered as always
    assert await store.get("req-11") == teams[1]
    await service.respond("req-1", ApprovalResponse(decision="approved"))
    assert (await store.get("req-1")).status == "resolved"  # type: ignore[union-attr]
    assert plain[2].model_fields_set == {"request"}


def test_records_made_by_the_runner_share_their_names_and_never_change_them():
    tools = [ToolRecord.queued(n, "echo", f"r-0-{n}", None) for n in range(2)]
    on_host = [ToolRecord.queued(n, "echo", f"r-1-{n}", None, "node-a") for n in range(2)]
    groups = [GroupRecord.waiting(n, f"g{n}", "f" * 16, []) for n in range(2)]
    assert tools[0].model_fields_set is tools[1].model_fields_set
    assert on_host[0].model_fields_set is on_host[1].model_fields_set
    assert groups[0].model_fields_set is groups[1].model_fields_set
    tools[0].status, tools[0].attempts, groups[0].status = "running", 1, "running"  # as the runner does
    copied = tools[0].model_copy(update={"error": "boom"})
    assert tools[1].model_fields_set == {"index", "tool", "tool_call_id", "as_"}
    assert on_host[1].model_fields_set == {"index", "tool", "tool_call_id", "as_", "host"}
    assert groups[1].model_fields_set == {"index", "name", "tools", "fingerprint"}
    assert "error" in copied.model_fields_set and "error" not in tools[1].model_fields_set
