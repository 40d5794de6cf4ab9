"""What every part of the editor shares: the error registry, the tools, and the change callback.

Components get this one object instead of the page, the engine or the store: they draw a part of
the draft, write what the person types into it, and call `changed()`; the page decides what a
change means (keep the draft, re-check after a failed save).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from gui.core.door import Engine
from gui.core.tools import Registry, Tool
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
    registry: Registry | None
    changed: Callable[[], None]
    pick_tool: Callable[[Callable[[str], None]], None]
    _specs: dict[str, list[ArgSpec]] = field(default_factory=dict)
    # What earlier groups give back (set by the groups view), and how a card declares an input of its own.
    earlier: Callable[[GroupDraft], list[Given]] = _nothing_earlier
    declare_input: Callable[[str, str], None] = _cannot_declare
    engine: Engine | None = None  # the door, for "Test this group" (None: no test button)
    saved_names: frozenset[str] = frozenset()  # sequence and group names saved when the editor opened

    def tool(self, name: str) -> Tool | None:
        return self.registry.get(name) if self.registry is not None else None

    def specs(self, name: str) -> list[ArgSpec] | None:
        """The argument fields of a tool, or None when no tool of that name is available now."""
        if name not in self._specs:
            tool = self.tool(name)
            if tool is None:
                return None
            self._specs[name] = arg_specs(tool.input_schema())
        return self._specs[name]
