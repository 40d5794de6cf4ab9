"""Helpers for building sequence documents in tests."""

from __future__ import annotations

import json
from typing import Any


def tools(*objs: dict[str, Any]) -> str:
    return " ".join(json.dumps(o, ensure_ascii=False) + " ;" for o in objs)


def group(name: str = "g", **fields: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"name": name, "in": {}, "out": {},
                           "tools": tools({"tool": "echo", "args": {"value": 1}})}
    doc.update(fields)
    return doc


def seq(*groups: dict[str, Any], name: str = "s") -> dict[str, Any]:
    return {"name": name, "description": "", "groups": list(groups) or [group()]}
