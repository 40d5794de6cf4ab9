"""What a tool does, on one line: the command it runs, the file it reads, the address it fetches.

A card that says only "cmd_run" makes the person open it to learn which command; the summary says
"Run: uptime · in Folder /srv". Built from the arguments as sent (the inputs already filled in),
with the glossary's words for argument names (never `cwd`, never `null`). Pure: no NiceGUI.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gui.ui.words import NOTHING, field_word

LIMIT = 120

# A built-in tool's main argument, and the verb it reads with.
MAIN: dict[str, tuple[str, str]] = {
    "cmd_run": ("command", "Run"),
    "file_read": ("path", "Read"),
    "file_write": ("path", "Write"),
    "http_get": ("url", "Fetch"),
    "echo": ("value", "Give back"),
    "sleep": ("seconds", "Wait"),
    "seq_call": ("name", "Call"),
    "ask_user": ("title", "Ask"),
}


INPUT = re.compile(r"\$args\.([A-Za-z_][\w]*)")


def plain(value: Any) -> str:
    """A value on one line, for people: text as is (an input not filled in yet as "⤷ host", never
    `$args.host`), nothing for null, yes/no, JSON for the rest."""
    if value is None:
        return NOTHING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return INPUT.sub(lambda m: f"⤷ {m.group(1)}", " ".join(value.split())) or "(empty text)"
    return INPUT.sub(lambda m: f"⤷ {m.group(1)}", " ".join(json.dumps(value, ensure_ascii=False).split()))


def cut(text: str, limit: int = LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tool_summary(tool: str, args: Any) -> str:
    """ "Run: uptime · in Folder /srv"; "" when the arguments are not known yet."""
    if not isinstance(args, dict) or not args:
        return ""
    main = MAIN.get(tool)
    if main is not None and main[0] in args:
        key, verb = main
        text = f"{verb}: {plain(args[key])}" + (" s" if tool == "sleep" else "")
        if tool == "cmd_run" and args.get("cwd"):
            text += f" · in {field_word('cwd')} {plain(args['cwd'])}"
        return cut(text)
    shown = [(k, v) for k, v in args.items() if v is not None][:2]
    return cut(" · ".join(f"{field_word(k)}: {plain(v)}" for k, v in shown))
