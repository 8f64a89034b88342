"""How the Mini App opens (issue 29): a `web_app` button on the private prompt, the menu
button of every private chat, and in the group, where Telegram refuses `web_app` buttons,
the direct link t.me/<bot>/<short name>?startapp=<game>. Nothing of it without the config."""

from __future__ import annotations

from typing import Any

import pytest

from tests.bot.play import GROUP, open_and_start, players
from tests.telegram_sim.harness import SECRET, Harness, TgUser, running_bot
from tests.telegram_sim.server import BOT_USERNAME, TelegramSim
from tgbot.config import ConfigError, load_config

SHORT_NAME = "table"
PAGE = "https://coup.example.test/app"  # the tests' WEBHOOK_URL's origin + /app


def app_buttons(h: Harness, chat_id: int) -> list[dict[str, Any]]:
    """The buttons of a chat that open the Mini App: `web_app` ones and direct links."""
    return [
        b
        for m in h.sim.messages(chat_id)
        for b in m.buttons()
        if "web_app" in b or "t.me/" in str(b.get("url", ""))
    ]


async def claim_tax(h: Harness, users: list[TgUser]) -> TgUser:
    """The player whose turn it is claims the Duke (Tax): the group's turn message then
    carries the answers and its last rows."""
    actor = next(u for u in users if h.sim.with_buttons(u.id))
    prompt = h.sim.with_buttons(actor.id)[-1]
    await h.press(
        actor, actor.id, prompt.message_id, prompt.button(h.tr("👑 Tax"))["callback_data"]
    )
    await h.until(lambda: h.has_button(GROUP, h.tr("⚔️ Challenge")))
    return actor


async def test_the_prompt_the_menu_and_the_group_open_the_mini_app(any_redis_url: str) -> None:
    async with running_bot(any_redis_url, webapp_short_name=SHORT_NAME) as h:
        # Set once at start-up, for every private chat: the page on the user's own game.
        assert h.sim.menu_buttons == {
            None: {"type": "web_app", "text": h.tr("🃏 Table"), "web_app": {"url": PAGE}}
        }
        users = players(3)
        game_id = await open_and_start(h, users)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        prompt = h.sim.with_buttons(actor.id)[-1]
        # The turn prompt's last row: the Mini App on this very game.
        assert prompt.keyboard is not None
        assert prompt.keyboard[-1] == [
            {"text": h.tr("🃏 Table"), "web_app": {"url": f"{PAGE}?game={game_id}"}}
        ]
        await claim_tax(h, users)
        turn = h.sim.with_buttons(GROUP)[-1]
        assert turn.keyboard is not None
        link = f"https://t.me/{BOT_USERNAME}/{SHORT_NAME}?startapp={game_id}"
        assert turn.keyboard[-1] == [{"text": h.tr("🃏 Table"), "url": link}]
        # The group never got a web_app button (Telegram would refuse the whole message).
        assert not [b for b in turn.buttons() if "web_app" in b]
        assert not [c for c in h.sim.calls_to(GROUP) if c.status == 400]


async def test_without_the_config_no_mini_app_button_appears(any_redis_url: str) -> None:
    async with running_bot(any_redis_url) as h:
        users = players(3)
        await open_and_start(h, users)
        assert [b for u in users for b in app_buttons(h, u.id)] == []  # the prompts
        await claim_tax(h, users)
        assert h.sim.menu_buttons == {}
        assert not [c for c in h.sim.calls if c.method == "setChatMenuButton"]
        assert app_buttons(h, GROUP) == []
        # The turn message ends as before: 👁 My cards (and ⏳ More time).
        turn = h.sim.with_buttons(GROUP)[-1]
        assert turn.keyboard is not None
        assert turn.keyboard[-1][0]["text"] == h.tr("👁 My cards")


async def test_a_page_address_alone_gives_private_buttons_but_no_group_link(
    any_redis_url: str,
) -> None:
    page = "https://cards.example.test/coup/app"
    async with running_bot(any_redis_url, webapp_url=page) as h:
        assert h.sim.menu_buttons[None]["web_app"] == {"url": page}
        users = players(2)
        game_id = await open_and_start(h, users)
        private = [b for u in users for b in app_buttons(h, u.id)]
        assert private and all(b["web_app"] == {"url": f"{page}?game={game_id}"} for b in private)
        await claim_tax(h, users)
        assert app_buttons(h, GROUP) == []  # no short name: no direct link


def test_the_simulated_telegram_refuses_web_app_buttons_in_groups() -> None:
    sim = TelegramSim()
    markup = {"inline_keyboard": [[{"text": "x", "web_app": {"url": PAGE}}]]}
    status, body = sim.handle(
        "sendMessage", {"chat_id": GROUP, "text": "t", "reply_markup": markup}
    )
    assert (status, body["description"]) == (400, "Bad Request: BUTTON_TYPE_INVALID")
    status, _ = sim.handle("sendMessage", {"chat_id": 42, "text": "t", "reply_markup": markup})
    assert status == 200


def test_the_mini_app_settings() -> None:
    env = {
        "BOT_TOKEN": "1:x",
        "WEBHOOK_URL": "https://bot.example.test/hook",
        "WEBHOOK_SECRET": SECRET,
    }
    assert load_config(env).mini_app_url is None  # nothing set: no Mini App
    on = load_config({**env, "WEBAPP_SHORT_NAME": "coup"})
    assert (on.webapp_short_name, on.mini_app_url) == ("coup", "https://bot.example.test/app")
    own = load_config({**env, "WEBAPP_URL": "https://cards.example.test/app"})
    assert own.mini_app_url == "https://cards.example.test/app"
    for bad, names in [
        ({"WEBAPP_URL": "http://cards.example.test/app"}, "WEBAPP_URL"),
        ({"WEBAPP_SHORT_NAME": "a b"}, "WEBAPP_SHORT_NAME"),
    ]:
        with pytest.raises(ConfigError, match=names):
            load_config({**env, **bad})
    with pytest.raises(ConfigError, match="WEBAPP_URL"):  # polling: no origin to default to
        load_config({"BOT_TOKEN": "1:x", "WEBAPP_SHORT_NAME": "coup"})
