"""A whole game in a real browser (Debian's Chromium, driven by Playwright): one player plays
only through the Mini App, the two others by chat buttons, to the end. The page is checked
at 390x844 in Georgian and English, light and dark (the same game state drawn four times):
nothing overflows its box, every button is at least 44 px high, a player named like an HTML
tag shows as text. Screenshots are saved under tests/artefacts/."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

from tests.bot.play import GROUP, open_and_start, press_random
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tests.webapp.browser import (
    ARTEFACTS,
    LAYOUT_PROBLEMS,
    TELEGRAM_SCRIPT,
    VIEWPORT,
    chromium_or_skip,
    playwright_or_skip,
    signed_init_data,
    stub_script,
)
from tgbot.service.records import PLAYING

NAME = "<img src=x onerror=alert(1)>"
COMBINATIONS = [("ka", "light"), ("ka", "dark"), ("en", "light"), ("en", "dark")]
SPECTATOR = "👀 You are watching: you see what everyone sees."


class Browser:
    """Pages of the Mini App, each a user in a language and a theme, against the bot."""

    def __init__(self, h: Harness, chromium: Any, game_id: str) -> None:
        self.h = h
        self.chromium = chromium
        self.game_id = game_id
        self.base = h.url.removesuffix(h.config.webhook_path)
        self.troubles: list[str] = []  # script errors, CSP violations, dialogs
        self.decide_posts = 0

    async def open(self, user: TgUser, lang: str, scheme: str) -> Any:
        """A page of `user`'s, opened from the group's direct link (start_param = game)."""
        context = await self.chromium.new_context(viewport=VIEWPORT, color_scheme=scheme)
        page = await context.new_page()
        person = {"id": user.id, "first_name": user.first_name, "language_code": lang}
        init = signed_init_data(self.h.config.bot_token, person, self.game_id)
        stub = stub_script(init, person, self.game_id, scheme)

        async def telegram(route: Any) -> None:
            await route.fulfill(body=stub, content_type="text/javascript")

        await page.route(TELEGRAM_SCRIPT, telegram)
        page.on("pageerror", lambda err: self.troubles.append(f"error: {err}"))
        page.on("dialog", lambda d: self.troubles.append(f"dialog: {d.message}"))
        page.on(
            "console",
            lambda m: self.troubles.append(m.text) if "Security Policy" in m.text else None,
        )
        await page.goto(self.base + "/app")
        return page

    async def drawn(self, page: Any, revision: int) -> None:
        """Wait until the page has drawn the game at `revision` or later."""
        await page.wait_for_function(
            "rev => +(document.getElementById('app').dataset.revision || -1) >= rev",
            arg=revision,
            timeout=20_000,
        )

    async def check(self, page: Any, shot: str | None = None) -> None:
        """No element overflows its box, every button is >= 44 px high; a screenshot."""
        problems = await page.evaluate(LAYOUT_PROBLEMS)
        assert problems == [], problems
        if shot:
            ARTEFACTS.mkdir(parents=True, exist_ok=True)
            path = ARTEFACTS / f"webapp-{shot}.png"
            await page.screenshot(path=str(path), full_page=True)
            print("screenshot:", path)

    async def everywhere(self, user: TgUser, revision: int, stage: str) -> list[Any]:
        """The same game state drawn in each language and theme, checked and shot."""
        seen = []
        for lang, scheme in COMBINATIONS:
            page = await self.open(user, lang, scheme)
            await self.drawn(page, revision)
            assert await page.evaluate("document.documentElement.lang") == lang
            await self.check(page, f"{stage}-{lang}-{scheme}")
            seen.append(await page.locator("#title").text_content())
            await page.context.close()
        return seen


async def texts_of(page: Any, selector: str) -> list[str]:
    return [str(t) for t in await page.locator(selector).all_text_contents()]


async def play(h: Harness, b: Browser, page: Any, app_user: TgUser, chat: list[TgUser]) -> int:
    """Play to the end: the app user's decisions clicked in the page, the others' pressed in
    the chat; return how many decisions the page sent."""
    rng = random.Random(29)
    clicks = idle = 0
    refused_once = shot = False
    while True:
        await h.delivered(b.game_id, held=False)
        record = await h.record(b.game_id)
        assert record is not None
        if record.status != PLAYING:
            return clicks
        awaiting = set(record.game().awaiting().players)
        if app_user.id not in awaiting:
            if await press_random(h, chat, rng, GROUP) is None:
                idle += 1
                assert idle < 1000, "no button came up for a long time"
                await asyncio.sleep(0.02)
            continue
        idle = 0
        await b.drawn(page, record.rev)
        buttons = page.locator("#decisions button.decision")
        count = await buttons.count()
        assert count > 0, "the page shows no decision while the game awaits its player"
        await page.locator("#clock").wait_for(state="visible", timeout=5_000)
        assert any(ch.isdigit() for ch in await page.locator("#left").text_content() or "")
        await b.check(page)
        if not shot:
            shot = True
            titles = await b.everywhere(app_user, record.rev, "turn")
            assert titles[0] != titles[2]  # Georgian, then English
            spectator = TgUser(9999, "Watcher", "en")
            watch = await b.open(spectator, "en", "light")
            await b.drawn(watch, record.rev)
            assert await watch.locator("#hand .note").text_content() == h.tr(SPECTATOR, "en")
            assert await watch.locator("button.decision").count() == 0
            assert await watch.locator(".card").count() == 0
            await b.check(watch, "spectator-en-light")
            await watch.context.close()
        if not refused_once:
            # A decision the server refuses (an old revision, as if another had moved
            # first): the refusal is said in words and the buttons come back.
            refused_once = True

            async def stale(route: Any) -> None:
                body = route.request.post_data_json
                await route.continue_(post_data=_with(body, revision=body["revision"] - 1))

            await page.route("**/app/api/decide", stale)
            await page.locator("#decisions button[data-code]").first.click()
            await page.locator("#refusal").wait_for(state="visible")
            assert (await page.locator("#refusal").text_content() or "").strip()
            await page.unroute("**/app/api/decide")
            await page.wait_for_function(
                "() => [...document.querySelectorAll('#decisions button')].every(b => !b.disabled)"
            )
            clicks += 1
            continue
        # A double tap sends the decision once (the buttons are disabled while it flies).
        chosen = buttons.nth(rng.randrange(count))
        if "pick" in (await chosen.get_attribute("class") or ""):
            await chosen.click()  # an action with targets: its targets come next
            targets = page.locator("#decisions button.target")
            await targets.first.wait_for()
            chosen = targets.nth(rng.randrange(await targets.count()))
        await chosen.dblclick()
        clicks += 1
        await b.drawn(page, record.rev + 1)
        assert await page.locator("#refusal").is_hidden(), await page.locator(
            "#refusal"
        ).text_content()


def _with(body: dict[str, Any], **changes: Any) -> str:
    return json.dumps({**body, **changes})


async def test_a_player_plays_a_whole_game_in_the_mini_app(redis_server_url: str) -> None:
    executable = chromium_or_skip()
    playwright = playwright_or_skip()
    app_user = TgUser(2001, NAME, "ka")
    chat = [TgUser(2002, "Nino", "ka"), TgUser(2003, "Giorgi", "en")]
    async with running_bot(redis_server_url) as h, playwright.async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=executable)
        game_id = await open_and_start(h, [app_user, *chat])
        b = Browser(h, chromium, game_id)
        page = await b.open(app_user, "ka", "light")
        page.on(
            "request",
            lambda r: (
                setattr(b, "decide_posts", b.decide_posts + 1)
                if r.url.endswith("/app/api/decide")
                else None
            ),
        )
        clicks = await play(h, b, page, app_user, chat)
        assert b.decide_posts == clicks, (b.decide_posts, clicks)

        record = await h.record(game_id)
        assert record is not None
        await b.drawn(page, record.rev)
        assert await page.locator("#over").is_visible()
        winner = await page.locator("#over .winner").text_content()
        assert winner in {app_user.first_name, *(u.first_name for u in chat)}
        again = await texts_of(page, "#over button.decision")
        assert again == [h.tr("🆕 Play again"), h.tr("📜 Replay")]
        # The name is text: shown as typed, and no element was made of it.
        names = await texts_of(page, ".seat .name")
        assert NAME in names
        assert await page.locator("img").count() == 0
        assert "warning" in await page.evaluate("window.__tg.haptics")  # it became their turn
        assert await page.evaluate("[window.__tg.ready, window.__tg.expanded]") == [1, 1]
        # The whole log opens over the page; Telegram's Back button closes it.
        await page.locator("#log button.more").click()
        assert await page.evaluate("window.__tg.backVisible") is True
        assert len(await texts_of(page, "#log li")) > 6
        await b.check(page)
        await page.evaluate("window.__back()")
        assert not await page.locator("#log.full").count()
        assert await page.evaluate("window.__tg.backVisible") is False
        await b.check(page, "over-open-ka-light")
        await b.everywhere(app_user, record.rev, "over")
        assert b.troubles == []
        await chromium.close()
