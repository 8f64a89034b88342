"""Who has the Mini App open on a game: one lease per process for all its pages, so that
an idle page costs Redis nothing, and a killed process's pages stop counting (issue 39)."""

from __future__ import annotations

import asyncio
import time

from tgbot.storage.store import Store

GAME = "presence01"


async def test_a_page_counts_while_its_process_holds_the_lease_and_until_it_closes(
    store: Store,
) -> None:
    app = store.app
    await app.pages_alive("procA", 5_000)
    await app.here(GAME, 1, "s1", "procA", 600)
    await app.here(GAME, 2, "s2", "procA", 600)
    assert await app.present(GAME) == {1, 2}
    await app.gone(GAME, 1, "s1", "procA")
    assert await app.present(GAME) == {2}


async def test_a_killed_process_s_pages_stop_counting_when_its_lease_ends(
    store: Store,
) -> None:
    # Process B was killed: its pages never said they closed, and its lease is not
    # renewed. Once the lease ends they no longer count (their notes are dropped); the
    # pages of the live process still do.
    app = store.app
    await app.pages_alive("procA", 5_000)
    await app.pages_alive("procB", 200)
    await app.here(GAME, 1, "s1", "procA", 600)
    await app.here(GAME, 2, "s2", "procB", 600)
    assert await app.present(GAME) == {1, 2}
    await asyncio.sleep(0.3)
    assert await app.present(GAME) == {1}
    members = await store.redis.zrange(store.keys.app_present(GAME), 0, -1)
    assert members == ["1:s1:procA"]


async def test_an_older_version_s_note_counts_until_it_lapses(store: Store) -> None:
    # A page noted by the version before (`<person>:<stream>`, scored by when it lapses)
    # during a rolling start: it counts until then, without any lease.
    key = store.keys.app_present(GAME)
    now_ms = int(time.time() * 1000)
    await store.redis.zadd(key, {"7:old": now_ms + 60_000, "8:old": now_ms - 1})
    assert await store.app.present(GAME) == {7}
