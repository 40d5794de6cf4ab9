"""The real app as a team server with two approvers, for end-to-end tests only, until accounts exist.

Started as a script (`python tests/support/team_app.py --browser --port P`): before the app starts, it
gives the engine a directory of people (`support.people.TEAM`) and lets each browser say who it is with
the cookie `seqdesk-test-person`, put where a team server's sign-in puts the signed-in person (the
request scope's `seqdesk.person`), which the pages and the API read. Nothing of this is in the app:
`python -m gui` never reads that cookie, and a team server's sign-in replaces it when it lands.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parent)]

COOKIE = "seqdesk-test-person"


def _as_team() -> None:
    from nicegui import app
    from starlette.requests import Request

    import gui.runtime
    from gui.core.people import Person
    from support.team_directory import TEAM, Team

    composed = gui.runtime.compose_engine

    def compose_engine(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("directory", Team(TEAM))
        return composed(*args, **kwargs)

    gui.runtime.compose_engine = compose_engine  # type: ignore[assignment]

    @app.middleware("http")
    async def person_from_cookie(request: Request, call_next: Any) -> Any:
        """Where a team server's sign-in puts who asks (the scope's `seqdesk.person`), from the cookie."""
        name = request.cookies.get(COOKIE)
        if name:
            request.scope["seqdesk.person"] = Person(name, frozenset(TEAM.get(name, ())))
        return await call_next(request)


if __name__ == "__main__":
    _as_team()
    from gui.cli import main

    raise SystemExit(main(sys.argv[1:]))
