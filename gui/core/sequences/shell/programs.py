"""Which words of a command a known program runs as code (`eval`, `sh -c`, `python -c`, `ssh host CMD`…).

An input quoted as one word reaches the program as text; but some programs then run that text as a
command: `sh -c $args.x` runs whatever x says, however well it was quoted. `code_holes` reads the
commands `gui.core.sequences.shell.lexer` found and names, for each hole in such a place, the program that
runs it ("" when the input is the name of the program itself). It knows wrappers that run the rest
of their words as a command (`sudo`, `env`, `timeout`, `xargs`, `find -exec`…) and pipes into a
program that reads code from its input (`… | sh`). It only ever warns, so where a word it cannot
read decides (an option that is itself an input), it counts every hole after it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gui.core.sequences.shell.reading import ASSIGNMENT, RESERVED, Command, Pipeline, Word

Found = dict[int, str]  # hole -> the program that runs it as code ("": it names the program)

_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh"})


@dataclass(frozen=True)
class _Interpreter:
    """A program that takes code in an option (`-c`, `-e`) or as its first operand."""

    code: frozenset[str]  # options whose value is code
    values: frozenset[str] = frozenset()  # other options that take a value
    files: frozenset[str] = frozenset()  # options naming a file of code: the first operand is then data


def _interp(code: str, values: str = "", files: str = "") -> _Interpreter:
    return _Interpreter(frozenset(code.split()), frozenset(values.split()), frozenset(files.split()))


_INTERPRETERS = {
    "python": _interp("-c -m", "-W -X"),
    "perl": _interp("-e -E", "-I -M -m"),
    "ruby": _interp("-e", "-I -r"),
    "node": _interp("-e --eval -p --print", "-r --require"),
    "php": _interp("-r", "-c -d", "-f"),
    "lua": _interp("-e", "-l"),
    "Rscript": _interp("-e"),
    "osascript": _interp("-e"),
    "awk": _interp("", "-F -v", "-f"),
    "sed": _interp("-e --expression", "-l", "-f --file"),
}
_ALIASES = {"nodejs": "node", "gawk": "awk", "mawk": "awk", "nawk": "awk", "gsed": "sed", "pypy": "python",
            "pypy3": "python"}
# Builtins and programs that run every word after them as code (or join them into one command).
_RUN_ALL = frozenset({"eval", "trap", ".", "source", "alias", "ssh", "watch", "parallel"})
# Wrappers that run the rest of their words as a command: the options that take a value, and how
# many operands come before the command (`timeout 5 CMD`, `chroot DIR CMD`).
_WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "sudo": (frozenset("-u -g -C -D -h -p -r -t -U -T".split()), 0),
    "doas": (frozenset("-u -C".split()), 0),
    "env": (frozenset("-u -C --unset --chdir".split()), 0),
    "timeout": (frozenset("-s -k --signal --kill-after".split()), 1),
    "nice": (frozenset("-n --adjustment".split()), 0),
    "ionice": (frozenset("-c -n -p -P -u --class --classdata".split()), 0),
    "stdbuf": (frozenset("-i -o -e --input --output --error".split()), 0),
    "xargs": (frozenset("-a -d -E -I -L -n -P -s --arg-file --delimiter --max-args --max-procs".split()), 0),
    "exec": (frozenset({"-a"}), 0),
    "time": (frozenset({"-f", "-o", "--format", "--output"}), 0),
    "nohup": (frozenset(), 0), "setsid": (frozenset(), 0), "command": (frozenset(), 0),
    "builtin": (frozenset(), 0), "busybox": (frozenset(), 0), "unbuffer": (frozenset(), 0),
    "chroot": (frozenset(), 1), "flock": (frozenset({"-w", "-E", "--timeout"}), 1),
    "taskset": (frozenset(), 1), "chrt": (frozenset(), 1),
}
# Options of a wrapper after which its words are a string the shell reads (`sudo -s CMD`, `su -c CMD`).
_WRAPPER_SHELL = {"sudo": frozenset({"-s", "-i", "--shell", "--login"}), "doas": frozenset({"-s"}),
                  "env": frozenset({"-S", "--split-string"}), "flock": frozenset({"-c", "--command"})}
_COMMAND_OPTIONS = {"su": frozenset({"-c", "--command"}), "runuser": frozenset({"-c", "--command"}),
                    "script": frozenset({"-c", "--command"})}
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def code_holes(pipelines: Sequence[Pipeline]) -> Found:
    """Every hole a known program runs as code, with that program (see the module's docstring)."""
    found: Found = {}
    for pipeline in pipelines:
        for index, command in enumerate(pipeline):
            found.update(_command(command))
            reader = next((r for c in pipeline[index + 1:] if (r := _reads_code(c)) is not None), None)
            if reader is not None:
                for word in command:
                    for hole in word.holes:
                        found.setdefault(hole, reader)
    return found


def _holes(words: Sequence[Word], label: str) -> Found:
    return {hole: label for word in words for hole in word.holes}


def _start(words: Command) -> int:
    """Where the command's name is: after `!`, `if`, `then`, … and `NAME=value` assignments."""
    i = 0
    while i < len(words) and (words[i].text in RESERVED or ASSIGNMENT.match(words[i].head)):
        i += 1
    return i


def _program(word: Word) -> str | None:
    """The program a command's name runs (`/usr/bin/python3.11` is `python`), None when not plain text."""
    if word.text is None:
        return None
    base = re.sub(r"^(python|pypy|ruby|perl|php|lua)[0-9.]*$", r"\1", word.text.rsplit("/", 1)[-1])
    return _ALIASES.get(base, base)


def _command(words: Command) -> Found:
    i = _start(words)
    if i >= len(words):
        return {}
    first, args = words[i], words[i + 1:]
    if first.holes:
        return _holes([first], "")
    name = _program(first)
    if name is None:
        return {}
    handler = _HANDLERS.get(name)
    if handler is not None:
        return handler(name, args)
    if name in _SHELLS:
        return _shell(name, args)
    if name in _INTERPRETERS:
        return _interpreter(name, _INTERPRETERS[name], args)
    if name in _WRAPPERS:
        return _wrapper(name, args)
    if name in _COMMAND_OPTIONS:
        return _option_values(name, _COMMAND_OPTIONS[name], args)
    return {}


def _shell(name: str, args: Command) -> Found:
    """`sh -c CODE $0 $1…`: the first operand after `-c` is code; without `-c` it is a script it runs."""
    code_flag = False
    k = 0
    while k < len(args):
        word = args[k]
        text = word.text
        if text is None:
            if not word.head or word.head[0] in "-+":  # an input that may be an option: anything after may be code
                return _holes(args[k:], f"{name} -c" if code_flag else name)
            break
        if text == "--":
            k += 1
            break
        if len(text) > 1 and text[0] in "-+" and not text.startswith("--"):
            code_flag = code_flag or (text[0] == "-" and "c" in text[1:])
            k += 2 if text[1:] in ("o", "O") else 1
            continue
        if text.startswith("--"):
            k += 1
            continue
        break
    if k >= len(args):
        return {}
    return _holes([args[k]], f"{name} -c" if code_flag else name)


def _interpreter(name: str, spec: _Interpreter, args: Command) -> Found:
    """`python -c CODE`, `perl -e CODE`, `awk PROGRAM FILE…`: the code option's value, else the first
    operand (code, or the script it runs); the words after it are data."""
    found: Found = {}
    given = False
    k = 0
    while k < len(args):
        word = args[k]
        text = word.text
        if text is None:
            option = _option(word.head)
            if option in spec.code:  # `-c$args.x`, `--eval=$args.x`
                found.update(_holes([word], f"{name} {option}"))
                given = True
                k += 1
                continue
            if word.head.startswith("-") or (not word.head and not given):
                return {**found, **_holes(args[k:], name)}  # an option or the program chosen by an input
            break
        if text == "--":
            k += 1
            break
        if not text.startswith("-") or text == "-":
            break
        option = _option(text)
        glued = option != text
        if option in spec.code:
            given = True
            if not glued and k + 1 < len(args):
                found.update(_holes([args[k + 1]], f"{name} {option}"))
                k += 1
        elif option in spec.files:
            given = True
            k += 0 if glued else 1
        elif option in spec.values:
            k += 0 if glued else 1
        k += 1
    if k < len(args) and not given:
        found.update(_holes([args[k]], name))
    return found


def _option(text: str) -> str:
    """`--eval` of `--eval=…`, `-c` of `-cCODE`."""
    return text.partition("=")[0] if text.startswith("--") else text[:2]


def _wrapper(name: str, args: Command) -> Found:
    """`sudo CMD…`, `timeout 5 CMD…`, `xargs CMD…`: the rest is a command of its own, read the same way."""
    values, operands = _WRAPPERS[name]
    shell = _WRAPPER_SHELL.get(name, frozenset())
    k = 0
    while k < len(args):
        word = args[k]
        text = word.text
        if text is None and word.head.startswith("-"):
            return _holes(args[k:], name)
        if text is None or not text.startswith("-") or text == "-":
            break
        if text == "--":
            k += 1
            break
        option, eq, _ = text.partition("=")
        if option in shell or (not option.startswith("--") and option[:2] in shell):
            return _holes(args[k:], f"{name} {option}")
        if name == "command" and option in ("-v", "-V"):
            return {}  # `command -v NAME` only looks a name up
        k += 2 if option in values and not eq else 1
    if name == "env":
        while k < len(args) and ASSIGNMENT.match(args[k].head):
            k += 1
    k += operands
    return _nested(name, args[k:])


def _nested(name: str, words: Command) -> Found:
    return {hole: label or name for hole, label in _command(words).items()}


def _option_values(name: str, options: frozenset[str], args: Command) -> Found:
    """`su -c CMD`, `script -c CMD`: the value of such an option is a command line."""
    found: Found = {}
    for k, word in enumerate(args):
        option, eq, _ = word.head.partition("=")
        if option in options:
            found.update(_holes([word] if eq else args[k + 1:k + 2], f"{name} {option}"))
    return found


def _find(name: str, args: Command) -> Found:
    """`find … -exec CMD… ;`: each command after `-exec`, read the same way."""
    found: Found = {}
    k = 0
    while k < len(args):
        if args[k].text in _FIND_EXEC:
            label = f"{name} {args[k].text}"
            end = next((j for j in range(k + 1, len(args)) if args[j].text in (";", "+")), len(args))
            found.update(_nested(label, args[k + 1:end]))
            k = end
        k += 1
    return found


def _all(name: str, args: Command) -> Found:
    return _holes(args, name)


# bash evaluates these as arithmetic, where an index `a[$(…)]` runs a command (dash has none of them)
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})


def _double_bracket(name: str, args: Command) -> Found:
    """`[[ $args.x -eq 1 ]]`, `[[ -v $args.x ]]`: bash evaluates those operands as arithmetic."""
    found: Found = {}
    for k, word in enumerate(args):
        if word.text in _ARITHMETIC_TESTS:
            found.update(_holes(args[max(k - 1, 0):k] + args[k + 1:k + 2], f"[[ {word.text}"))
        elif word.text == "-v":
            found.update(_holes(args[k + 1:k + 2], "[[ -v"))
    return found


def _names(name: str, args: Command) -> Found:
    """`declare NAME=…`, `read NAME`, `printf -v NAME`: bash evaluates an index in a variable's name."""
    if name == "printf":
        named = [args[k + 1] for k, word in enumerate(args[:-1]) if word.text == "-v"]
        return _holes(named, "printf -v")
    return {hole: name for word in args if "=" not in word.head for hole in word.holes}


_HANDLERS: dict[str, Callable[[str, Command], Found]] = {
    **{n: _all for n in _RUN_ALL}, "find": _find, "[[": _double_bracket, "let": _all,
    **{n: _names for n in ("declare", "typeset", "local", "export", "readonly", "read", "printf")}}


def _reads_code(words: Command) -> str | None:
    """The program, when `words` run a program that reads code from what is piped in (`sh`, `python -`)."""
    i = _start(words)
    if i >= len(words):
        return None
    name = _program(words[i])
    args = [w for w in words[i + 1:] if not (w.text or "").startswith("-") or w.text == "-"]
    if name in _SHELLS:
        flags = "".join((w.text or "")[1:] for w in words[i + 1:] if (w.text or "-").startswith("-"))
        return name if "c" not in flags and ("s" in flags or not args or args[0].text == "-") else None
    if name in _INTERPRETERS and name not in ("awk", "sed"):
        spec = _INTERPRETERS[name]
        has_code = any((w.text or "")[:2] in spec.code for w in words[i + 1:])
        return name if not has_code and (not args or args[0].text == "-") else None
    if name == "xargs":
        return name
    if name in _WRAPPERS:
        return _reads_code(words[i + 1:])
    return None
