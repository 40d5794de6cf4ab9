"""Which inputs a known program runs as code: the save warns of them and the approval marks them."""

from __future__ import annotations

import pytest

from gui.core.sequences.substitution import bind, bound_inputs, run_as_code, shell_landings, substitute


def runs_as(template: str) -> dict[str, str | None]:
    return {landing.name: landing.runs_as for landing in shell_landings(template)}


@pytest.mark.parametrize(("template", "program"), [
    ("eval echo $args.x", "eval"),
    ('sh -c "$args.x"', "sh -c"),
    ("bash -ec $args.x", "bash -c"),
    ("/bin/zsh -c $args.x", "zsh -c"),
    ("sh $args.x", "sh"),
    ('python3 -c "$args.x"', "python -c"),
    ("python3.11 -m $args.x", "python -m"),
    ("perl -e $args.x", "perl -e"),
    ("node --eval=$args.x", "node --eval"),
    ("ruby -e $args.x", "ruby -e"),
    ("awk -F, $args.x file", "awk"),
    ("sed -n -e $args.x file", "sed -e"),
    ("find . -name '*.log' -exec sh -c $args.x \\;", "sh -c"),
    ("find . -exec $args.x {} +", "find -exec"),
    ("xargs -I{} sh -c $args.x", "sh -c"),
    ("sudo -u root $args.x", "sudo"),
    ("sudo -s $args.x", "sudo -s"),
    ("env -i PATH=/bin $args.x", "env"),
    ("timeout 5 bash -c $args.x", "bash -c"),
    ("nice -n 5 nohup sh -c $args.x", "sh -c"),
    ("ssh -p 22 host ls $args.x", "ssh"),
    ("su - root -c $args.x", "su -c"),
    ("watch -n 1 echo $args.x", "watch"),
    ("trap $args.x EXIT", "trap"),
    (". $args.x", "."),
    ("$args.x --version", ""),
    ("FOO=1 $args.x", ""),
    ("if eval $args.x; then echo y; fi", "eval"),
    ("echo $args.x | sh", "sh"),
    ("printf %s $args.x | python3", "python"),
    ("echo $args.x | xargs rm", "xargs"),
    ('sh -c "$(cat $args.x)"', "sh -c"),
    ("2>/dev/null sh -c $args.x", "sh -c"),
    ("x=$(eval $args.x)", "eval"),
    ("[[ $args.x -eq 1 ]] && echo one", "[[ -eq"),
    ("[[ -v $args.x ]]", "[[ -v"),
    ("let n=$args.x+1", "let"),
    ("declare $args.x=1", "declare"),
    ("read -r $args.x", "read"),
    ("printf -v $args.x %s 1", "printf -v"),
])
def test_an_input_a_program_runs_as_code_is_named_with_that_program(template, program):
    assert runs_as(template)["x"] == program


@pytest.mark.parametrize("template", [
    "echo $args.x",
    "sh -c 'printf %s \"$1\"' sh $args.x",  # the safe way: the input is a positional argument
    "python3 -c 'import sys; print(sys.argv[1])' $args.x",
    "python3 script.py $args.x",
    "perl -e 'print @ARGV' $args.x",
    "awk '{print}' $args.x",
    "awk -v name=$args.x '{print name}'",
    "find . -name $args.x -exec rm {} \\;",
    "sudo -u $args.x whoami",
    "timeout $args.x sleep 1",
    "grep -r $args.x .",
    "command -v $args.x",
    "case a in $args.x) echo match;; esac",
    "echo $args.x > out.txt",
    "echo $args.x; sh -c 'echo fixed'",
    "printf %s $args.x | cat",
    "for f in $args.x; do echo \"$f\"; done",
    '[[ "$args.x" == a* ]]',
    "local v=$args.x",
    "printf '%s' $args.x",
])
def test_an_input_that_stays_data_is_not_named(template):
    assert runs_as(template)["x"] is None


def test_the_whole_command_from_an_input_runs_as_code():
    [landing] = shell_landings("$args.cmd")
    assert (landing.name, landing.runs_as, landing.whole) == ("cmd", "", True)


def test_the_approval_gets_each_input_run_as_code_once_with_its_program():
    args = {"command": 'echo $args.a; sh -c "$args.b"; eval $args.b', "cwd": "$args.c"}
    assert run_as_code(args, {"command"}) == {"b": "sh -c"}
    assert run_as_code({"command": "$args.cmd"}, {"command"}) == {"cmd": ""}
    assert run_as_code({"label": "sh -c $args.a"}, {"command"}) == {}


@pytest.mark.parametrize("args", [
    {"command": 'echo $args.a; sh -c "$args.b"; eval $args.b', "cwd": "$args.c"},
    {"command": "$args.cmd", "label": "see $args.a"},
    {"label": "sh -c $args.a", "list": ["$args.b", {"deep": "x $args.c"}]},
    {"command": "bash -c $args.a && python3 -c $args.b | tee $args.c"},
])
def test_binding_the_inputs_finds_what_reading_the_templates_finds(args):
    values = {"a": "x y", "b": "print(1)", "c": "/tmp", "cmd": "ls -l"}
    bound = bind(args, values, shell={"command"})
    assert bound.args == substitute(args, values, shell={"command"})
    assert bound.inputs == bound_inputs(args, values)
    assert list(bound.inputs) == list(bound_inputs(args, values))
    assert bound.as_code == run_as_code(args, {"command"})
