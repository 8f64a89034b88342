"""Two writers at once on a group's settings or on a rating board: both count. Storage
gives a block what it read and commits what the block set; a commit that finds its read
out of date raises Stale, and the caller's operation is run again whole (`retried`)."""

from __future__ import annotations

import asyncio

from tgbot.storage.commit import retried
from tgbot.storage.history_store import Rated
from tgbot.storage.store import Store

GROUP = -100778
SCOPE = "c:-100778"


async def test_two_changes_of_a_groups_settings_at_once_both_count(store: Store) -> None:
    both_read = asyncio.Barrier(2)
    attempts: list[str] = []

    @retried
    async def change(key: str, value: str) -> None:
        async with store.prefs.settings_transaction(GROUP, None) as (current, tx):
            attempts.append(key)
            if attempts.count(key) == 1:
                await both_read.wait()  # each read before either writes
            tx.settings({**current, key: value})

    await asyncio.gather(change("turn", "90"), change("lang", "en"))
    assert await store.prefs.chat_settings(GROUP) == {"turn": "90", "lang": "en"}
    assert len(attempts) == 3  # one of the two found its read out of date, and ran again


async def test_two_games_counted_on_one_board_at_once_both_count(store: Store) -> None:
    both_read = asyncio.Barrier(2)
    attempts: list[str] = []

    @retried
    async def count(game_id: str, end_ms: int) -> None:
        async with store.history.rating_round(SCOPE, game_id, end_ms, 10**9, ["7"]) as board:
            attempts.append(game_id)
            if attempts.count(game_id) == 1:
                await both_read.wait()
            assert not board.counted
            old = board.seen["7"]
            games = (old.games if old is not None else 0) + 1
            board.new = [(Rated("7", 25.0, 8.0, games, 0, "Nino"), False, 1.0)]

    await asyncio.gather(count("game1", 1_000), count("game2", 2_000))
    rated = await store.history.rating(SCOPE, "7")
    assert rated is not None and rated.games == 2
    assert await store.history.latest_of_scope(SCOPE, 5) == ["game2", "game1"]
    assert len(attempts) == 3

    # Counted again (a retry after a crash): the board says so, and nothing is written.
    async with store.history.rating_round(SCOPE, "game1", 1_000, 10**9, ["7"]) as board:
        assert board.counted
        board.new = [(Rated("7", 1.0, 1.0, 99, 99, "Nino"), False, 1.0)]
    again = await store.history.rating(SCOPE, "7")
    assert again is not None and again.games == 2
