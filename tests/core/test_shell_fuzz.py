"""Hostile inputs in every shell context, through a real shell: no payload ever runs.

Each context is a `cmd_run` command template with one input; each payload tries to create the file
PWNED in the step's folder. A template the save accepts runs under an auto-approval (cmd_run always
allowed), through the engine and the real /bin/sh, and must print the input exactly; a template the
save refuses is also run as a stored sequence would be (past the save's check) and must fail at run
time without running anything. The figures (contexts × payloads, how many ran) are asserted and
printed. Only the engine's public face is used, so the same test reads the old behaviour too.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest
from support.builders import group, seq, tools
from support.waiting import within

from gui.core.door.engine import Engine
from gui.core.runs.records import RunRecord
from gui.core.sequences.validator import parse_sequence
from gui.core.tools.registry import Registry
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import builtin_tools

T = 20.0
MARKER = "PWNED"

# name: (command template, what it prints for the value v; None: the save refuses it)
ACCEPTED = {
    "unquoted": ("printf %s $args.x", lambda v: v),
    "unquoted, glued to text": ("printf %s --$args.x--", lambda v: f"--{v}--"),
    "double-quoted": ('printf %s "$args.x"', lambda v: v),
    "double-quoted with text": ('printf "%s" "<$args.x> and $HOME_UNSET."', lambda v: f"<{v}> and ."),
    "$(…)": ('printf %s "$(printf %s $args.x)"', lambda v: v.rstrip("\n")),
    '"…" inside $(…)': ('printf %s "$(printf %s "$args.x")"', lambda v: v.rstrip("\n")),
    "$(…) inside a case": ('printf %s "$(case a in a) printf %s "$args.x";; esac)"', lambda v: v.rstrip("\n")),
    "case subject": ('case $args.x in *) printf %s "$args.x";; esac', lambda v: v),
    "assignment": ('v=$args.x; printf %s "$v"', lambda v: v),
    "pipeline": ("printf %s $args.x | cat", lambda v: v),
    "after a here-document": ("cat <<EOF\nfixed\nEOF\nprintf %s $args.x", lambda v: "fixed\n" + v),
}
REFUSED = {
    "'…'": "printf %s '$args.x'",
    "$'…'": "printf %s $'$args.x'",
    "`…`": "printf %s `printf %s $args.x`",
    "${…}": 'printf %s "${UNSET_VAR:-$args.x}"',
    "${…} unquoted": "printf %s ${UNSET_VAR:-$args.x}",
    "$((…))": "printf %s $(( $args.x ))",
    "here-document": "cat <<EOF\n$args.x\nEOF",
    "here-document, quoted delimiter": "cat <<'EOF'\n$args.x\nEOF",
    "after \\": "printf %s \\$args.x",
    'after \\ inside "…"': 'printf %s "\\$args.x"',
    "comment": "printf %s ok # $args.x",
    "'…' inside $(…)": "printf %s \"$(printf %s '$args.x')\"",
    "after an alias that opens a quote": "alias q=\"printf %s '\"\nq $args.x'",
    "bash ((…))": "(( $args.x > 0 )); printf %s ok",
    "bash array index": "a[$args.x]=1; printf %s ok",
}
PAYLOADS = [
    f"$(touch {MARKER})", f"`touch {MARKER}`", f'"; touch {MARKER}; "', f"'; touch {MARKER}; '", "\\",
    "ends with a backslash\\", f"\ntouch {MARKER}", f"a\ntouch {MARKER}\n", f"${{IFS}}touch${{IFS}}{MARKER}",
    f"$(($(touch {MARKER})))", "$((1+1))", "*", "?", "[a-z]*", f"EOF\ntouch {MARKER}\nEOF", f"x\nEOF\ntouch {MARKER}",
    f"'\"'\"'; touch {MARKER} #", f'\\"; touch {MARKER}; \\"', f"\\$(touch {MARKER})", f"$'\\''; touch {MARKER}; '",
    f"“; touch {MARKER}; ”", f"‘$(touch {MARKER})’", f"){MARKER}$(touch {MARKER})", f"}}$(touch {MARKER})",
    f"a; touch {MARKER}", f"a && touch {MARKER}", f"a || touch {MARKER}", f"a | touch {MARKER}",
    f"& touch {MARKER} &", f"-e $(touch {MARKER})", f"\x01\x02\x1b[31m\x7f$(touch {MARKER})",
    f"x[$(touch {MARKER})]", f"a[$(touch {MARKER})]+1", "#", "~", "!!", "$HOME", "${HOME}", "$0", "", " ", "\t",
    f"\r\ntouch {MARKER}", f"ünï ✓ 中文 $(touch {MARKER})", f"\\\n$(touch {MARKER})", f"$(touch {MARKER})\\",
    "'", '"', "`", "$", "${", "$((", "<<EOF", f"; touch {MARKER} #", f"x # \ntouch {MARKER}",
]


def _doc(name: str, command: str, folder: Path) -> dict:
    call = {"tool": "cmd_run", "args": {"command": command, "cwd": str(folder)}, "as": "said"}
    return seq(group(f"{name}-g", **{"in": {"x": "string"}}, out={"said": "string"}, tools=tools(call)), name=name)


def _folder(root: Path, context: int, payload: int) -> Path:
    folder = root / f"c{context}-p{payload}"
    folder.mkdir()
    return folder


async def _run_all(engine: Engine, docs: list[dict]) -> list[RunRecord]:
    """Each document run (past the save's check, as a stored one would be) with its payload, together."""
    runs = [engine.runner.run(parse_sequence(doc), {"x": payload}) for doc, payload in zip(docs, PAYLOADS, strict=True)]
    return list(await within(asyncio.gather(*runs), "the fuzzed runs to end"))


async def test_no_hostile_input_runs_in_any_shell_context_under_an_auto_approval(tmp_path):
    engine = compose_engine(Registry(builtin_tools()), MemoryStores())
    await engine.modes.set("cmd_run", "always-allow")
    ran: list[str] = []
    wrong: list[str] = []
    pairs = 0
    for c, (context, (template, printed)) in enumerate(ACCEPTED.items()):
        name = f"accepted-{c}"
        await engine.create(_doc(name, template, tmp_path))
        folders = [_folder(tmp_path, c, p) for p in range(len(PAYLOADS))]
        records = await _run_all(engine, [_doc(name, template, folder) for folder in folders])
        for payload, folder, record in zip(PAYLOADS, folders, records, strict=True):
            pairs += 1
            if (folder / MARKER).exists():
                ran.append(f"{context} × {payload!r}")
            said = record.outputs.get("said")
            if record.status != "succeeded" or said != printed(payload).rstrip("\r\n"):
                wrong.append(f"{context} × {payload!r}: {record.status} {said!r} {record.error}")
    for c, (context, template) in enumerate(REFUSED.items(), start=len(ACCEPTED)):
        checked = await engine.check(_doc(f"refused-{c}", template, tmp_path))
        if checked.ok:
            wrong.append(f"{context}: saved without an error")
        folders = [_folder(tmp_path, c, p) for p in range(len(PAYLOADS))]
        records = await _run_all(engine, [_doc(f"refused-{c}", template, folder) for folder in folders])
        for payload, folder, record in zip(PAYLOADS, folders, records, strict=True):
            pairs += 1
            if (folder / MARKER).exists():
                ran.append(f"{context} × {payload!r}")
            if record.status != "failed":
                wrong.append(f"{context} × {payload!r}: ran at run time ({record.status})")
    contexts = len(ACCEPTED) + len(REFUSED)
    print(f"\nshell contexts × payloads: {contexts} × {len(PAYLOADS)} = {pairs} runs through /bin/sh; "
          f"payloads that ran: {len(ran)}; refused at save: {len(REFUSED)} contexts")
    assert pairs == contexts * len(PAYLOADS)
    assert ran == [], f"{len(ran)} of {pairs} payloads ran:\n" + "\n".join(ran)
    assert wrong == [], "\n".join(wrong)


SHELLS = [s for s in ("dash", "bash") if shutil.which(s)]


@pytest.mark.parametrize("shell", SHELLS)
def test_the_inserted_text_is_the_value_in_dash_and_bash_alike(shell, tmp_path):
    """The same insertion read by bash too (it is /bin/sh on some systems): the value, literally."""
    from gui.core.sequences.substitution import ShellPlaceError, substitute

    ran: list[str] = []
    for c, (context, (template, printed)) in enumerate(ACCEPTED.items()):
        for p, payload in enumerate(PAYLOADS):
            folder = _folder(tmp_path, c, p)
            command = substitute({"command": template}, {"x": payload}, shell={"command"})["command"]
            out = subprocess.run([shell, "-c", command], cwd=folder, capture_output=True, timeout=T)
            assert out.stdout.decode() == printed(payload), (context, payload, command, out.stderr)
            if (folder / MARKER).exists():
                ran.append(f"{context} × {payload!r}")
    for template in REFUSED.values():
        with pytest.raises(ShellPlaceError):
            substitute({"command": template}, {"x": "a"}, shell={"command"})
    assert ran == []

