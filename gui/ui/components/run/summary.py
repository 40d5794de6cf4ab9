"""What a tool does, on one line: the command it runs, the file it reads, the address it fetches.

A card that says only "cmd_run" makes the person open it to learn which command; the summary says
"Run: uptime · in Folder /srv". Built from the arguments as sent (the inputs already filled in),
with the glossary's words for argument names (never `cwd`, never `null`). Pure: no NiceGUI.
"""

from __future__ import annotations

import re
from typing import Any

from gui.i18n import N_, _
from gui.wording.changes import value_text
from gui.wording.glossary import NOTHING, field_word

LIMIT = 120

# A built-in tool's main argument, and the verb it reads with.
MAIN: dict[str, tuple[str, str]] = {
    "cmd_run": ("command", N_("Run")),
    "file_read": ("path", N_("Read")),
    "file_write": ("path", N_("Write")),
    "http_get": ("url", N_("Fetch")),
    "echo": ("value", N_("Give back")),
    "sleep": ("seconds", N_("Wait")),
    "seq_call": ("name", N_("Call")),
    "ask_user": ("title", N_("Ask")),
}


INPUT = re.compile(r"\$args\.([A-Za-z_][\w]*)")


def plain(value: Any) -> str:
    """A value on one line, for people: text as is (an input not filled in yet as "⤷ host", never
    `$args.host`), nothing for null, yes/no, JSON for the rest."""
    if value is None:
        return _(NOTHING)
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, str):
        return INPUT.sub(lambda m: f"⤷ {m.group(1)}", " ".join(value.split())) or _("(empty text)")
    return INPUT.sub(lambda m: f"⤷ {m.group(1)}", " ".join(value_text(value).split()))


def cut(text: str, limit: int = LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tool_summary(tool: str, args: Any) -> str:
    """ "Run: uptime · in Folder /srv"; "" when the arguments are not known yet."""
    if not isinstance(args, dict) or not args:
        return ""
    main = MAIN.get(tool)
    if main is not None and main[0] in args:
        key, verb = main
        text = (_("{verb}: {value}").format(verb=_(verb), value=plain(args[key])) if tool != "sleep"
                else _("{verb}: {value} s").format(verb=_(verb), value=plain(args[key])))
        if tool == "cmd_run" and args.get("cwd"):
            text += _(" · in {folder} {path}").format(folder=_(field_word("cwd")), path=plain(args["cwd"]))
        return cut(text)
    shown = [(k, v) for k, v in args.items() if v is not None][:2]
    return cut(" · ".join(_("{name}: {value}").format(name=_(field_word(k)), value=plain(v)) for k, v in shown))
