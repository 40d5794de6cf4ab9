"""`seqdesk --lang` and SEQDESK_LANG: the terminal's sentences in 简体中文, while what scripts read
(exit codes, JSON, error codes, the format's keywords) stays as it is. Real `seqdesk` processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gui.core.sequences.help import EXAMPLE


def seqdesk(*args: str, data: Path, lang: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "NICEGUI_")) and k not in ("SEQDESK_MEMORY", "SEQDESK_LANG")}
    env["SEQDESK_DATA"] = str(data)
    if lang is not None:
        env["SEQDESK_LANG"] = lang
    return subprocess.run([sys.executable, "-m", "gui", *args], capture_output=True, text=True, env=env, timeout=120)


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_lang_flag_speaks_chinese_and_keeps_the_keywords(tmp_path: Path):
    result = seqdesk("--lang", "zh-CN", "check", write(tmp_path, "ok.json", EXAMPLE), data=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "是有效的序列" in result.stdout and "输入：host: string" in result.stdout, result.stdout
    assert result.stdout.startswith("ok: ")  # the keyword a script looks for


def test_seqdesk_lang_speaks_chinese_and_the_json_is_unchanged(tmp_path: Path):
    bad = write(tmp_path, "bad.json", '{"name": "x", "groups": []}')
    result = seqdesk("check", bad, data=tmp_path, lang="zh-CN")
    assert result.returncode == 1
    assert "中有 1 个问题" in result.stderr, result.stderr
    assert "（第 1 行，第 " in result.stdout and "(no-groups)" in result.stdout, result.stdout
    as_json = seqdesk("check", "--json", bad, data=tmp_path, lang="zh-CN")
    english = seqdesk("check", "--json", bad, data=tmp_path)
    assert as_json.returncode == english.returncode == 1
    assert json.loads(as_json.stdout) == json.loads(english.stdout)  # scripts read the same JSON in any language


def test_the_help_of_the_flags_is_in_chinese(tmp_path: Path):
    result = seqdesk("--lang=zh-CN", "--help", data=tmp_path)
    assert result.returncode == 0
    assert "界面和消息的语言：en 或 zh-CN" in result.stdout, result.stdout
    assert "--lang" in result.stdout and "check" in result.stdout


def test_a_language_seqdesk_does_not_speak_is_a_clear_error(tmp_path: Path):
    result = seqdesk("--lang", "fr", "check", write(tmp_path, "ok.json", EXAMPLE), data=tmp_path)
    assert result.returncode == 2
    assert "seqdesk: --lang: the language “fr” is not one SeqDesk speaks: choose one of en, zh-CN" in result.stderr
    assert "Traceback" not in result.stderr
    result = seqdesk("check", write(tmp_path, "ok2.json", EXAMPLE), data=tmp_path, lang="klingon")
    assert result.returncode == 0  # a bad SEQDESK_LANG is said, and English is used
    assert "SEQDESK_LANG" in result.stderr and "is a valid sequence" in result.stdout
