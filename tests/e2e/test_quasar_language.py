"""Quasar's own words follow the page's language in a real browser: NiceGUI sets Quasar's language
pack once for the whole app (en-US), so a page drawn in 简体中文 loads Quasar's zh-CN pack and
switches to it (gui/ui/theme.py). The runs history with more than one page of runs shows Quasar's
pagination, whose arrows Quasar labels itself ("Next page" / "下一页"); a table's "No data" and
"1-50 of 120" come from the same pack. After switching back to English every page is English again."""

from __future__ import annotations

import json
from typing import Any

from gui.ui.components.runs_history import PAGE_SIZE

QUASAR = """() => { const l = Quasar.lang.props; return {iso: l.isoName, noData: l.table.noData,
  perPage: l.table.recordsPerPage, range: l.table.pagination(1, 50, 120), next: l.pagination.next,
  today: l.date.today, lang: document.documentElement.lang}; }"""
ENGLISH = {"iso": "en-US", "noData": "No data available", "perPage": "Records per page:", "range": "1-50 of 120",
           "next": "Next page", "today": "Today", "lang": "en"}
CHINESE = {"iso": "zh-CN", "noData": "没有可用数据", "perPage": "每页的行数:", "range": "1-50 / 120",
           "next": "下一页", "today": "今天", "lang": "zh-CN"}


def _runs(app: Any) -> None:
    """More runs than one page holds, so the runs history shows its pagination."""
    tools = json.dumps({"tool": "echo", "args": {"value": "tick"}}) + " ;"
    status, _ = app.api("POST", "/api/sequences", {"name": "tick", "groups": [
        {"name": "tock", "in": {}, "out": {}, "tools": tools}]})
    assert status in (200, 201), status
    for _n in range(PAGE_SIZE + 1):
        status, _ = app.api("POST", "/api/runs", {"sequence": "tick"})
        assert status in (200, 201, 202), status


def _quasar_words(page: Any, url: str, iso: str) -> dict[str, str]:
    page.goto(url)
    page.wait_for_function(f"window.Quasar && Quasar.lang.props && Quasar.lang.props.isoName === {iso!r}")
    return dict(page.evaluate(QUASAR))


def _pager_next(page: Any) -> str:
    """What Quasar's own "next" arrow of the runs history's pagination says to a screen reader."""
    arrow = page.locator(".q-pagination button[aria-label]").last
    arrow.wait_for()
    return str(arrow.get_attribute("aria-label"))


def test_quasar_speaks_the_page_language_and_english_stays_english(seqdesk_app: Any, page: Any) -> None:
    _runs(seqdesk_app)
    base = seqdesk_app.base_url

    assert _quasar_words(page, base + "/runs", "en-US") == ENGLISH
    assert _pager_next(page) == "Next page"

    page.goto(base + "/settings")
    page.get_by_text("简体中文", exact=True).click()
    page.get_by_text("语言", exact=True).wait_for()
    assert _quasar_words(page, base + "/runs", "zh-CN") == CHINESE
    assert _pager_next(page) == "下一页"
    assert _quasar_words(page, base + "/", "zh-CN") == CHINESE  # every page in Chinese, not only one

    page.goto(base + "/settings")
    page.get_by_text("English", exact=True).click()
    page.get_by_text("Language", exact=True).wait_for()
    assert _quasar_words(page, base + "/runs", "en-US") == ENGLISH
    assert _pager_next(page) == "Next page"
