"""The sentences the pure core builds for a person, in 简体中文 where they are shown, English everywhere
else: the problems of the validator, parser and conditions (kept as a marked template and its
parameters, `Problem.words`), `seqdesk help`, and argparse's own words. `Problem.message`, the JSON of
`seqdesk check`, the API and MCP stay English exactly; `seqdesk check --lang zh-CN` and the editor's
problem list say the problems in Chinese. Real `seqdesk` processes for the terminal, a real page for
the editor. (What is said at run time: tests/test_i18n_run_words.py.)"""

from __future__ import annotations

import json
import os
import re
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.i18n_screens import screen_problems, untranslated_runs

from gui import i18n
from gui.cli.argwords import MARKED
from gui.core.marks import Sentence
from gui.core.sequences.help import EXAMPLE, LIMIT_WORDS, PARTS, help_text
from gui.core.sequences.problems import Problem
from gui.core.sequences.validator import check_text
from gui.core.tools import tool_catalog
from gui.i18n.catalog import extract, read
from gui.tools import default_registry

LANG = "zh_CN"
CORE = ("gui/core/sequences/validator.py", "gui/core/sequences/validator_tools.py", "gui/core/sequences/parser.py",
        "gui/core/sequences/conditions/language.py", "gui/core/sequences/conditions/lexer.py",
        "gui/core/sequences/signature.py", "gui/core/sequences/calls.py", "gui/core/door/documents.py",
        "gui/core/sequences/durations.py", "gui/core/sequences/result_types.py",
        "gui/core/sequences/validator_asking.py")
# The format's keywords, field names, error codes, operators and tool names: they stay as written in Chinese.
KEYWORDS = {
    "name", "description", "groups", "file", "in", "out", "when", "parallel", "missing", "timeout", "on_error",
    "tools", "tool", "args", "as", "true", "false", "and", "or", "not", "contains", "string", "number", "boolean",
    "array", "object", "fail", "skip", "degrade", "abort", "continue", "retry", "seq_call", "seq_tools", "JSON",
    "Unicode", "ms", "s", "m", "h", "u", "uXXXX", "ud", "host", "cmd_run", "echo", "command", "uptime", "value",
    "hi", "slot", "summary", "n", "x", "NaN",
    "on", "approvers", "required", "self_approve", "remind_after", "escalate_after", "escalate_to", "expire_after",
    "role", "person", "oncall", "lead",  # who answers: "role:oncall", "person:li.wei"
    "seqdesk", "worker",  # the command that makes a host known: `seqdesk worker --name node-a`
    "file_read", "http_get", "sleep", "node-a",  # the tools a host runs, and the example host
}
# The help's code: operations, keywords, error codes, the example's names and the shell command it shows.
HELP_WORDS = KEYWORDS | {
    "seq_list", "seq_create", "seq_run", "seq_when_call", "seq_delete", "seq_help",
    "missing-trailing-semicolon", "missing-semicolon", "undeclared-slot", "flag", "err", "shell", "rm", "rf",
    "cmd", "load", "fetch-one-node", "dig-deeper", "check-three-nodes", "node-a", "groups", "date", "detail",
    "input-in-shell-code", "input-runs-as-command", "here-document", "sh", "c", "eval", "python", "ssh", "xargs",
    "find", "exec", "arr",
    "too-large", "too-many-groups", "too-many-tools", "MB",  # error codes, and the unit of the size limit
    "Temporal", "seqdesk", "worker", "unknown-host", "file_read", "http_get", "sleep", "hostname",  # hosts' help
    "oncall", "lead",  # the example's roles
}


def _fields(text: str) -> set[str]:
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name is not None}


def _prose(text: str, data: set[str] = frozenset()) -> list[str]:
    """The Latin words of `text` that are neither keywords nor data: untranslated prose."""
    text = re.sub(r"\$args\.\w+", " ", text)
    return [w for w in untranslated_runs(text, KEYWORDS | data)]


@pytest.fixture(scope="module")
def templates() -> dict[str, Any]:
    """Every template marked in the core's problem modules, with its 简体中文."""
    kept = {m.id: m for m in read(LANG) if m.id}
    marked = [m.id for m in extract() if m.id and any(loc[0] in CORE for loc in m.locations)]
    return {mid: kept.get(mid) for mid in marked}


def test_every_problem_template_has_its_chinese_and_renders_with_its_parameters(templates: dict[str, Any]):
    assert len(templates) > 120, "the core's problem templates were not found where this test looks"
    missing = [t for t, m in templates.items() if m is None or not m.string]
    assert not missing, f"no 简体中文 for: {missing}"
    for template, message in templates.items():
        chinese = message.string
        fields = _fields(template)
        assert _fields(chinese) == fields, f"{template!r} → {chinese!r}: placeholders differ"
        params = {name: f"⟨{i}⟩" for i, name in enumerate(sorted(fields))}
        english, worded = template.format(**params), chinese.format(**params)
        for value in params.values():
            assert value in english and value in worded, (template, value)
        assert worded != english, f"{template!r} is not in Chinese: {worded!r}"  # glue ("{a}; {b}") too: "；"
        assert not _prose(worded), f"{template!r} → {worded!r}: English words left: {_prose(worded)}"
        for keyword in re.findall(r'(?<!a )"([a-z_]+)"', template):  # "in", "out", "array": as written
            assert keyword in worded, f"{template!r} → {worded!r}: the keyword {keyword!r} went"
        sentence = Sentence(template, tuple(params.items()))
        assert sentence.render() == english
        with i18n.use_language("zh-CN"):
            assert sentence.render(i18n._) == worded


def test_a_translation_that_lost_a_placeholder_falls_back_to_the_english():
    sentence = Sentence("the group '{name}' is blank", (("name", "g"),))
    assert sentence.render(lambda _t: "组“{nom}”") == "the group 'g' is blank"


def _tool_text(*calls: str) -> str:
    return " ".join(calls)


# Real mistakes, each a document a person or a model wrote; together they meet most of the templates.
BAD = {
    "not-object": "[1, 2]",
    "bad-json": '{"name": "x", "groups": [}',
    "keys-unquoted": '{name: "x"}',
    "trailing": '{"name": "x", "groups": []} extra',
    "duplicate-key": '{"name": "x", "name": "y", "groups": []}',
    "nan": '{"name": NaN}',
    "too-large": '{"name": 1e999}',
    "no-groups": '{"name": "x", "groups": []}',
    "no-groups-field": '{"name": "x"}',
    "groups-object": '{"name": "x", "groups": {}}',
    "file-and-groups": '{"name": "x", "groups": [], "file": "a"}',
    "file": '{"name": "x", "file": "a"}',
    "surrogate": '{"name": "\\ud800", "groups": []}',
    "names": json.dumps({"name": " x ", "description": 3, "colour": 1, "groups": [
        {"tools": ""}, {"name": 3, "tools": "x"}, {"name": "", "tools": ";"}, "x"]}),
    "sequence-names": json.dumps({"groups": [{"name": "g", "tools": '{"tool":"echo"} {"tool":"echo"};'},
                                             {"name": "g", "tools": '{"tool":"echo", "tool":1} ;'}]}),
    "group-fields": json.dumps({"name": "x", "groups": [{
        "name": "g", "in": "", "out": 3, "when": 5, "parallel": "yes", "missing": "x", "on_error": 1,
        "timeout": 30, "tools": ["a"], "extra": 1}]}),
    "group-slots": json.dumps({"name": "x", "groups": [{
        "name": "g", "in": {"1a": "string", "b": "float"}, "out": {"s": "string", "t": "number"}, "timeout": "0s",
        "when": "$args.z > 1", "tools": _tool_text(
            '{"tool":"echo","args":{"value":"$args.q"},"as":"u","x":1} ;', "5 ;",
            '{"tool":"","args":3,"as":4} ;', '{"args":{}} ;', '{"tool":3} ;',
            '{"tool":"echo","args":{"value":"a"},"as":"s"} ;', '{"tool":"echo","args":{"value":"b"},"as":"s"} ;')}]}),
    "timeouts": json.dumps({"name": "x", "groups": [
        {"name": "g", "timeout": "abc", "tools": '{"tool":"echo","args":{"value":1}} ;'},
        {"name": "h", "timeout": "99999h", "tools": '{"tool":"echo","args":{"value":1}}'}]}),
    "conditions": json.dumps({"name": "x", "groups": [
        {"name": f"g{i}", "in": {"n": "number"}, "when": when, "tools": '{"tool":"echo","args":{"value":1}} ;'}
        for i, when in enumerate([
            "", "$args.n = 3", "$args.n > ", "($args.n > 1", "$args.n > 1 > 2", "AND", "foo", "$x", "$args",
            "$args.", "'a'", '"abc', '"\\q"', '"\\u12"', "-x", "1.2.3", "$args.n > 1)", "$args.n > 1 $args.n",
            "> 1", "&&", "|", "!x", "@", "1 2", "(" * 120, "not", "$args.n >= 1e999", "1" * 5000 + " == 1"])]}),
    "types": json.dumps({"name": "x", "groups": [
        {"name": "g", "in": {"a": "string"}, "out": {"a": "number"},
         "tools": '{"tool":"echo","args":{"value":"$args.a"},"as":"a"} ;'}]}),
    "unknown-tools": json.dumps({"name": "x", "groups": [{"name": "g", "out": {"r": "string", "w": "number"},
                                                          "tools": _tool_text(
        '{"tool":"ech"} ;', '{"tool":"zzzqqq"} ;', '{"tool":"cmd_run","args":{"command":3,"nope":1}} ;',
        '{"tool":"cmd_run","args":{"command":"ls"},"as":"w"} ;')}]}),
    "tools-json": json.dumps({"name": "x", "groups": [{"name": "g", "tools": _tool_text(
        '{"tool":"echo",} ;', '{"tool" "echo"} ;', '{"tool":"echo" "x"} ;', '{"tool":"\\q"} ;',
        '{"tool":"echo","args":{"value": NaN}} ;', '{"tool":"echo","args":{"value":1e999}} ;',
        '{"tool":"echo","args":{"value":' + "[" * 3000 + "]" * 3000 + "}} ;", '{"tool":"echo"} x')}]}),
    "tools-missing": json.dumps({"name": "x", "groups": [{"name": "g"}, {"name": "h", "tools": []}]}),
    "call-itself": json.dumps({"name": "x", "groups": [
        {"name": "g", "tools": '{"tool":"seq_call","args":{"name":"x"}} ;'}]}),
    "type-conflict": json.dumps({"name": "x", "groups": [
        {"name": "g", "in": {"host": "string"}, "tools": '{"tool":"echo","args":{"value":1}} ;'},
        {"name": "h", "in": {"host": "number"}, "tools": '{"tool":"echo","args":{"value":1}} ;'}]}),
    "deep": "[" * 100000 + "]" * 100000,
    # who answers (approvers, required, reminders) and where a step runs (hosts)
    "asking-group": json.dumps({"name": "x", "groups": [{
        "name": "g", "approvers": ["team:x", "person:a", "person:a", ""], "required": 0, "remind_after": "soon",
        "escalate_after": "1h", "expire_after": "1m", "self_approve": "yes",
        "tools": '{"tool":"echo","args":{"value":1}} ;'}]}),
    "asking-step": json.dumps({"name": "x", "groups": [{
        "name": "g", "tools": '{"tool":"echo","args":{"value":1},"approvers":"role:x","required":3,'
                              '"escalate_to":["person:b"],"remind_after":"2h","expire_after":"1h"} ;'
                              '{"tool":"echo","args":{"value":1},"approvers":["person:a","person:b"],"required":3} ;'
                              '{"tool":"echo","args":{"value":1},"required":"two"} ;'}]}),
    "asking-empty": json.dumps({"name": "x", "groups": [{"name": "g", "approvers": [],
                                                          "tools": '{"tool":"echo","args":{"value":1}} ;'}]}),
    "asking-twice": json.dumps({"name": "x", "groups": [{"name": "g", "approvers": ["person:a", "person:a"],
                                                          "tools": '{"tool":"echo","args":{"value":1}} ;'}]}),
    "asking-late": json.dumps({"name": "x", "groups": [{"name": "g", "remind_after": "soon", "escalate_after": "2h",
                                                         "tools": '{"tool":"echo","args":{"value":1}} ;'}]}),
    "asking-whom": json.dumps({"name": "x", "groups": [{"name": "g", "escalate_to": ["role:lead"],
                                                         "remind_after": "2h", "expire_after": "1h",
                                                         "tools": '{"tool":"echo","args":{"value":1}} ;'}]}),
    "hosts": json.dumps({"name": "x", "groups": [{
        "name": "g", "tools": '{"tool":"echo","args":{"value":1},"on":"bad host!"} ;'
                              '{"tool":"echo","args":{"value":1},"on":"node-a"} ;'}]}),
}
# Names and values the documents above hold: data, shown as written.
DATA = {"g", "h", "x", "y", "t", "u", "q", "z", "b", "w", "r", "a", "colour", "extra", "float", "ech", "zzzqqq",
        "nope", "foo", "AND", "NaN", "e", "abc", "ls", "s", "sequence", "team", "soon", "yes", "two", "bad"}


def _templates_of(words: Sentence | None) -> set[str]:
    if words is None:
        return set()
    found = {words.template}
    for _key, value in words.params:
        if isinstance(value, Sentence):
            found |= _templates_of(value)
    return found


def _untranslated_titles() -> set[str]:
    """A built-in tool's title is looked up whole (`marks.term`): the words of one the catalogue does not
    hold yet are the tool's own."""
    with i18n.use_language("zh-CN"):
        titles = [tool.title for tool in (default_registry().get(n) for n in default_registry().names()) if tool]
        return {w for t in titles if i18n._(t) == t for w in re.findall("[A-Za-z]+", t)}


def _problems() -> list[tuple[str, Problem]]:
    catalog = tool_catalog(default_registry())
    out = []
    for key, text in BAD.items():
        result = check_text(text, catalog)
        assert result.errors or result.warnings, key
        out += [(key, p) for p in result.errors + result.warnings]
    return out


def test_real_bad_documents_get_their_problems_in_chinese_and_the_same_english():
    used: set[str] = set()
    for key, problem in _problems():
        assert problem.words is not None, f"{key}: {problem} has no template"
        used |= _templates_of(problem.words)
        assert problem.text() == problem.message  # the English, exactly as the API and MCP carry it
        assert set(problem.to_json()) <= {"loc", "code", "message", "offset"}
        assert "words" not in problem.model_dump()
        with i18n.use_language("zh-CN"):
            chinese = problem.text(i18n._)
        assert chinese != problem.message and re.search(r"[\u4e00-\u9fff]", chinese), f"{key}: {chinese!r}"
        left = _prose(chinese, DATA | _untranslated_titles())
        assert not left, f"{key}: {chinese!r} still says {left}"
    language = "gui/core/sequences/conditions/language.py"
    source = (Path(__file__).parents[1] / language).read_text(encoding="utf-8").splitlines()
    evaluator = next(i for i, line in enumerate(source, 1)  # below it: the run-time words, no document meets them
                     if line.startswith("def evaluate("))
    marked = {m.id for m in extract() if m.id and any(loc[0] in CORE for loc in m.locations)
              and not all(where == language and line > evaluator for where, line in m.locations)}
    assert len(used & marked) >= 0.75 * len(marked), f"the sample meets only {len(used & marked)} of {len(marked)}"


def seqdesk(*args: str, tmp: Path, lang: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "NICEGUI_")) and k not in ("SEQDESK_MEMORY", "SEQDESK_LANG")}
    env["SEQDESK_DATA"] = str(tmp / "data")
    if lang is not None:
        env["SEQDESK_LANG"] = lang
    return subprocess.run([sys.executable, "-m", "gui", *args], capture_output=True, text=True, env=env, timeout=120)


def test_seqdesk_check_says_the_problems_in_chinese_and_keeps_english_and_json_as_they_were(tmp_path: Path):
    path = tmp_path / "bad.json"
    path.write_text(BAD["group-slots"], encoding="utf-8")
    english = seqdesk("check", str(path), tmp=tmp_path)
    chinese = seqdesk("--lang", "zh-CN", "check", str(path), tmp=tmp_path)
    assert english.returncode == chinese.returncode == 1
    result = check_text(BAD["group-slots"], tool_catalog(default_registry()))
    for problem in result.errors:
        assert f"{problem.where()}: {problem.message} (line " in english.stdout
        with i18n.use_language("zh-CN"):
            assert f"{problem.where()}：{problem.text(i18n._)}（第 " in chinese.stdout, chinese.stdout
        assert f"({problem.code})" in chinese.stdout  # the codes a script greps for
    assert "groups[0].in.1a: '1a' is not a usable name: use letters, digits and _, starting with a letter " \
           "(line 1, column 47) (bad-name)" in english.stdout
    assert "“1a”不能用作名称：请使用字母、数字和 _，并以字母开头" in chinese.stdout
    assert "没有工具写入输出“t”" in chinese.stdout and "warning: " in chinese.stdout  # a warning, in Chinese
    lines = [line for line in chinese.stdout.splitlines() if line]
    assert all(not _prose(line.split("：", 1)[-1].rsplit("（第", 1)[0], DATA) for line in lines), chinese.stdout
    as_json = seqdesk("check", "--json", str(path), tmp=tmp_path, lang="zh-CN")
    plain = seqdesk("check", "--json", str(path), tmp=tmp_path)
    assert json.loads(as_json.stdout) == json.loads(plain.stdout)
    assert json.loads(plain.stdout)["errors"][0]["message"] == result.errors[0].message  # English


def test_seqdesk_help_in_chinese_keeps_the_code_and_mcp_help_stays_english(tmp_path: Path):
    chinese = seqdesk("--lang", "zh-CN", "help", tmp=tmp_path)
    english = seqdesk("help", tmp=tmp_path)
    assert chinese.returncode == english.returncode == 0
    assert english.stdout == help_text() + "\n"
    assert EXAMPLE in chinese.stdout.splitlines()  # the line to copy, exactly as written
    with i18n.use_language("zh-CN"):
        for part in PARTS:
            if part is not None:
                assert i18n._(part) != part, f"not translated: {part[:60]!r}"
                assert i18n._(part).format(**LIMIT_WORDS) in chinese.stdout
        assert help_text() == english.stdout[:-1]  # what MCP seq_help and the API give: English, always
    prose = [line for line in chinese.stdout.splitlines() if line != EXAMPLE]
    left = sorted({w for line in prose for w in untranslated_runs(re.sub(r"\$args\.\w+", " ", line), HELP_WORDS)})
    assert not left, f"English left in `seqdesk help --lang zh-CN`: {left}"
    for code in ('{"tool":"cmd_run","args":{…},"as":"slot"}', '"in": {}', "on_error", '"$args.n > 3"',
                 "echo 'x; rm -rf ~'", 'seq_run(name="check-three-nodes", args={"host": "node-a"})'):
        assert code in chinese.stdout, code


def test_argparse_speaks_chinese_under_lang_and_english_otherwise(tmp_path: Path):
    chinese = seqdesk("--lang", "zh-CN", "check", tmp=tmp_path)
    english = seqdesk("check", tmp=tmp_path)
    assert chinese.returncode == english.returncode == 2
    assert "用法：seqdesk check [-h] [--json] file" in chinese.stderr
    assert "seqdesk check：错误：缺少以下必需的参数：file" in chinese.stderr, chinese.stderr
    assert english.stderr == ("usage: seqdesk check [-h] [--json] file\n"
                              "seqdesk check: error: the following arguments are required: file\n")
    wrong = seqdesk("run", "x", "--port", tmp=tmp_path, lang="zh-CN")
    assert wrong.returncode == 2 and "错误：" in wrong.stderr and "Traceback" not in wrong.stderr
    helped = seqdesk("--lang", "zh-CN", "check", "--help", tmp=tmp_path)
    assert "选项:" in helped.stdout and "显示这段帮助并退出" in helped.stdout and "位置参数:" in helped.stdout
    assert "options:" in seqdesk("check", "--help", tmp=tmp_path).stdout


def test_argparse_translations_keep_its_placeholders():
    kept = {m.id: m for m in read(LANG) if m.id}
    for msgid in MARKED:
        chinese = kept[msgid].string
        assert re.findall(r"%\(\w+\)[sr]|%[sr]", chinese) == re.findall(r"%\(\w+\)[sr]|%[sr]", msgid), msgid
        assert chinese.endswith("\n") == msgid.endswith("\n")
        assert chinese % ({"prog": "p", "message": "m", "argument_name": "a", "option": "o", "matches": "x",
                           "type": "int", "value": "v", "choices": "c", "filename": "f", "error": "e",
                           "parser_name": "n"} if "%(" in msgid else ("s",) * msgid.count("%"))


async def test_the_editors_problem_list_is_in_chinese(user: Any):
    from support.editor import R, find
    from support.ui import app_ctx

    saved = dict(i18n._default)
    i18n.set_defaults(started="zh_CN")
    try:
        await app_ctx().wait_open(timeout=5)
        await app_ctx().engine.create(json.loads(EXAMPLE))
        await user.open("/sequences/check-three-nodes/edit")
        await user.should_see(marker="group-2", retries=R)
        with user.client:
            row = next(iter(find(user, "group-2", "in-1", "slot-type").elements))
            row.value = "number"  # host is text in group 1 and a number here: a type conflict
            next(iter(find(user, "group-2", "group-name").elements)).value = "fetch-one-node"  # taken
        user.find(marker="save").click()
        await user.should_see(marker="problem-list", retries=R)
        await user.should_see("2 个问题", marker="problems", retries=R)
        messages = [el.text for el in user.find(marker="problem-message").elements]
        assert len(messages) == 2, messages
        assert any("“host”在这里是 number，但在组“fetch-one-node”中是 string" in m for m in messages), messages
        assert any("组名称“fetch-one-node”已被第 1 个组使用：组名称不能重复" in m for m in messages), messages
        (panel,) = user.find(marker="problem-list").elements
        assert not [p for p in screen_problems(panel, KEYWORDS | {"fetch-one-node", "fetch-one-node-2"})
                    if "problem-message" in p and "is free" not in p]  # "('…-2' is free)": the editor's words
        for text in messages:  # …so the core's part of each message is checked word by word
            left = untranslated_runs(re.sub(r" \('[^']*' is free\)$", "", text), KEYWORDS | {"fetch-one-node"})
            assert not left, (text, left)
    finally:
        i18n._default.update(saved)

