"""The catalogue (gui/i18n): every word marked in gui/ has its 简体中文, none is left over, and the
languages, dates and numbers behave as the Settings switch, SEQDESK_LANG and --lang expect."""

from __future__ import annotations

import re
import string

import pytest

from gui import i18n
from gui.i18n.catalog import extract, read
from gui.settings import load_settings

LANG = "zh_CN"


def _fields(text: str) -> set[str]:
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name is not None}


def _strings(message) -> tuple[str, ...]:
    return message.string if isinstance(message.string, tuple) else (message.string,)


def test_every_word_marked_in_gui_has_a_chinese_translation_and_none_is_stale():
    marked = {m.id: m for m in extract() if m.id}
    kept = {m.id: m for m in read(LANG) if m.id}
    missing = [m.id for key, m in marked.items() if key not in kept or not all(_strings(kept[key]))]
    stale = [key for key in kept if key not in marked]
    where = {str(m.id): m.locations[:1] for m in marked.values()}
    assert not missing, "no 简体中文 for (run `python -m gui.i18n.update`, then translate in " \
                        f"gui/i18n/locale/zh_CN/LC_MESSAGES/messages.po): {[(k, where.get(str(k))) for k in missing]}"
    assert not stale, f"translations no longer used in gui/ (run `python -m gui.i18n.update`): {stale}"
    fuzzy = [m.id for m in kept.values() if m.fuzzy]
    assert not fuzzy, f"fuzzy translations are not shown: check them and remove the flag: {fuzzy}"


def test_each_translation_keeps_the_placeholders_of_its_english():
    for message in read(LANG):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        expected = _fields(ids[-1])
        for text in _strings(message):
            assert _fields(text) == expected, f"{message.id!r} → {text!r}: placeholders differ"


def test_the_catalogue_is_read_from_the_po_file_and_plurals_work():
    with i18n.use_language("zh-CN"):
        assert i18n._("Settings") == "设置"
        assert i18n.ngettext("Connected · {n} tool", "Connected · {n} tools", 3) == "已连接 · {n} 个工具"
        assert i18n.ngettext("Connected · {n} tool", "Connected · {n} tools", 1) == "已连接 · {n} 个工具"
        assert i18n._("a sentence nobody marked") == "a sentence nobody marked"
    assert i18n._("Settings") == "Settings"  # outside: the app's default, English here


@pytest.mark.parametrize("given, lang", [("zh-CN", "zh_CN"), ("zh_cn", "zh_CN"), ("zh", "zh_CN"),
                                         ("zh-Hans", "zh_CN"), ("en", "en"), ("en-GB", "en"), (" EN ", "en")])
def test_language_names_are_understood(given, lang):
    assert i18n.normalize(given) == lang


def test_an_unknown_language_gets_a_clear_error():
    with pytest.raises(i18n.UnknownLanguage, match="“fr” is not one SeqDesk speaks: choose one of en, zh-CN"):
        i18n.normalize("fr")


def test_dates_and_numbers_follow_the_language():
    moment = 1_764_590_000  # 2025-12-01, 11:53 UTC
    with i18n.use_language("zh-CN"):
        chinese = i18n.format_datetime(moment)
        assert re.search(r"2025/12/\d", chinese), chinese
        assert i18n.format_number(1234567.5) == "1,234,567.5"
        assert "年" in i18n.format_datetime(moment, "date")
    with i18n.use_language("en"):
        english = i18n.format_datetime(moment)
        assert re.search(r"12/\d+/25", english) and ("AM" in english or "PM" in english), english
        assert i18n.format_datetime(moment, "date").startswith("Dec")


def test_the_started_language_comes_before_the_stored_one(monkeypatch):
    monkeypatch.setenv("SEQDESK_LANG", "zh-CN")
    assert load_settings().lang == "zh-CN"
    assert load_settings(lang="en").lang == "en"  # --lang over the environment
    saved = dict(i18n._default)
    try:
        i18n.set_defaults(started="zh-CN", stored="en")
        assert i18n.default_language() == "zh_CN"
        i18n.set_defaults(started=None, stored="zh-CN")
        assert i18n.default_language() == "zh_CN"
        i18n.set_defaults(started="klingon", stored=None)  # told at start (gui.app), then English
        assert i18n.default_language() == "en"
    finally:
        i18n._default.update(saved)


def test_words_looked_up_before_the_app_runs_leave_nicegui_alone():
    """The CLI words its help before `ui.run`: asking NiceGUI for a page there would put it in
    script mode, and the app would then refuse to start ("ui.page cannot be used …")."""
    import subprocess
    import sys

    code = ("from gui import i18n; i18n.set_defaults(started='zh-CN'); assert i18n._('Settings') == '设置'; "
            "from nicegui import core; assert not core.script_mode, 'script mode'; print('ok')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]
