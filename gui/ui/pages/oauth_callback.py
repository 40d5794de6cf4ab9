"""The sign-in callback (`GET /oauth/callback`): where an MCP server's sign-in page sends the browser
back, with a `code` and the `state` SeqDesk made for that sign-in.

Anybody can send a browser here (another web page can link to it, another program on this machine
can request it), so it does nothing unless `state` is the one of a sign-in under way in this
process (`SignIns.answer`, compared in constant time); the code is then exchanged for tokens by the
sign-in itself, with the PKCE verifier that never left this process. It sits behind the request
gate (Host, Origin) and, when the app has a token, the token gate (its login brings the person
back here). The page it answers says, in words, whether the sign-in worked; it echoes nothing
it was sent except, escaped, the server's own reason for a refusal; it is never cached and
sends no referrer (its address holds the code).
"""

from __future__ import annotations

import asyncio
import html
from typing import TYPE_CHECKING

from fastapi import Request
from fastapi.responses import HTMLResponse

from gui.i18n import _, html_lang

if TYPE_CHECKING:
    from gui.context import AppContext
    from gui.mcp.sign_in import SignIns

FINISH_WAIT = 30.0  # s the page waits for the token exchange after the browser came back

_PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">{refresh}
<title>SeqDesk: {title}</title>
<style>
:root{{color-scheme:light dark}}
body{{font-family:system-ui,sans-serif;background:#f5f5f7;color:#1d1d1f;display:flex;justify-content:center;
padding-top:12vh;margin:0}}
main{{background:#fff;padding:2rem;border-radius:12px;box-shadow:0 2px 12px #0002;width:26rem}}
h1{{font-size:1.3rem;margin:0 0 .5rem}} p{{color:#555;font-size:.95rem;line-height:1.4}}
a{{display:inline-block;margin-top:.5rem;padding:.6rem 1.2rem;border-radius:6px;background:#1976d2;color:#fff;
text-decoration:none}}
@media (prefers-color-scheme: dark){{body{{background:#121212;color:#eee}} main{{background:#1e1e1e}}
p{{color:#bbb}}}}
</style></head><body><main data-testid="sign-in-result">
<h1>{title}</h1><p>{text}</p><a href="/settings">{back}</a>
</main></body></html>"""


def result_page(title: str, text: str, *, status: int = 200, back: bool = False) -> HTMLResponse:
    refresh = '\n<meta http-equiv="refresh" content="2;url=/settings">' if back else ""
    body = _PAGE.format(title=html.escape(title), text=html.escape(text), refresh=refresh, lang=html_lang(),
                        back=html.escape(_("Back to Settings")))
    return HTMLResponse(body, status_code=status,
                        headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})


async def oauth_callback(ctx: AppContext, request: Request) -> HTMLResponse:
    rt = ctx.runtime
    return await answer_callback(getattr(rt, "mcp_sign_ins", None) if rt is not None else None, request)


async def answer_callback(pending: SignIns | None, request: Request) -> HTMLResponse:
    """The page for a browser sent back to `/oauth/callback`, answering the sign-ins `pending` holds."""
    query = request.query_params
    if pending is None:
        return result_page(_("No sign-in under way"), _("SeqDesk is not waiting for a sign-in."), status=400)
    try:
        sign_in = pending.answer(query.get("state"), query.get("code"), query.get("iss"),
                                 query.get("error"), query.get("error_description"))
    except LookupError as exc:
        return result_page(_("Not a sign-in SeqDesk started"),
                           _("Nothing was changed: {problem}.").format(problem=exc), status=400)
    try:
        await asyncio.wait_for(sign_in.finished.wait(), FINISH_WAIT)
    except TimeoutError:
        return result_page(_("Still signing in"),
                           _("The server {name} is slow to finish the sign-in. Settings shows when it is "
                             "connected.").format(name=sign_in.server), status=504)
    if sign_in.error:
        return result_page(_("Not signed in to {name}").format(name=sign_in.server),
                           f"{sign_in.error[:1].upper()}{sign_in.error[1:]}.", status=400)
    return result_page(_("Signed in to {name}").format(name=sign_in.server),
                       _("SeqDesk connects to it now. Going back to Settings…"), back=True)
