"""A request's input changed by the person before they approve it: the change is the answer.

Once an argument differs from what was asked, the card's primary button sends the change and says so
("Run the edited command", "Approve with your changes"), the A key does the same (both call
`ApprovalBody.approve`), and what was asked is shown struck through above the change. Text changed
back to exactly what was asked is no change: the buttons are as before.

"Allow more…" is off while a change is pending. A rule covers requests *as they are asked* (this
command, this step of this sequence), and the person has just said that, as asked, it should not run:
a rule made now would let the unchanged command run later without anyone seeing it, and a rule made
from the change would cover a command no step asks for. So a change is approved once; the API refuses
`edited_input` with any scope for the same reason (`gui.core.asks.service`).

An approved change is told afterwards, with both texts, by `gui.wording.changes`: in the inbox's
History and, through `changed_view.ChangedByYou`, in the run's record (the tool card). Pure: no NiceGUI.
"""

from __future__ import annotations

import json
from typing import Any

STRUCK = "line-through"  # what was asked, once changed (the words say so too: never the line alone)
FADED = "line-through opacity-70"  # the same on the card still to be answered: the change stands out


def read_value(text: str, original: Any) -> Any:
    """What an edited field holds: text stays text where text was asked; elsewhere the JSON it spells
    (a number, yes/no, a list), or the text itself when it spells none (the tool's check says why)."""
    if isinstance(original, str):
        return text
    if original is None and not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text
