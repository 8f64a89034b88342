"""Concurrent presses on one window, two processes, and Redis going away mid-game."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from tests.bot.play import GROUP, first_income_press, open_and_start, play_to_end, players
from tests.redis_server import binary_for_tests
from tests.telegram_sim.harness import SECRET, Harness, TgUser, running_bot
from tgbot.storage.embedded import EmbeddedRedis


async def claim_tax(h: Harness, users: list[TgUser]) -> tuple[TgUser, list[TgUser]]:
    """The player to move claims Tax; them, and the others, who may answer at the table."""
    actor = next(u for u in users if h.sim.with_buttons(u.id))
    await h.press_text(actor, actor.id, h.tr("👑 Tax"))
    await h.until(lambda: bool(h.sim.with_buttons(GROUP)))
    return actor, [u for u in users if u != actor]


async def answer_at_once(h: Harness, others: list[TgUser], label: str) -> list[str]:
    """Each of `others` presses `label` on the group's turn message at the same moment,
    alternately on the two processes; the answers they get, in their order."""
    turn_message = h.sim.with_buttons(GROUP)[-1]  # the answers are at the table
    data = turn_message.button(h.tr(label))["callback_data"]
    presses = []
    for i, u in enumerate(others):
        update = h.press_update(u, GROUP, turn_message.message_id, data)
        url = h.urls[i % 2]  # type: ignore[attr-defined]
        presses.append((update["callback_query"]["id"], h.post(update, url=url)))
    results = await asyncio.gather(*(p for _, p in presses))
    assert all(r.status_code == 200 for r in results)
    return [h.sim.callback_answers[cb]["text"] for cb, _ in presses]


async def test_concurrent_presses_on_one_window_apply_exactly_one(any_redis_url: str) -> None:
    async with running_bot(any_redis_url, instances=2) as h:
        users = players(4)
        game_id = await open_and_start(h, users)
        _, others = await claim_tax(h, users)
        answers = await answer_at_once(h, others, "⚔️ Challenge")
        assert answers.count(h.tr("✔️ Done.")) == 1, answers
        # The window closed with the first challenge: the others hear it was already answered.
        assert answers.count(h.tr("Already answered.")) == len(others) - 1, answers
        record = await h.record(game_id)
        assert record is not None and record.game().version == 2  # the action, one challenge


async def test_concurrent_passes_on_one_window_all_apply_once(any_redis_url: str) -> None:
    """Every Pass is legal and each is its own decision: pressed at the same moment on two
    processes, every one is applied once (a press that lost the compare-and-set is run
    again, whole, on the newer record), and the window closes with the last."""
    async with running_bot(any_redis_url, instances=2) as h:
        users = players(5)
        game_id = await open_and_start(h, users)
        actor, others = await claim_tax(h, users)
        before = await h.record(game_id)
        assert before is not None
        answers = await answer_at_once(h, others, "✅ Pass")
        assert answers == [h.tr("✔️ Done.")] * len(others), answers
        after = await h.record(game_id)
        assert after is not None
        # The claim, then one Pass each: the Tax stands and the turn has moved on.
        assert len(after.moves) == len(before.moves) + len(others)
        assert after.game().player(actor.id).coins == 2 + 3


async def test_two_processes_sharing_updates_finish_a_game(any_redis_url: str) -> None:
    async with running_bot(any_redis_url, instances=2) as h:
        users = players(4)
        await open_and_start(h, users)
        urls = h.urls  # type: ignore[attr-defined]
        original_post = h.post
        turn = iter(range(10**9))

        async def spread(update: dict, secret: str | None = SECRET):  # type: ignore[no-untyped-def]
            h.url = urls[next(turn) % 2]
            return await original_post(update, secret)

        h.post = spread  # type: ignore[method-assign]
        await play_to_end(h, users, random.Random(12))
        assert "🏆" in h.sim.text_of(GROUP)


@pytest.mark.expect_log(r"not applied, storage unavailable")
async def test_redis_outage_gives_5xx_and_the_bot_recovers(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "redis", persistent=True, binary=binary_for_tests())
    url = server.start()
    try:
        async with running_bot(url) as h:
            users = players(2)
            game_id = await open_and_start(h, users)
            _, update = first_income_press(h, users)
            await asyncio.to_thread(server.stop)  # the bot runs in this event loop meanwhile
            response = await h.post(update)
            assert response.status_code == 503
            health = await h.http.get(h.url.replace("/telegram", "/healthz"))
            assert health.status_code == 503
            await asyncio.to_thread(server.start)
            for _ in range(100):  # Telegram retries the same update until it gets a 200
                response = await h.post(update)
                if response.status_code == 200:
                    break
                await asyncio.sleep(0.1)
            assert response.status_code == 200
            record = await h.record(game_id)
            assert record is not None and record.game().version == 1
            assert h.sim.callback_answers[update["callback_query"]["id"]]["text"] == h.tr("✔️ Done.")
    finally:
        server.stop()
