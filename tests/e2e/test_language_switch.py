"""The language in a real browser and a real app: Settings → Language → 简体中文 draws the page again
in Chinese (with `lang="zh-CN"`, so the browser picks a Chinese font), the app keeps the choice in
its data folder (preferences.json) and other pages, and the login-free HTML pages, follow it."""

from __future__ import annotations

import json
from typing import Any


def test_choosing_chinese_in_settings_changes_every_page_and_is_kept(seqdesk_app: Any, page: Any) -> None:
    page.goto(seqdesk_app.base_url + "/settings")
    page.get_by_text("Language", exact=True).wait_for()
    assert page.evaluate("document.documentElement.lang") == "en"
    page.get_by_text("简体中文", exact=True).click()
    page.get_by_text("语言", exact=True).wait_for()
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    assert page.title() == "设置 · SeqDesk"
    kept = json.loads((seqdesk_app.data_dir / "preferences.json").read_text())
    assert kept["lang"] == "zh_CN"

    page.goto(seqdesk_app.base_url + "/runs")  # another page: the frame speaks Chinese too
    page.locator(".seqdesk-header").get_by_text("收件箱").wait_for()

    other = page.context.browser.new_context()  # a browser that never chose: the app's choice
    try:
        fresh = other.new_page()
        fresh.goto(seqdesk_app.base_url + "/pair/not-a-code")
        fresh.get_by_text("此配对码已失效").wait_for()
    finally:
        other.close()

    page.goto(seqdesk_app.base_url + "/settings")
    page.get_by_text("English", exact=True).click()
    page.get_by_text("Language", exact=True).wait_for()
    assert json.loads((seqdesk_app.data_dir / "preferences.json").read_text())["lang"] == "en"
