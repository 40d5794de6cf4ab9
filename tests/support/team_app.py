"""The real app as a team server with two approvers, for end-to-end tests only, until accounts exist.

Started as a script (`python tests/support/team_app.py --browser --port P`): before the app starts,
it gives the engine a directory of people (`support.people.TEAM`) and lets each browser say who it is
with the cookie `seqdesk-test-person` (the inbox reads the signed-in person from it, the API from the
same cookie). Nothing of this is in the app: `python -m gui` never reads that cookie, and a team
server's sign-in (accounts, sessions) replaces it when it lands.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parent)]

COOKIE = "seqdesk-test-person"


def _as_team() -> None:
    from nicegui import app, context
    from starlette.requests import Request

    import gui.runtime
    import gui.ui.person
    from support.people import TEAM, Team

    composed = gui.runtime.compose_engine

    def compose_engine(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("directory", Team(TEAM))
        return composed(*args, **kwargs)

    gui.runtime.compose_engine = compose_engine  # type: ignore[assignment]

    def signed_in_person() -> str:
        return context.client.request.cookies.get(COOKIE) or "you"

    gui.ui.person.signed_in_person = signed_in_person  # type: ignore[assignment]

    @app.middleware("http")
    async def person_from_cookie(request: Request, call_next: Any) -> Any:
        if request.cookies.get(COOKIE):
            request.state.person = request.cookies[COOKIE]
        return await call_next(request)


if __name__ == "__main__":
    _as_team()
    from gui.cli import main

    raise SystemExit(main(sys.argv[1:]))
