"""SeqDesk's settings from the environment, read once, by the composition root (`gui.app`).

`SEQDESK_DATA` (the data folder), `SEQDESK_STORE` (where the stores are: a `postgresql://…` database
for a team, or a data folder), `SEQDESK_CONNECT` (a team server's address: the window and the CLI's
doors go there, and no data folder is opened), `SEQDESK_LEASE` (seconds a run's lease lasts on a
team's database), `SEQDESK_PROCESS_NAME` (a team server's stable name among the team's processes:
`seqdesk serve --process-name`), `SEQDESK_MEMORY=1` (nothing on disk: tests, demos),
`SEQDESK_TOKEN` (the access token; prefer it to `--token`, which other users can see) and
`SEQDESK_BROWSER` (the browser for the app window), `SEQDESK_LAN_ADDRESS` (this computer's
address on the network, for phones, when it should not be found by itself), `SEQDESK_LANG` (the
language of the screens and messages: `en` or `zh-CN`; a browser's choice in Settings wins). On a team
server: `SEQDESK_PUBLIC_URL` (the address people open, for invite links the CLI prints; on a person's
computer `SEQDESK_CONNECT` with their personal token in `SEQDESK_TOKEN` takes the CLI and `seqdesk mcp`
there as that person) and the company's OpenID Connect sign-in, `SEQDESK_OIDC_ISSUER`,
`SEQDESK_OIDC_CLIENT_ID`, `SEQDESK_OIDC_CLIENT_SECRET` and `SEQDESK_OIDC_CLAIM` (which claim is the
person's name, default `preferred_username`). Command-line flags override them; nothing else in
SeqDesk reads the environment for settings, and nothing writes it. The environment is read here
(`from_environment`, each name in any case: `gui.environment`), not by pydantic-settings, whose import (its sources
for cloud secret stores among them) cost every `seqdesk` command and every app a twentieth of a
second of CPU before anything else.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from gui.core.errors import Invalid
from gui.environment import seqdesk_environment

PROCESS_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$"  # 1 to 40 letters, digits, '.', '_', '-'


class Settings(BaseModel):
    """The settings, as `load_settings` reads them (the environment, then the flags); made directly,
    only what is given (tests)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    data: Path | None = None
    store: str | None = None  # a PostgreSQL URL (`gui.pgstore`), or a data folder (as `data`)
    connect: str | None = None  # a team server's address (`seqdesk serve`): everything goes there
    lease: float | None = Field(default=None, gt=0)  # s a run's lease lasts on a team's database (None: 30)
    # this process's stable name on a team's database (`gui.pgstore.names`); None: `seqdesk serve`'s HOST-PORT
    process_name: str | None = Field(default=None, pattern=PROCESS_NAME)
    memory: bool = False
    token: str | None = None
    browser: str | None = None
    lan_address: str | None = None  # the address phones reach this computer at (found by itself if unset)
    lang: str | None = None  # "en" or "zh-CN" (see gui.i18n); one SeqDesk does not speak is told at start
    public_url: str | None = None  # a team server's address as people open it (invite links)
    oidc_issuer: str | None = None
    oidc_client_id: str | None = None
    oidc_client_secret: str | None = None
    oidc_claim: str = "preferred_username"

    @field_validator("data", "store", "connect", "lease", "process_name", "token", "browser", "lan_address", "lang",
                     "public_url", "oidc_issuer", "oidc_client_id", "oidc_client_secret", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @model_validator(mode="after")
    def _folder_store_is_data(self) -> Settings:
        """A store that is no database URL is a data folder: TinyDB, as `--data` says."""
        if self.store is not None and not self.store.startswith(("postgresql://", "postgres://")):
            object.__setattr__(self, "data", Path(self.store))
            object.__setattr__(self, "store", None)
        return self

    @property
    def team(self) -> bool:
        """A team server: the store is a PostgreSQL database, and people sign in."""
        return self.store is not None


class SettingsError(Invalid):
    """A setting SeqDesk cannot use, said in one sentence per setting (`SEQDESK_LEASE: …`)."""


def from_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The settings the environment (`os.environ`) gives: `SEQDESK_DATA` as `data`, and so on, each
    name in any case (`SEQDESK_data` too); any other name is not SeqDesk's."""
    return {name: value for name, value in seqdesk_environment(environ).items() if name in Settings.model_fields}


def load_settings(**flags: Any) -> Settings:
    """The environment's settings with the given command-line flags on top (None: not given);
    SettingsError naming each one that cannot be used."""
    given = {k: v for k, v in flags.items() if v is not None}
    try:
        return Settings(**(from_environment() | given))
    except ValidationError as exc:
        problems = "; ".join(f"SEQDESK_{'.'.join(str(p) for p in e['loc']).upper()} (or its flag): {e['msg']}"
                             for e in exc.errors())
        raise SettingsError(problems) from None
