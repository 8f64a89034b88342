"""AI seats in the lobby, and stats that count every finished game exactly once."""

from __future__ import annotations

import asyncio
import random

from tests.store_probe import deadline_of
from tests.telegram_sim.harness import running_bot
from tgbot.storage.history_store import HistoryStore

from .play import GROUP, open_lobby, play_to_end, players


async def test_creator_adds_ai_players_and_the_game_plays_out(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        creator, other = players(2)
        game_id = await open_lobby(h, [creator, other])
        answer = await h.press_text(other, GROUP, h.tr("🤖 Add AI"))
        assert answer["text"] == h.tr("Only the game's creator can add or remove AI players.")
        await h.press_text(creator, GROUP, h.tr("🤖 Add AI"))
        await h.press_text(creator, GROUP, h.tr("🤖 Add AI"))
        await h.press_text(creator, GROUP, h.tr("🤖 Remove AI"))
        await h.press_text(creator, GROUP, h.tr("🤖 Add AI"))
        record = await h.record(game_id)
        assert record is not None and [s.ai for s in record.players] == [False, False, True, True]
        assert all(s.name.startswith("🤖") for s in record.players if s.ai)
        await h.press_text(creator, GROUP, h.tr("▶️ Start"))
        await play_to_end(h, [creator, other], random.Random(8), only_humans=False)
        record = await h.record(game_id)
        assert record is not None and record.status == "over"
        game = record.game()
        # The AI players really played: they took actions of their own.
        assert any(p.id < 0 and (p.coins or p.revealed) for p in game.players)


async def test_ai_only_games_are_refused(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        (creator,) = players(1)
        game_id = await open_lobby(h, [creator])
        await h.press_text(creator, GROUP, h.tr("🤖 Add AI"))
        await h.press_text(creator, GROUP, h.tr("🤖 Add AI"))
        await h.press_text(creator, GROUP, h.tr("🚪 Leave"))
        answer = await h.press_text(creator, GROUP, h.tr("▶️ Start"))
        assert answer["text"] == h.tr("Only players in the lobby can start it.")
        record = await h.record(game_id)
        assert record is not None and record.status == "lobby"
        assert all(s.ai for s in record.players)


async def test_stats_count_once_even_if_the_last_update_comes_twice(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        a, b = players(2)
        game_id = await open_lobby(h, [a, b])
        await h.press_text(a, GROUP, h.tr("▶️ Start"))
        await h.until(lambda: any(h.sim.with_buttons(u.id) for u in (a, b)))
        # b leaves; the update that ends the game is delivered twice.
        update = h.message_update(b, GROUP, "/leave")
        assert (await h.post(update)).status_code == 200
        assert (await h.post(update)).status_code == 200
        await h.until(lambda: "🏆" in h.sim.text_of(GROUP))
        store = HistoryStore(h.store.redis, h.store.keys.prefix)
        for _ in range(500):  # counted once the game's deadline fired (right after the step)
            if await deadline_of(h.store, game_id) is None:
                break
            await asyncio.sleep(0.02)
        for user, won in ((a, 1), (b, 0)):
            stats = await store.person_stats(user.id)
            assert stats.get("played") == 1 and stats.get("won") == won
        await h.say(a, a.id, "/stats")
        assert h.tr("📊 {n} game played").split("{")[0] in h.sim.last(a.id).text
        await h.say(a, GROUP, "/top")
        top = h.sim.last(GROUP).text
        assert top.startswith(h.tr("🏆 Best players of this group (rating, games):"))
        assert a.first_name in top
        record = await h.record(game_id)
        assert record is not None and record.status == "over"
