"""A game whose record was written before the turn message kept its tail, its turns, ⏳ More
time, the lobby's opener by name and the shuffle's commitment and deal: it plays on to its
end, and Play again opens the next one."""

from __future__ import annotations

import json
import random

from tests.bot.play import GROUP, open_and_start, play_to_end, players
from tests.telegram_sim.harness import running_bot

NEW_FIELDS = (
    "tail",
    "turns",
    "more_time",
    "creator_name",
    "commitment",
    "deal",
    "end_tells_last_turn",
)


async def test_a_game_kept_before_the_new_fields_plays_on_to_its_end(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        key = h.store.keys.game(game_id)
        raw = json.loads(await h.store.redis.get(key))
        for name in NEW_FIELDS:
            raw.pop(name, None)
        await h.store.redis.set(key, json.dumps(raw), keepttl=True)
        # Its player may still ask for more time, and the game goes on to its end.
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        answer = await h.press_text(actor, actor.id, h.tr("⏳ More time"))
        assert answer["text"] == h.tr("⏳ 30 seconds more. Only once per game.")
        await play_to_end(h, users, random.Random(3))
        await h.delivered(game_id)
        end = next(m for m in h.sim.messages(GROUP) if "🏆" in m.text)
        answer = await h.press_text(users[0], GROUP, h.tr("🆕 Play again"))
        assert answer["text"] == h.tr("🆕 New game opened.")
        await h.delivered(game_id)
        assert [b["text"] for b in end.buttons()] == [h.tr("📜 Replay")]
