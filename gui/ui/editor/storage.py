"""Unsaved work survives navigation: the editor keeps its draft in the person's storage.

Why: a non-developer who clicks "Inbox" halfway through building a sequence must find it as they
left it. The draft lives in `app.storage.user` (per browser, kept on disk by NiceGUI) and, when
the app runs without a storage secret, in `app.storage.general` (a desktop app has one person).
"""

from __future__ import annotations

from typing import Any

from nicegui import app

_KEY = "seqdesk-editor-drafts"


def _store() -> Any:
    try:
        return app.storage.user
    except (RuntimeError, AssertionError):
        return app.storage.general


def load(key: str) -> dict[str, Any] | None:
    drafts = _store().get(_KEY) or {}
    state = drafts.get(key)
    return state if isinstance(state, dict) else None


def save(key: str, state: dict[str, Any]) -> None:
    store = _store()
    drafts = dict(store.get(_KEY) or {})
    drafts[key] = state
    store[_KEY] = drafts


def drop(key: str) -> None:
    store = _store()
    drafts = dict(store.get(_KEY) or {})
    if drafts.pop(key, None) is not None:
        store[_KEY] = drafts


def keys() -> list[str]:
    return list((_store().get(_KEY) or {}).keys())


def edit_key(name: str | None) -> str:
    return f"edit:{name}" if name else "new"
