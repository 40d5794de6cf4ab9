"""The view of the tools a sequence document is checked against (`CatalogView`): which tools exist,
their arguments, result types and shell text, from a registry; with the saved sequences when the
catalog checks a save (`gui.core.door.catalog`), or the tools alone for a file checked on its own
(`seqdesk check`, which so needs neither the door nor the engine).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gui.core.errors import ToolArgumentError
from gui.core.sequences import ArgumentsError, CatalogView, Sequence, SlotType, direct_calls
from gui.core.tools.registry import Registry


def tool_catalog(registry: Registry, hosts: frozenset[str] | None = None) -> CatalogView:
    """A view that knows only the tools (and the hosts, when given: for checking a file on its own)."""
    return catalog_view([], registry, hosts)


def _validate_args(registry: Registry) -> Any:
    def check(name: str, args: dict[str, Any]) -> None:
        tool = registry.get(name)
        if tool is None:
            return
        try:
            tool.validate_args(args)
        except ToolArgumentError as exc:
            raise ArgumentsError(exc) from None

    return check


def _result_type(registry: Registry) -> Any:
    def result_type(name: str, args: dict[str, Any], ins: Mapping[str, SlotType]) -> tuple[str, SlotType] | None:
        tool = registry.get(name)
        got = tool.result_type_for(args, ins) if tool is not None else None
        return (tool.title, got) if tool is not None and got is not None else None

    return result_type


def _text_result(registry: Registry) -> Any:
    def text_result(name: str) -> str | None:
        tool = registry.get(name)
        if tool is None or tool.server is None or tool.output_schema() is not None:
            return None
        return tool.title if tool.result_type_for({}, {}) is None else None

    return text_result


def _shell_args(registry: Registry) -> Any:
    def shell_args(name: str) -> frozenset[str]:
        tool = registry.get(name)
        return tool.shell_text_args if tool is not None else frozenset()

    return shell_args


def _runs_on_hosts(registry: Registry) -> Any:
    def runs(name: str) -> bool:
        tool = registry.get(name)
        return tool is None or tool.runs_on_hosts  # an unknown tool is warned of on its own

    return runs


def catalog_view(sequences: list[Sequence], registry: Registry | None,
                 hosts: frozenset[str] | None = None) -> CatalogView:
    owners: dict[str, str] = {}
    calls: dict[str, frozenset[str]] = {}
    for seq in sequences:
        for group in seq.groups:
            owners[group.name] = seq.name
        calls.update(direct_calls(seq))
    return CatalogView(
        group_owner=owners,
        sequence_names=frozenset(s.name for s in sequences),
        calls=calls,
        tool_exists=(registry.__contains__ if registry is not None else None),
        tool_names=(registry.names if registry is not None else None),
        validate_args=(_validate_args(registry) if registry is not None else None),
        result_type=(_result_type(registry) if registry is not None else None),
        shell_args=(_shell_args(registry) if registry is not None else None),
        text_result=(_text_result(registry) if registry is not None else None),
        host_names=hosts,
        runs_on_hosts=(_runs_on_hosts(registry) if registry is not None else None),
    )
