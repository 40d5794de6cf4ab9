"""The tests' PostgreSQL (tests/support/postgres.py): a real server, a fresh database per test."""

from __future__ import annotations

import psycopg
import pytest

pytestmark = pytest.mark.postgres


def test_each_test_gets_an_empty_database_that_keeps_jsonb(postgres_url: str):
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
        assert tables == (0,)
        conn.execute("CREATE TABLE t (doc jsonb)")
        conn.execute("INSERT INTO t VALUES ('{\"a\": [1, 2]}')")
        assert conn.execute("SELECT doc->'a'->>1 FROM t").fetchone() == ("2",)


def test_two_databases_of_one_server_are_apart(postgres_server):
    first, second = postgres_server.create_database(), postgres_server.create_database()
    try:
        with psycopg.connect(first, autocommit=True) as conn:
            conn.execute("CREATE TABLE only_here (x int)")
        with psycopg.connect(second, autocommit=True) as conn:
            assert conn.execute("SELECT to_regclass('only_here')").fetchone() == (None,)
    finally:
        postgres_server.drop_database(first)
        postgres_server.drop_database(second)
