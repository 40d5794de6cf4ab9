"""The executor's address: `temporal://host:port/namespace[?queue=NAME]`, or a sentence saying what fits."""

from __future__ import annotations

import pytest

from gui.core.errors import Invalid
from gui.runtime import chosen_executor
from gui.temporal import TemporalTarget, parse_target


def test_an_address_names_the_host_port_namespace_and_queue() -> None:
    assert parse_target("temporal://127.0.0.1:7244/team") == TemporalTarget("127.0.0.1", 7244, "team", "seqdesk")
    assert parse_target("temporal://tq.example/ops?queue=lab-1") == TemporalTarget("tq.example", 7233, "ops", "lab-1")
    assert parse_target("temporal://h:1").namespace == "default"


@pytest.mark.parametrize(("text", "says"), [
    ("http://127.0.0.1:7233/default", "is not a Temporal address"),
    ("temporal:///default", "is not a Temporal address"),
    ("temporal://h:99999/default", "is not an address"),
    ("temporal://h:7233/bad name", "names the namespace 'bad name'"),
    ("temporal://h:7233/ok?queue=", "names the queue"),
])
def test_an_address_that_does_not_fit_says_what_was_given_and_what_fits(text: str, says: str) -> None:
    with pytest.raises(Invalid) as caught:
        parse_target(text)
    assert says in str(caught.value) and text.strip() in str(caught.value)


def test_the_flag_comes_before_the_environment_and_in_process_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SEQDESK_EXECUTOR", raising=False)
    assert chosen_executor() is None and chosen_executor("in-process") is None
    monkeypatch.setenv("SEQDESK_EXECUTOR", "temporal://h:1/n")
    assert chosen_executor() == "temporal://h:1/n"
    assert chosen_executor("temporal://g:2/m") == "temporal://g:2/m"


async def test_a_temporal_service_that_does_not_answer_is_said_when_a_run_starts() -> None:
    from support.builders import group, seq

    from gui.core.errors import Unavailable
    from gui.memory import MemoryStores
    from gui.runtime import compose_engine
    from gui.tools import default_registry

    engine = compose_engine(default_registry(), MemoryStores(), executor="temporal://127.0.0.1:1/default")
    await engine.create(seq(group("g")))
    with pytest.raises(Unavailable, match=r"the Temporal service at 127.0.0.1:1 .* does not answer"):
        await engine.start("s", {})
    await engine.close()
