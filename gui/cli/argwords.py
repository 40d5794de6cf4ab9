"""argparse's own words ("usage:", "options:", "error: the following arguments are required") in the
person's language, the English left exactly as argparse writes it.

argparse looks its sentences up through the module's `_` and `ngettext` (gettext) each time it
speaks; `install()` puts SeqDesk's catalogue in front of them. In English, or for a sentence the
catalogue does not hold, argparse's own lookup answers, so nothing changes there. The sentences
below are argparse's msgids (Python 3.11 and later) marked for the catalogue; its %-placeholders
stay in every translation. Only what a person can meet is here, not the errors of a program that
builds a wrong parser.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from gui import i18n
from gui.i18n import N_

MARKED = frozenset({
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("one of the arguments %s is required"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("can't open '%(filename)s': %(error)s"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
})
_PLURAL = (N_("expected %s argument"), N_("expected %s arguments"))  # argparse's one ngettext pair

_original: dict[str, Callable[..., str]] = {}


def _gettext(message: str | None) -> str | None:
    if message is None or i18n.current_language() == i18n.ENGLISH or message not in MARKED:
        return _original["_"](message)
    return i18n._(message)


def _ngettext(singular: str, plural: str, n: int) -> str:
    if i18n.current_language() == i18n.ENGLISH or (singular, plural) != _PLURAL:
        return _original["ngettext"](singular, plural, n)
    return i18n._(singular if n == 1 else plural)


def install() -> None:
    """argparse speaks the language SeqDesk speaks from now on (once per process; idempotent)."""
    if _original:
        return
    _original["_"] = argparse._  # type: ignore[attr-defined]
    _original["ngettext"] = argparse.ngettext  # type: ignore[attr-defined]
    setattr(argparse, "_", _gettext)  # noqa: B010 - the name argparse reads its words through
    setattr(argparse, "ngettext", _ngettext)  # noqa: B010
