"""Three players play a whole game only through the Mini App, in a real browser (Debian's
Chromium, driven by Playwright), once in Georgian and once in English. At every step each
page's header says what its reader must decide now ("Your turn", "You are asked:
challenge?", "Choose a card to lose", ...) or whom the game waits for, never "waiting for
<you>"; the question stands over the choices; the last lines of the game are at the top; an
action with targets opens its targets, each with their coins and face-down cards. The lobby
and the end message link to the page. Screenshots are kept under tests/artefacts/."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tests.bot.play import GROUP, open_and_start
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tests.webapp.browser import chromium_or_skip, playwright_or_skip
from tests.webapp.client import Page
from tests.webapp.test_browser import Browser
from tgbot.engine import (
    Block,
    Challenge,
    DecisionKind,
    KeepCards,
    PlayerView,
    Window,
    view_of,
)
from tgbot.service.records import PLAYING

NAMES = {"ka": ["ნინო", "გიორგი", "თამარ"], "en": ["Nino", "Giorgi", "Tamar"]}
SHORT_NAME = "table"
PAGE_URL = "https://coup.example.test/app"
LINK = f"/{SHORT_NAME}?startapp="


def own_header(h: Harness, lang: str, view: PlayerView) -> str:
    """What the header must say to the reader whose decision it is (from the catalogue)."""
    t = h.catalogs.get(lang)
    kind = view.awaiting.kind
    if kind is DecisionKind.TURN:
        return t.gettext("▶️ Your turn")
    if kind is DecisionKind.RESPONSE:
        challenge = any(isinstance(d, Challenge) for d in view.legal)
        block = any(isinstance(d, Block) for d in view.legal)
        if view.awaiting.window is Window.BLOCK_CHALLENGE:
            return t.gettext("❓ You are asked: challenge the block?")
        if challenge and block:
            return t.gettext("❓ You are asked: challenge, block or pass?")
        if challenge:
            return t.gettext("❓ You are asked: challenge?")
        return t.gettext("❓ You are asked: block?")
    if kind is DecisionKind.LOSE_CARD:
        return t.gettext("🔻 Choose a card to lose")
    assert kind is DecisionKind.EXCHANGE, kind  # the base game has no Examine
    keep = next(len(d.cards) for d in view.legal if isinstance(d, KeepCards))
    return t.ngettext("🔄 Keep {n} card", "🔄 Keep {n} cards", keep).format(n=keep)


def own_question(h: Harness, lang: str, view: PlayerView) -> str | None:
    """The question over the reader's choices (None: the header asks it)."""
    t = h.catalogs.get(lang)
    kind = view.awaiting.kind
    if kind is DecisionKind.TURN:
        if all(getattr(d, "action", None) and d.action.value == "coup" for d in view.legal):
            return t.gettext("💥 You have 10 or more coins: you must stage a Coup. Against whom?")
        return t.gettext("Choose an action:")
    if kind is DecisionKind.LOSE_CARD:
        return t.gettext("🔻 Choose a card to turn face up:")
    if kind is DecisionKind.EXCHANGE:
        n = len(view.my_cards)
        return t.ngettext("Choose which card to keep:", "Choose which cards to keep:", n)
    return None


def links_of(call: Any) -> list[str]:
    """The URL buttons of a sendMessage call to the simulated Telegram."""
    raw = call.params.get("reply_markup") or {}
    markup = json.loads(raw) if isinstance(raw, str) else raw
    return [b["url"] for row in markup.get("inline_keyboard", []) for b in row if "url" in b]


async def text(page: Any, selector: str) -> str:
    return str(await page.locator(selector).text_content() or "")


async def choose(page: Any, rng: random.Random, shoot: Any) -> None:
    """Tap a random choice; an action with targets first opens its targets, then one is
    tapped (each target shows its coins and face-down cards)."""
    choices = page.locator("#decisions button.decision")
    chosen = choices.nth(rng.randrange(await choices.count()))
    if "pick" in (await chosen.get_attribute("class") or ""):
        label = await chosen.text_content()
        await chosen.click()
        targets = page.locator("#decisions button.target")
        await targets.first.wait_for()
        await shoot()
        # The target picker asks its question and can go back.
        question = await text(page, "#question")
        assert question and question != label
        first = targets.first
        assert "🪙" in await text(first.locator(".coins"), ":scope")
        assert await first.locator(".back").count() in (1, 2)
        if await page.locator("#decisions button.goback").count():
            await page.locator("#decisions button.goback").click()
            await page.locator("#decisions button.pick").first.wait_for()
            await page.locator("#decisions button.decision", has_text=label or "").click()
            await targets.first.wait_for()
        chosen = targets.nth(rng.randrange(await targets.count()))
    await chosen.click()


async def play_in_pages(
    h: Harness, b: Browser, lang: str, users: list[TgUser], pages: list[Any]
) -> int:
    """Play to the end, every decision tapped in a page; check every page at each step."""
    rng = random.Random(39)
    names = {u.id: u.first_name for u in users}
    shot: set[str] = set()
    steps = 0
    while True:
        await h.delivered(b.game_id, held=False)
        record = await h.record(b.game_id)
        assert record is not None
        if record.status != PLAYING:
            return steps
        game = record.game()
        awaited = set(game.awaiting().players)
        for u, page in zip(users, pages, strict=True):
            await b.drawn(page, record.rev)
            header = await text(page, "#header")
            mine = await page.locator("#act").get_attribute("data-mine") == "true"
            view = view_of(game, u.id)
            if u.id in awaited:
                assert mine, (u.first_name, header)
                assert header == own_header(h, lang, view), (u.first_name, header)
                wanted = own_question(h, lang, view)
                question = page.locator("#question")
                if wanted is None:
                    assert await question.is_hidden()
                else:
                    assert await text(page, "#question") == wanted
                assert await page.locator("#decisions button.decision").count() > 0
                await page.locator("#clock").wait_for(state="visible", timeout=5_000)
                assert any(ch.isdigit() for ch in await text(page, "#left"))
            else:
                assert not mine, (u.first_name, header)
                assert await page.locator("#decisions button").count() == 0
                # Whom the game waits for, by name, never this reader.
                assert names[u.id] not in header or u.id in awaited
                shown_names = [names[p] for p in awaited]
                if len(awaited) == 1:
                    assert shown_names[0] in header, header
            # The game's latest lines are at the top, the newest last.
            recent = [str(x) for x in await page.locator("#recent li").all_text_contents()]
            log = [str(x) for x in await page.locator("#log li").all_text_contents()]
            assert 1 <= len(recent) <= 3 and recent == log[-len(recent) :]
        actor = rng.choice(sorted(awaited))
        i = next(i for i, u in enumerate(users) if u.id == actor)
        kind = str(game.awaiting().kind)
        if kind not in shot:
            shot.add(kind)
            await b.check(pages[i], f"game-{lang}-{kind}")
        else:
            await b.check(pages[i])

        async def shoot(page: Any = pages[i]) -> None:
            if "targets" not in shot:
                shot.add("targets")
                await b.check(page, f"game-{lang}-targets")

        await choose(pages[i], rng, shoot)
        await b.drawn(pages[i], record.rev + 1)
        assert await pages[i].locator("#refusal").is_hidden(), await text(pages[i], "#refusal")
        steps += 1
        assert steps < 400, "the game did not end"


@pytest.mark.parametrize("lang", ["ka", "en"])
async def test_three_players_play_a_whole_game_only_in_the_page(
    redis_server_url: str, lang: str
) -> None:
    executable = chromium_or_skip()
    playwright = playwright_or_skip()
    users = [TgUser(3900 + i, name, lang) for i, name in enumerate(NAMES[lang])]
    async with (
        running_bot(redis_server_url, webapp_short_name=SHORT_NAME, webapp_url=PAGE_URL) as h,
        playwright.async_playwright() as pw,
    ):
        game_id = await open_and_start(h, users)
        # The lobby's message (the first turn's now) linked to the page on this game.
        lobby = h.sim.calls_to(GROUP, "sendMessage")[0]
        assert any(url.endswith(LINK + game_id) for url in links_of(lobby)), lobby
        chromium = await pw.chromium.launch(executable_path=executable)
        b = Browser(h, chromium, game_id)
        pages = [await b.open(u, lang, "light") for u in users]
        steps = await play_in_pages(h, b, lang, users, pages)
        assert steps > 0

        record = await h.record(game_id)
        assert record is not None and record.engine is not None
        view = view_of(record.game())
        assert view.winner is not None
        winner = next(u.first_name for u in users if u.id == view.winner)
        says = h.tr("🏆 {winner} wins!", lang).format(winner=winner)
        for page in pages:
            await b.drawn(page, record.rev)
            assert await text(page, "#header") == says
            assert await page.locator("#over").is_visible()
        await b.check(pages[0], f"game-{lang}-over")
        # Everyone whose turn or answer came while their page was open felt it.
        felt = [await p.evaluate("window.__tg.haptics") for p in pages]
        assert sum("warning" in f for f in felt) >= 2, felt
        # The end message links to the page too.
        await h.delivered(game_id)
        end = next(
            m
            for m in reversed(h.sim.calls_to(GROUP, "sendMessage"))
            if "🏆" in str(m.params["text"])
        )
        assert any(url.endswith(LINK + game_id) for url in links_of(end)), end
        shown = await Page(h, users[0]).shown(game_id)
        assert shown["header"] == {"text": says, "mine": False}
        # Play again from the page: the end message keeps its link, beside Replay.
        await pages[0].locator("#over button[data-code=again]").click()
        opened = h.tr("🆕 {name} opened a new game.").format(name=users[0].first_name)

        def edited() -> list[Any]:
            return [
                c
                for c in h.sim.calls_to(GROUP, "editMessageText")
                if opened in str(c.params["text"])
            ]

        await h.until(lambda: bool(edited()))
        assert any(url.endswith(LINK + game_id) for url in links_of(edited()[-1]))
        lobby_now = await h.record_of_chat(GROUP)
        assert lobby_now is not None and lobby_now.id != game_id
        assert b.troubles == []
        await chromium.close()
