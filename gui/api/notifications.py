"""Notification settings over the API: `GET/PUT /api/settings/notifications` and
`POST /api/settings/notifications/test`.

GET never gives the SMTP password back (`smtp.password_set` says whether one is kept); a PUT that
leaves `smtp.password` out keeps it. A paired phone may read these settings but not change them or
send tests (it could otherwise point the notices at another address): that is for the computer.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response
from pydantic import ValidationError

from gui.api.auth import DEVICE_SCOPE_KEY
from gui.api.body import json_response, read_json
from gui.api.shared import Context, pydantic_detail
from gui.core.errors import Invalid, Refused
from gui.notify import SettingsInput

_EXPECT = ('settings like {"webhook_url": "https://…", "ntfy_url": null, "smtp": null}')


def from_phone(request: Request) -> bool:
    return bool(request.scope.get(DEVICE_SCOPE_KEY))


async def get_notifications(api: Context) -> Response:
    return json_response(api.notifier().public())


async def put_notifications(request: Request, api: Context) -> Response:
    if from_phone(request):
        raise Refused("notification settings are changed on the computer SeqDesk runs on")
    body = await read_json(request, expect=_EXPECT)
    if not isinstance(body, dict):
        raise Invalid(f"the body must be {_EXPECT}")
    target = api.notifier()
    try:
        target.update(SettingsInput.model_validate(body))
    except ValidationError as exc:
        raise Invalid(pydantic_detail(exc).replace("smtp.", "the mail server's ")) from None
    return json_response(target.public())


async def test_notification(request: Request, api: Context) -> Response:
    """`{"channel": "webhook" | "ntfy" | "email"}`: one attempt now; `ok` and the `error`."""
    if from_phone(request):
        raise Refused("tests are sent from the computer SeqDesk runs on")
    body = await read_json(request, expect='{"channel": "webhook"}')
    channel = body.get("channel") if isinstance(body, dict) else None
    if not isinstance(channel, str):
        raise Invalid('say which channel to test: {"channel": "webhook"}, "ntfy" or "email"')
    try:
        error = await api.notifier().send_test(channel)
    except ValueError as exc:
        raise Invalid(str(exc)) from None
    return json_response({"channel": channel, "ok": error is None, "error": error})
