"""Hostile webhook input: wrong secrets, broken, odd or forged updates change nothing."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from tests.bot.play import GROUP, open_and_start, players
from tests.telegram_sim.harness import SECRET, Harness, TgUser, running_bot


async def test_wrong_or_missing_secret_is_403(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        user = TgUser(7, "Mallory")
        update = h.message_update(user, -55, "/newgame")
        assert (await h.post(update, secret="wrong")).status_code == 403
        assert (await h.post(update, secret=None)).status_code == 403
        assert (await h.post(update, secret=SECRET + "x")).status_code == 403
        assert await h.record_of_chat(-55) is None
        assert h.sim.messages(-55) == []


async def test_malformed_and_oversized_bodies_are_dropped(redis_server_url: str) -> None:
    # They carry the secret, so they came from Telegram: anything but 200 brings them back.
    async with running_bot(redis_server_url) as h:
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
        for body in (b"{not json", b"[1, 2, 3]", b'{"no_update_id": 1}', b'{"update_id": "x"}'):
            response = await h.http.post(h.url, content=body, headers=headers)
            assert response.status_code == 200, body
        huge = b'{"update_id": 1, "pad": "' + b"x" * (2 << 20) + b'"}'
        response = await h.http.post(h.url, content=huge, headers=headers)
        assert response.status_code == 413
        assert h.sim.calls_to(-55) == []
        assert [c.method for c in h.sim.calls if c.method == "sendMessage"] == []


async def test_an_update_telegram_sent_but_we_cannot_read_is_dropped(
    redis_server_url: str,
) -> None:
    # With the right secret it came from Telegram: refusing it would only bring it back.
    async with running_bot(redis_server_url) as h:
        unreadable = {"update_id": 77, "message": {"message_id": 1, "chat": "not a chat"}}
        response = await h.post(unreadable)
        assert response.status_code == 200
        assert [c for c in h.sim.calls if c.method == "sendMessage"] == []
        user = TgUser(7, "Nino")
        assert (await h.post(h.message_update(user, user.id, "/start"))).status_code == 200
        await h.until(lambda: bool(h.sim.messages(user.id)))


async def test_health_endpoint_answers(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        response = await h.http.get(h.url.replace("/telegram", "/healthz"))
        assert response.status_code == 200 and response.json() == {"ok": True}


# ---- the battery: every kind of update that passed the secret but cannot be used ------

BOOKKEEPING = (":throttle:", ":seen", ":u:", ":sends:", ":sending", ":pending")


@contextlib.contextmanager
def logged() -> Iterator[list[logging.LogRecord]]:
    """Every record logged meanwhile, the bot's and uvicorn's (which does not propagate)."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    keep = Keep(logging.DEBUG)
    loggers = [logging.getLogger(), logging.getLogger("uvicorn")]
    for logger in loggers:
        logger.addHandler(keep)
    try:
        yield records
    finally:
        for logger in loggers:
            logger.removeHandler(keep)


async def stored(h: Harness) -> dict[str, Any]:
    """Everything the bot keeps in Redis, but for its bookkeeping (marks, rate windows)."""
    redis = h.store.redis
    state: dict[str, Any] = {}
    for key in sorted(await redis.keys(f"{h.config.key_prefix}:*")):
        if any(part in key for part in BOOKKEEPING):
            continue
        kind = await redis.type(key)
        if kind == "string":
            state[key] = await redis.get(key)
        elif kind == "hash":
            state[key] = await redis.hgetall(key)
        elif kind == "list":
            state[key] = await redis.lrange(key, 0, -1)
        elif kind == "set":
            state[key] = sorted(await redis.smembers(key))
        else:
            state[key] = await redis.zrange(key, 0, -1, withscores=True)
    return state


def screens(h: Harness, *chats: int) -> list[tuple[int, int, str, Any]]:
    """What the chats show, to check that nothing was edited."""
    return [(c, m.message_id, m.text, m.keyboard) for c in chats for m in h.sim.messages(c)]


def nested(depth: int) -> bytes:
    return b'{"update_id": 1, "message": ' + b"[" * depth + b"]" * depth + b"}"


async def test_hostile_updates_answer_200_log_once_and_change_nothing(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        record = await h.record(game_id)
        assert record is not None
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        prompt = h.sim.with_buttons(actor.id)[-1]
        steal = prompt.button(h.tr("🏴 Steal"))["callback_data"]
        income = prompt.button(h.tr("💰 Income"))["callback_data"]
        back = f"{game_id}.{record.context}.tb"
        table = h.sim.messages(GROUP)[-1].message_id
        next_id = h.updates.next_id

        def press(data: Any, chat: int, message_id: int, user: TgUser = actor) -> dict:
            return h.updates.press(user, chat, message_id, data)

        def raw_press(**query: Any) -> dict:
            return {"update_id": next_id(), "callback_query": query}

        inline = press(f"{game_id}.0.X", GROUP, table)
        del inline["callback_query"]["message"]
        inline["callback_query"]["inline_message_id"] = "AAAA"
        text_as_number = h.message_update(actor, GROUP, "/help")
        text_as_number["message"]["text"] = 5
        id_as_text = h.message_update(actor, GROUP, "/help")
        id_as_text["message"]["from"]["id"] = "1000"
        surrogate_name = press("nonsense", actor.id, prompt.message_id, TgUser(actor.id, "\ud800"))
        name_as_number = press("nonsense", actor.id, prompt.message_id)
        name_as_number["callback_query"]["from"]["first_name"] = 5
        h.sim.admins.add((GROUP, actor.id))  # so that only the message can make it invalid

        # (what, body, whether the bot logs that it dropped it)
        cases: list[tuple[str, bytes | dict, bool]] = [
            ("JSON nested 200,000 deep", nested(200_000), True),
            ("not JSON", b"{not json", True),
            ("not UTF-8", b'{"update_id": 3, "x": "\xff\xfe"}', True),
            ("a list", b"[1, 2, 3]", True),
            ("no update_id", b'{"no_update_id": 1}', True),
            ("update_id a string", b'{"update_id": "x"}', True),
            ("update_id true", b'{"update_id": true}', True),
            ("callback_query a string", raw_press() | {"callback_query": "x"}, True),
            ("callback_query a number", raw_press() | {"callback_query": 5}, True),
            ("callback_query a list", raw_press() | {"callback_query": [1]}, True),
            ("callback_query without fields", raw_press(id="q"), True),
            ("callback_query without a sender", raw_press(id="q", chat_instance="c"), True),
            ("message a string", {"update_id": next_id(), "message": "hi"}, True),
            ("chat a string", {"update_id": next_id(), "message": {"chat": "x"}}, True),
            ("user id a string", id_as_text, True),
            ("text a number", text_as_number, False),
            ("data a number", press(5, actor.id, prompt.message_id), False),
            ("lone surrogate in button data", press("\udcff.0.X", actor.id, 1), False),
            ("lone surrogate in a name", surrogate_name, False),
            ("a name that is a number", name_as_number, False),
            ("settings button on the table message", press("cfg.turn", GROUP, table), False),
            ("picker on a group message", press(steal, GROUP, table), False),
            ("Back on a group message", press(back, GROUP, table), False),
            ("decision on a group message", press(income, GROUP, table), False),
            ("lobby button in a private chat", press(f"{game_id}.0.X", actor.id, 1), False),
            ("lobby button on an inline message", inline, False),
            ("picker on a message that is gone", press(steal, actor.id, 987654), True),
            (
                "picker on a message too old to edit",
                press(steal, actor.id, prompt.message_id),
                True,
            ),
            ("a poll without its fields", {"update_id": next_id(), "poll": {"id": 5}}, True),
        ]
        for what, body, drop_logged in cases:
            prompt.editable = what != "picker on a message too old to edit"
            before, shown = await stored(h), screens(h, GROUP, actor.id)
            with logged() as records:
                response = await h.post_raw(body)
                await h.delivered(game_id)
                await h.replied(GROUP)
            assert response.status_code == 200, (what, response.text)
            assert not [r for r in records if r.exc_info or "Traceback" in r.getMessage()], what
            loud = [r.getMessage() for r in records if r.levelno >= logging.WARNING]
            assert len(loud) == (1 if drop_logged else 0), (what, loud)
            assert await stored(h) == before, what
            assert screens(h, GROUP, actor.id) == shown, what
        # Refused before they are read: no secret, or too big to be an update.
        huge = b'{"update_id": 1, "pad": "' + b"x" * (2 << 20) + b'"}'
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
        for what, request, status in (
            ("no secret", h.http.post(h.url, json=press(income, actor.id, 1)), 403),
            ("wrong secret", h.post(press(income, actor.id, 1), secret="x"), 403),
            ("oversized", h.http.post(h.url, content=huge, headers=headers), 413),
        ):
            before = await stored(h)
            with logged() as records:
                response = await request
            assert response.status_code == status, what
            assert not [r for r in records if r.levelno >= logging.WARNING], what
            assert await stored(h) == before, what
        # The game goes on as if nothing happened.
        answer = await h.press(actor, actor.id, prompt.message_id, income)
        assert answer["text"] == h.tr("✔️ Done.")


async def test_names_are_cleaned_before_they_are_stored_or_sent(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        dirty = TgUser(8100, "Ev\u202eil\ud800\u0007 \n Nino" + "x" * 80)
        for text in ("/start", "/start j\ud800"):  # a lone surrogate in the deep link too
            with logged() as records:
                response = await h.post_raw(h.message_update(dirty, dirty.id, text))
            assert response.status_code == 200
            assert not [r for r in records if r.levelno >= logging.WARNING], text
        await h.replied(dirty.id)
        assert h.sim.last(dirty.id).text == h.sim.messages(dirty.id)[0].text  # the welcome
        await h.post_raw(h.message_update(dirty, GROUP, "/newgame"))
        record = None
        await h.until(lambda: h.has_button(GROUP, h.tr("✋ Join")))
        record = await h.record_of_chat(GROUP)
        assert record is not None
        clean = "Evil Nino" + "x" * 31
        assert [s.name for s in record.players] == [clean]
        assert clean in h.sim.last(GROUP).text
        prefs = await h.store.prefs.user_prefs(dirty.id)
        assert prefs["name"] == clean
