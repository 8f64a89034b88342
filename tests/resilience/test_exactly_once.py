"""The same update delivered to two processes at once has exactly one effect: one reply."""

from __future__ import annotations

import asyncio

from tests.bot.play import GROUP, players
from tests.telegram_sim.harness import TgUser, running_bot


async def test_every_command_delivered_twice_at_once_replies_once(redis_server_url: str) -> None:
    async with running_bot(redis_server_url, instances=2) as h:
        a, b = players(2)
        h.sim.admins.add((GROUP, a.id))
        urls = h.urls  # type: ignore[attr-defined]
        game: list[str] = []

        async def twice(user: TgUser, chat: int, text: str) -> int:
            """Deliver one update to both processes at once; return the new messages."""
            sent = len([c for c in h.sim.calls_to(chat, "sendMessage") if c.status == 200])
            update = h.message_update(user, chat, text)
            results = await asyncio.gather(*(h.post(update, url=url) for url in urls))
            assert [r.status_code for r in results] == [200, 200], text
            await h.replied(chat)
            record = await h.record_of_chat(GROUP)
            if record is not None:
                game[:] = [record.id]
            if game:
                await h.delivered(game[0])
            calls = h.sim.calls_to(chat, "sendMessage")
            return len([c for c in calls if c.status == 200]) - sent

        for user in (a, b):
            assert await twice(user, user.id, "/start") == 1
        # /rules in private outside a game is two messages: the base game, then the variants.
        replies = {"/help": 1, "/rules": 2, "/stats": 1, "/language": 1, "/leave": 1}
        for command, messages in replies.items():
            assert await twice(a, a.id, command) == messages, command
        for command in ("/help", "/rules", "/top", "/settings", "/board", "/join", "/cancel"):
            assert await twice(a, GROUP, command) == 1, command  # no game yet: one line each
        assert await twice(a, GROUP, "/newgame") == 1  # the lobby
        assert await twice(a, GROUP, "/newgame") == 1  # "a game is already open"
        assert await twice(b, GROUP, "/join") == 1  # "you joined"; the lobby is edited
        stranger = TgUser(4343, "Stranger")  # never opened the bot: a deep link, once
        assert await twice(stranger, GROUP, "/join") == 1
        link = h.sim.last(GROUP).button(h.tr("🤖 Open the bot"))
        assert link["url"] == f"https://t.me/coup_test_bot?start=j{game[0]}"
        assert await twice(a, GROUP, "/board") == 1
        assert await twice(b, GROUP, "/leave") == 1
        assert await twice(b, b.id, f"/start j{game[0]}") == 1  # welcome and joined, one message
        record = await h.record(game[0])
        assert record is not None and [s.id for s in record.players] == [a.id, b.id]
        assert await twice(b, b.id, "/leave") == 1
        assert await twice(b, GROUP, "/startgame") == 1  # not in the lobby: told so once
        assert await twice(b, GROUP, "/cancel") == 1  # neither creator nor admin
        assert await twice(a, GROUP, "/cancel") == 0  # the lobby is edited, nothing new
        record = await h.record(game[0])
        assert record is not None and record.status == "cancelled"
        lobby = [m for m in h.sim.messages(GROUP) if m.text.startswith(h.tr("✖️"))]
        assert len(lobby) == 1
