"""Preferences (dark mode, language, phone access…) on a team's database: kept in its table, read back
by the next process that opens it, written in the order they were made (from any thread), and read
again at once by the team's other processes, which tell what watches them."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from support.waiting import wait_until

from gui.runtime import open_database_runtime

pytestmark = pytest.mark.postgres
T = 30.0  # waits on another process's notice, on a loaded machine


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


async def test_a_choice_made_in_one_process_is_read_by_the_others_at_once_and_told_to_their_watchers(
        seqdesk_database_url):
    here = await open_database_runtime(seqdesk_database_url)
    there = await open_database_runtime(seqdesk_database_url)
    try:
        assert there.database is not None
        watched = there.preferences("preferences")
        assert watched.read() == {}  # read before the choice: held in memory there
        told: list[str] = []
        there.database.preferences.watch(told.append)
        here.preferences("preferences").update(dark=True, lang="zh")
        await wait_until(lambda: watched.read() == {"dark": True, "lang": "zh"}, "the other process reads it again",
                         timeout=T)
        assert told == ["preferences"]
        here.preferences("preferences").update(lang=None)
        await wait_until(lambda: watched.read() == {"dark": True}, "a removed key reaches it too", timeout=T)
        assert here.preferences("preferences").read() == {"dark": True}  # and no echo undid it here
    finally:
        await here.close()
        await there.close()
