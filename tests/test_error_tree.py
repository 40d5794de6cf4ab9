"""SeqDesk's exceptions form one tree (`gui.core.errors`): one root, `SeqDeskError`; every class below
it in a family that gives its HTTP status; every code a class names for itself names only that class."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

import gui
from gui.core.errors import FAMILIES, SeqDeskError, family_of


@cache
def _exception_classes() -> list[type[BaseException]]:
    """Every exception class defined in a module of `gui` (the private ones too)."""
    found: list[type[BaseException]] = []
    for info in pkgutil.walk_packages(gui.__path__, "gui."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue
        module = importlib.import_module(info.name)
        found += [value for value in vars(module).values()
                  if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == info.name]
    return sorted(set(found), key=lambda kind: f"{kind.__module__}.{kind.__qualname__}")


def _name(kind: type) -> str:
    return f"{kind.__module__}.{kind.__qualname__}"


def _signals() -> list[type[BaseException]]:
    """Control-flow signals: BaseExceptions that are no Exception (as asyncio's CancelledError), so
    that no `except Exception` takes them for a failure. They cannot be below the root."""
    return [kind for kind in _exception_classes() if not issubclass(kind, Exception)]


def test_every_exception_of_seqdesk_derives_from_the_one_root():
    classes = [kind for kind in _exception_classes() if kind not in _signals()]
    assert len(classes) > 40  # the walk found them (it would pass on nothing otherwise)
    assert [_name(kind) for kind in classes if not issubclass(kind, SeqDeskError)] == []


def test_the_signals_that_are_no_errors_are_few_and_drawn_apart_in_the_roots_docstring():
    import gui.core.errors

    signals = _signals()
    assert len(signals) <= 3, [_name(kind) for kind in signals]
    drawing = (gui.core.errors.__doc__ or "").split("Signals, not errors", 1)
    assert len(drawing) == 2, "the root's docstring has no 'Signals, not errors' paragraph"
    assert [_name(kind) for kind in signals if kind.__name__ not in drawing[1]] == []


def test_every_exception_below_the_root_is_in_a_family_and_answers_with_its_status():
    for kind in _exception_classes():
        if kind is SeqDeskError or kind in _signals():
            continue
        assert issubclass(kind, SeqDeskError)
        family = family_of(kind)
        assert kind.status == family.status, _name(kind)


def test_the_tree_drawn_in_the_roots_docstring_names_every_exception():
    import gui.core.errors

    drawing = gui.core.errors.__doc__ or ""
    named = [kind for kind in _exception_classes() if kind not in _signals()]
    assert [_name(kind) for kind in named if kind.__name__ not in drawing] == []


def test_the_families_have_their_own_statuses_and_codes():
    assert len({family.status for family in FAMILIES}) == len(FAMILIES)
    assert len({family.code for family in FAMILIES}) == len(FAMILIES)


def test_a_code_a_class_names_for_itself_is_its_own():
    named: dict[str, list[str]] = {}
    for kind in _exception_classes():
        if "code" in vars(kind):
            named.setdefault(kind.code, []).append(_name(kind))
    assert {code: names for code, names in named.items() if len(names) > 1} == {}


def test_the_built_in_exceptions_callers_catch_still_catch_them():
    from gui.core.asks import InteractionNotFoundError, InteractionNotPendingError
    from gui.core.door import NotFoundError
    from gui.core.runs import AmbiguousRunIdError, ScheduleInvalid
    from gui.core.sequences import DslError, RunArgsError
    from gui.mcp.config import McpConfigError
    from gui.mcp.secrets import SecretStoreError
    from gui.store.writer import WriterClosedError

    for kind, built_in in [(NotFoundError, LookupError), (AmbiguousRunIdError, LookupError),
                           (InteractionNotFoundError, LookupError), (ScheduleInvalid, ValueError),
                           (RunArgsError, ValueError), (DslError, ValueError), (McpConfigError, ValueError),
                           (SecretStoreError, RuntimeError), (WriterClosedError, RuntimeError)]:
        assert issubclass(kind, built_in), _name(kind)
    assert issubclass(InteractionNotFoundError, InteractionNotPendingError)  # not found: not pending either
    assert InteractionNotFoundError.status == 404
