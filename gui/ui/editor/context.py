"""What every part of the editor shares: the error registry, the tools, and the change callback.

Components get this one object instead of the page, the engine or the store: they draw a part of
the draft, write what the person types into it, and call `changed()`; the page decides what a
change means (keep the draft, re-check after a failed save).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gui.core.registry import Registry, Tool
from gui.ui.editor.argspec import ArgSpec, arg_specs
from gui.ui.editor.fields import FieldErrors


@dataclass
class EditorContext:
    fields: FieldErrors
    registry: Registry | None
    changed: Callable[[], None]
    pick_tool: Callable[[Callable[[str], None]], None]
    _specs: dict[str, list[ArgSpec]] = field(default_factory=dict)

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
