"""Preferences (dark mode, language, phone access…) on a team's database: kept in its table, read back
by the next process that opens it, written in the order they were made (from any thread)."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from gui.runtime import open_database_runtime

pytestmark = pytest.mark.postgres


async def test_preferences_outlive_the_process_that_chose_them(seqdesk_database_url):
    first = await open_database_runtime(seqdesk_database_url)
    try:
        chosen = first.preferences("preferences")
        assert chosen.read() == {} and chosen.problem is None
        assert chosen.update(dark=True, lang="zh") == {"dark": True, "lang": "zh"}
        for n in range(30):  # many changes at once: the last one is what is kept
            chosen.update(count=n)
        await asyncio.to_thread(chosen.update, lang=None)  # from a worker thread too
        first.preferences("paired-phones").replace({"phones": []})
        assert chosen.read() == {"dark": True, "count": 29}
    finally:
        await first.close()
    second = await open_database_runtime(seqdesk_database_url)
    try:
        assert second.preferences("preferences").read() == {"dark": True, "count": 29}
        assert second.preferences("paired-phones").read() == {"phones": []}
        assert second.preferences("never-chosen").read() == {}
    finally:
        await second.close()


async def test_a_kept_object_that_is_not_an_object_starts_empty_with_a_sentence(seqdesk_database_url):
    with psycopg.connect(seqdesk_database_url, autocommit=True) as conn:
        conn.execute("INSERT INTO preferences (name, doc) VALUES ('preferences', '[1, 2]')")
    runtime = await open_database_runtime(seqdesk_database_url)
    try:
        prefs = runtime.preferences("preferences")
        assert prefs.read() == {}
        assert prefs.problem is not None and "not an object" in prefs.problem
    finally:
        await runtime.close()
