"""The `seqdesk` command as a script sees it: exit codes, output, the persistent store."""

from __future__ import annotations

import json
import os
from pathlib import Path

from support.cli import seqdesk

from gui.core.sequences.help import EXAMPLE, SEED_EXAMPLE


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_check_valid_file_exits_0_and_shows_the_signature(tmp_path, data):
    result = seqdesk("check", write(tmp_path, "ok.json", EXAMPLE), data=data)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "inputs: host: string" in result.stdout


def test_check_prints_each_problem_with_its_location_and_exits_1(tmp_path, data):
    doc = json.loads(EXAMPLE)
    doc["groups"][1]["tools"] = doc["groups"][1]["tools"].replace('"as":"detail"', '"as":"x"')
    result = seqdesk("check", write(tmp_path, "bad.json", json.dumps(doc)), data=data)
    assert result.returncode == 1
    assert "groups[1].tools[0].as: slot 'x' is not declared in out" in result.stdout
    assert "(undeclared-slot)" in result.stdout


def test_check_json_output_has_the_documented_shape(tmp_path, data):
    result = seqdesk("check", "--json", write(tmp_path, "bad.json", '{"name": "x", "groups": []}'), data=data)
    assert result.returncode == 1
    body = json.loads(result.stdout)
    assert body["ok"] is False
    assert body["errors"][0]["code"] == "no-groups" and body["errors"][0]["loc"] == ["groups"]
    assert set(body) == {"ok", "errors", "warnings", "signature"}


def test_check_unreadable_file_exits_2(tmp_path, data):
    result = seqdesk("check", str(tmp_path / "missing.json"), data=data)
    assert result.returncode == 2 and "no such file" in result.stderr


def test_help_prints_the_format_with_the_example(data):
    result = seqdesk("help", data=data)
    assert result.returncode == 0 and EXAMPLE in result.stdout


def test_seed_example_runs_end_to_end_through_the_cli_with_cmd_run(tmp_path, data):
    text = SEED_EXAMPLE.replace("journalctl -x", "echo 展开")
    result = seqdesk("run", write(tmp_path, "seed.json", text), "--args", '{"host": "node-a"}', "--yes", "--json",
                     data=data)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["status"] == "succeeded"
    assert record["outputs"]["detail"] == "展开"
    assert [g["name"] for g in record["groups"]] == ["拉取单台", "异常展开"]
    assert all(t["attempts"] == 1 for g in record["groups"] for t in g["tools"])


def test_without_a_terminal_or_yes_approvals_are_denied_with_the_reason(tmp_path, data):
    result = seqdesk("run", write(tmp_path, "ex.json", EXAMPLE), "--args", '{"host": "a"}', "--json", data=data)
    assert result.returncode == 1
    record = json.loads(result.stdout)
    assert record["status"] == "failed"
    assert "denied by the user" in record["groups"][0]["tools"][0]["error"]
    assert "no terminal" in record["groups"][0]["tools"][0]["error"]


def test_bad_args_exit_2(tmp_path, data):
    path = write(tmp_path, "ex.json", EXAMPLE)
    assert seqdesk("run", path, "--args", "not json", data=data).returncode == 2
    result = seqdesk("run", path, "--args", '{"host": 3}', data=data)
    assert result.returncode == 2 and "'host' must be a string" in result.stderr


def test_args_with_a_number_json_cannot_carry_exit_2_saying_so(tmp_path, data):
    result = seqdesk("run", write(tmp_path, "ex.json", EXAMPLE), "--args", '{"host": NaN}', data=data)
    assert result.returncode == 2 and "NaN is not a JSON number" in result.stderr


def test_text_that_is_not_valid_unicode_is_printed_as_a_json_escape_not_a_traceback(tmp_path, data):
    doc = {"name": "odd", "groups": [{"name": "g", "in": {"s": "string"}, "out": {"x": "string"},
                                      "tools": '{"tool":"echo","args":{"value":"$args.s"},"as":"x"} ;'}]}
    path = write(tmp_path, "odd.json", json.dumps(doc))
    result = seqdesk("run", path, "--args", '{"s": "a\\ud800b"}', "--json", data=data)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["outputs"] == {"x": "a\ud800b"}
    plain = seqdesk("run", path, "--args", '{"s": "a\\ud800b"}', data=data)
    assert plain.returncode == 0, plain.stderr


def test_list_shows_sequences_saved_in_the_data_folder_and_runs_by_name(data):
    import asyncio

    from gui.runtime import open_store_runtime

    async def save() -> None:
        runtime = await open_store_runtime(data)
        await runtime.engine.create({"name": "greet", "groups": [
            {"name": "hello", "in": {"who": "string"}, "out": {"msg": "string"},
             "tools": '{"tool":"echo","args":{"value":"hi $args.who"},"as":"msg"} ;'}]})
        await runtime.close()

    asyncio.run(save())
    listed = seqdesk("list", data=data)
    assert listed.returncode == 0 and "greet  (who: string) -> (msg: string)" in listed.stdout
    ran = seqdesk("run", "greet", "--args", '{"who": "Ada"}', "--json", data=data)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["outputs"] == {"msg": "hi Ada"}


def test_serving_off_localhost_without_a_token_is_refused_with_the_reason(data):
    result = seqdesk("--browser", "--host", "0.0.0.0", "--port", "0", data=data, timeout=60)
    assert result.returncode == 2
    assert "without a token" in result.stderr and "run commands" in result.stderr


def test_a_second_app_on_the_same_data_folder_is_refused_naming_the_folder(data):
    from gui.store.lock import InstanceLock

    with InstanceLock(data):
        result = seqdesk("--browser", "--port", "0", data=data, timeout=60)
    assert result.returncode == 2
    assert str(data) in result.stderr and f"pid {os.getpid()}" in result.stderr


def test_check_says_line_and_column_like_the_app_not_a_character_offset(tmp_path, data):
    text = ('{\n  "name": "x",\n  "groups": [\n    {"name": "g", "tools": '
            '"{\\"tool\\": \\"echo\\", \\"args\\": {\\"value\\": \\"$args.nope\\"}} ;"}\n  ]\n}\n')
    result = seqdesk("check", write(tmp_path, "bad.json", text), data=data)
    assert result.returncode == 1
    line = text.splitlines()[3]
    column = line.index("$args") + 1
    assert f"(line 4, column {column}) (undeclared-arg)" in result.stdout, result.stdout
    assert "at character" not in result.stdout
    body = json.loads(seqdesk("check", "--json", write(tmp_path, "bad.json", text), data=data).stdout)
    assert (body["errors"][0]["line"], body["errors"][0]["column"]) == (4, column)


def test_a_json_error_is_placed_once_where_the_reader_stopped(tmp_path, data):
    # a file that stops too early: the reader stops just past its last character (column 41)
    cut = '{"name": "demo", "groups": [{"name": "g"'
    said = seqdesk("check", write(tmp_path, "cut.json", cut), data=data).stdout
    assert said.count("line ") == 1 and "(line 1, column 41)" in said, said
    # a tool object that is not JSON: placed in the file, not inside the decoded `tools` text as well
    tools = '{"name": "d", "groups": [{"name": "g", "tools": "{\\"tool\\":\\"echo\\",}} ;"}]}'
    said = seqdesk("check", write(tmp_path, "tools.json", tools), data=data).stdout
    assert said.count("line ") == 1 and "(line 1, column 69)" in said, said


def test_an_unknown_tool_warning_points_at_seqdesk_tools_not_an_agents_command(tmp_path, data):
    doc = {"name": "d", "groups": [{"name": "g", "tools": '{"tool":"ecoh","args":{"value":"x"}} ;'}]}
    said = seqdesk("check", write(tmp_path, "typo.json", json.dumps(doc)), data=data).stdout
    assert "did you mean 'echo'?" in said and "seqdesk tools lists the tools available now" in said, said
    assert "seq_tools" not in said


def test_show_prints_a_run_by_its_short_id_and_refuses_an_unknown_one(tmp_path, data):
    text = json.dumps({"name": "shown", "groups": [{"name": "shown-g", "out": {"said": "string"},
                       "tools": json.dumps({"tool": "echo", "args": {"value": "hi"}, "as": "said"}) + " ;"}]})
    ran = seqdesk("run", write(tmp_path, "shown.json", text), "--json", data=data)
    run_id = json.loads(ran.stdout)["run_id"]
    shown = seqdesk("show", run_id[:8], data=data)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(f"run {run_id} · shown · succeeded")
    assert "✓ echo succeeded" in shown.stdout
    as_json = seqdesk("show", run_id[:8], "--json", data=data)
    assert as_json.returncode == 0 and as_json.stdout, f"rc {as_json.returncode}; stderr: {as_json.stderr}"
    assert json.loads(as_json.stdout)["run_id"] == run_id
    missing = seqdesk("show", "ffffffff", data=data)
    assert missing.returncode == 2 and "there is no run ffffffff" in missing.stderr


def test_a_file_over_the_size_limit_is_refused_by_check_and_run_with_a_sentence_naming_the_limit(tmp_path, data):
    from gui.core.sequences.limits import MAX_GROUPS

    tool = json.dumps({"tool": "echo", "args": {"value": 1}}) + " ;"
    doc = {"name": "big", "groups": [{"name": f"big-{g}", "tools": tool} for g in range(MAX_GROUPS + 1)]}
    path = write(tmp_path, "big.json", json.dumps(doc))
    checked = seqdesk("check", path, data=data)
    assert checked.returncode == 1
    assert f"groups: the sequence has {MAX_GROUPS + 1} groups, more than the {MAX_GROUPS} one sequence may have" \
           in checked.stdout
    huge = write(tmp_path, "huge.json", json.dumps({**doc, "description": "x" * 3_000_000}))
    for args in (("check", huge), ("run", huge, "--yes")):
        refused = seqdesk(*args, data=data)
        assert refused.returncode == (1 if args[0] == "check" else 2)
        assert "the sequence is 2.9 MB of JSON, more than the 2 MB one sequence may be" in \
               refused.stdout + refused.stderr
