"""What every part of the editor shares: the error registry, the tools, and the change callback.

Components get this one object instead of the page, the engine or the store: they draw a part of
the draft, write what the person types into it, and call `changed()`; the page decides what a
change means (keep the draft, re-check after a failed save).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from gui.core.door import Operations
from gui.core.tools import ToolInfo, ToolListing
from gui.i18n import _
from gui.ui.editor.argspec import ArgSpec, arg_specs
from gui.ui.editor.draft import GroupDraft
from gui.ui.editor.fields import FieldErrors
from gui.wording.glossary import said_type


class Given(NamedTuple):
    """An output an earlier group gives back: what the data picker offers besides the group's inputs."""

    group: int  # 1-based, as the cards are numbered
    name: str
    type: str
    from_you: bool = False  # an input of that group the person gives at Run, not something it gives back

    @property
    def label(self) -> str:
        words = _("Group {number} › {name} · {type} (you give it when you run)") if self.from_you \
            else _("Group {number} › {name} · {type}")
        return words.format(number=self.group, name=self.name, type=said_type(self.type))


def _nothing_earlier(_group: GroupDraft) -> list[Given]:
    return []


def _cannot_declare(_name: str, _type: str) -> None:
    return None


@dataclass
class EditorContext:
    fields: FieldErrors
    # Every tool known now, as the door lists it (`list_tools`), by name; kept current by the editor
    # (`set_tools`) in place, so that the copies of this context the views make see the same tools.
    tools: dict[str, ToolInfo]
    changed: Callable[[], None]
    pick_tool: Callable[[Callable[[str], None]], None]
    _specs: dict[str, list[ArgSpec]] = field(default_factory=dict)
    # What earlier groups give back (set by the groups view), and how a card declares an input of its own.
    earlier: Callable[[GroupDraft], list[Given]] = _nothing_earlier
    declare_input: Callable[[str, str], None] = _cannot_declare
    engine: Operations | None = None  # the door, for "Test this group" (None: no test button)
    saved_names: frozenset[str] = frozenset()  # sequence and group names saved when the editor opened
    team: bool = False  # a team server: who answers a group's requests is set here (the desktop: one person)

    def tool(self, name: str) -> ToolInfo | None:
        return self.tools.get(name)

    def set_tools(self, listing: ToolListing) -> set[str]:
        """The tools as they are now; the names of those that came, went or changed."""
        now = {t.name: t for t in listing.tools}
        changed = {n for n in self.tools.keys() | now.keys() if self.tools.get(n) != now.get(n)}
        self.tools.clear()
        self.tools.update(now)
        for name in changed:
            self._specs.pop(name, None)
        return changed

    def specs(self, name: str) -> list[ArgSpec] | None:
        """The argument fields of a tool, or None when no tool of that name is available now."""
        if name not in self._specs:
            tool = self.tool(name)
            if tool is None:
                return None
            self._specs[name] = arg_specs(tool.input_schema)
        return self._specs[name]
