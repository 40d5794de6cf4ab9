"""The schedule operations of `RemoteEngine` (a mixin): the app's `/api/schedules` routes."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx

from gui.api.errors import error_in
from gui.core.runs import Schedule


class RemoteSchedules:
    async def _send(self, method: str, path: str, **kw: Any) -> httpx.Response:
        raise NotImplementedError

    async def _request(self, method: str, path: str, *, missing_ok: bool = False, **kw: Any) -> Any:
        raise NotImplementedError

    async def list_schedules(self) -> list[Schedule]:
        return [_schedule(item) for item in await self._request("GET", "/api/schedules")]

    async def create_schedule(self, sequence: Any, args: Any = None, every: Any = None, cron: Any = None) -> Schedule:
        body = {k: v for k, v in {"sequence": sequence, "args": args, "every": every, "cron": cron}.items()
                if v is not None}
        return _schedule(await self._request("POST", "/api/schedules", json=body))  # ScheduleInvalid by its code

    async def pause_schedule(self, schedule_id: str, paused: bool = True) -> Schedule:
        path = f"/api/schedules/{quote(schedule_id, safe='')}/pause"
        return _schedule(await self._request("POST", path, json={"paused": paused}))

    async def delete_schedule(self, schedule_id: str) -> bool:
        response = await self._send("DELETE", f"/api/schedules/{quote(schedule_id, safe='')}")
        if response.status_code == 404:
            return False
        if response.status_code >= 400:
            raise error_in(response.status_code, response.content,
                           f"the app refused to delete schedule {schedule_id}: HTTP {response.status_code}")
        return True


def _schedule(data: dict[str, Any]) -> Schedule:
    return Schedule.model_validate({k: v for k, v in data.items() if k in Schedule.model_fields})
