"""The page's error texts come from the catalogues: every reason the API can answer with has
its words in each language (GET /app/api/words before any view, `texts.errors` in the view),
and a page opened outside Telegram or with a bad signature says it in the reader's language."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.bot.play import open_and_start, players
from tests.telegram_sim.harness import TgUser, running_bot
from tests.webapp.browser import (
    ARTEFACTS,
    TELEGRAM_SCRIPT,
    VIEWPORT,
    chromium_or_skip,
    playwright_or_skip,
    signed_init_data,
    stub_script,
)
from tgbot.rendering.app_view import ERROR_TEXTS

from .client import Page, base_url

WEBAPP = Path(__file__).resolve().parents[2] / "tgbot" / "webapp"
# Every error reason the edge writes: `_error(401, "...")`, `"error": "busy"`, AuthError("...").
REASON = re.compile(r'_error\(\d+, "([^"]+)"|"error": "([^"]+)"|AuthError\("([^"]+)"\)')


def reasons() -> set[str]:
    found: set[str] = set()
    for name in ("api.py", "auth.py"):
        for match in REASON.finditer((WEBAPP / name).read_text(encoding="utf-8")):
            found.add(next(g for g in match.groups() if g))
    return found


def test_the_edge_has_reasons_to_say() -> None:
    """The parsing above finds them (it cannot pass on an empty set)."""
    assert {"no init data", "bad signature", "too fast", "busy", "too many streams"} <= reasons()


async def test_every_reason_is_said_in_each_language(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        base = base_url(h)
        said: dict[str, dict[str, Any]] = {}
        for lang in ("ka", "en", "ru"):
            response = await h.http.get(f"{base}/app/api/words", params={"lang": lang})
            assert response.status_code == 200
            assert response.headers["cache-control"] == "no-store"
            said[lang] = response.json()
        assert said["ru"]["lang"] == "ka" and said["ru"] == said["ka"]  # Georgian by default
        assert said["en"]["lang"] == "en"
        for reason in reasons():
            ka, en = said["ka"]["texts"]["errors"][reason], said["en"]["texts"]["errors"][reason]
            assert ka == h.tr(en, "ka") and ka != en and reason not in ka, reason
        # The view carries the same words, in the reader's language.
        users = players(2)
        game_id = await open_and_start(h, users)
        shown = await Page(h, TgUser(users[0].id, users[0].first_name, "en")).shown(game_id)
        assert shown["texts"]["errors"] == said[shown["lang"]]["texts"]["errors"]


@pytest.mark.parametrize("case", ["outside telegram", "bad signature"])
async def test_a_page_that_cannot_be_read_says_why_in_georgian(
    redis_server_url: str, case: str
) -> None:
    executable = chromium_or_skip()
    playwright = playwright_or_skip()
    async with running_bot(redis_server_url) as h, playwright.async_playwright() as pw:
        chromium = await pw.chromium.launch(executable_path=executable)
        # Outside Telegram the page knows only the browser's language.
        page = await chromium.new_page(viewport=VIEWPORT, locale="ka-GE")
        person = {"id": 4001, "first_name": "ნინო", "language_code": "ka"}
        if case == "outside telegram":
            script = ""  # a browser that never loaded Telegram's script
            wanted = "no init data"
        else:
            init = signed_init_data("123456:another-bots-token", person, None)
            script = stub_script(init, person, None, "light")
            wanted = "bad signature"

        async def telegram(route: Any) -> None:
            await route.fulfill(body=script, content_type="text/javascript")

        await page.route(TELEGRAM_SCRIPT, telegram)
        await page.goto(base_url(h) + "/app")
        problem = page.locator("#problem")
        await problem.wait_for(state="visible")
        en = h.catalogs.get("en")
        assert await problem.text_content() == h.tr(ERROR_TEXTS[wanted], "ka")
        assert await problem.text_content() != en.gettext(ERROR_TEXTS[wanted])
        # Nothing but the reason: no empty boxes of a game that is not there.
        visible = await page.locator("main > section:visible").evaluate_all(
            "es => es.map(e => e.id)"
        )
        assert visible == [], visible
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(ARTEFACTS / f"webapp-{case.replace(' ', '-')}-ka.png"))
        await chromium.close()
