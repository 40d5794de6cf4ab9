"""The inbox's History tab: fifty ended requests a page, from a store query, with the count of all."""

from __future__ import annotations

from nicegui.testing import User
from support.ui import app_ctx

from gui.core.asks.interactions import (
    ApprovalResponse,
    InteractionRecord,
    ResolvedResult,
    ShellApprovalRequest,
    ToolSource,
)


def ended(n: int, status: str = "resolved") -> InteractionRecord:
    iid = f"h{n:03d}"
    request = ShellApprovalRequest(interaction_id=iid, turn_id="run-1", created_at=1_700_000_000_000 + n,
                                   source=ToolSource(tool_call_id=f"c{n}", tool_name="cmd_run"),
                                   title="Run a command", command=f"make step{n}", cwd="/srv", reason="a step",
                                   operation="exec")
    if status == "pending":
        return InteractionRecord(request=request)
    return InteractionRecord(request=request, status="resolved", resolved_at=request.created_at + 5,
                             result=ResolvedResult(interaction_id=iid, response=ApprovalResponse(decision="approved")))


async def test_history_pages_through_every_ended_request_and_leaves_out_the_pending(user: User):
    await app_ctx().engine.interaction_store.save_many([*(ended(n) for n in range(62)), ended(70, "pending")])
    await user.open("/inbox")
    user.find(marker="tab-history").click()
    await user.should_see("1–50 of 62")
    await user.should_see(marker="history-row-h061")
    await user.should_not_see(marker="history-row-h070")  # still waiting: it is not history
    user.find(marker="history-pager").elements.pop().set_value(2)
    await user.should_see("51–62 of 62")
    await user.should_see(marker="history-row-h000")
    await user.should_not_see(marker="history-row-h061")
