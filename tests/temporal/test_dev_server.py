"""The session's Temporal dev server serves on loopback: a client connects and finds its namespace."""

from __future__ import annotations

from support.temporal import TemporalServer


async def test_the_dev_server_answers_on_loopback(temporal_server: TemporalServer) -> None:
    from temporalio.client import Client

    client = await Client.connect(temporal_server.address, namespace=temporal_server.namespace)
    assert await client.service_client.check_health()
    assert temporal_server.url.startswith("temporal://127.0.0.1:")
