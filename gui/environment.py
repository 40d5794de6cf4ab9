"""SeqDesk's names in the environment (`SEQDESK_DATA`, `SEQDESK_TOKEN`, …), each in any case, read
without loading anything else: the settings are made of them (`gui.settings`, which checks them with
pydantic), and `seqdesk run` reads the few that say where its app is before it loads that
(`gui.cli.early_app`)."""

from __future__ import annotations

import os
from collections.abc import Mapping

ENV_PREFIX = "SEQDESK_"


def seqdesk_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment's (`os.environ`'s) SeqDesk names, each without its prefix and in lower case
    (`SEQDESK_DATA` and `SEQDESK_data` as `data`; of two, the later one), with their values."""
    found: dict[str, str] = {}
    for key, value in (os.environ if environ is None else environ).items():
        if key.upper().startswith(ENV_PREFIX):
            found[key[len(ENV_PREFIX):].lower()] = value
    return found
