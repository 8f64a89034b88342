"""The README's one-command demo of the Mini App (`python -m tests.webapp.demo`): it prints
an address per player; each opens the page in a plain browser (no Telegram, no stand-in
served by the test) on a live game; Ctrl-C stops it all."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from tests.telegram_sim.harness import free_port
from tests.webapp.browser import VIEWPORT, chromium_or_skip, playwright_or_skip
from tgbot.config import DEFAULT_LOCALES
from tgbot.rendering.i18n import Catalogs

ROOT = Path(__file__).resolve().parents[2]
ADDRESS = re.compile(r"^  (.+): (http://127\.0\.0\.1:\d+/app\?as=\d+)$")


async def _addresses(demo: asyncio.subprocess.Process) -> dict[str, str]:
    assert demo.stdout is not None
    found: dict[str, str] = {}
    async with asyncio.timeout(60):
        while True:
            line = (await demo.stdout.readline()).decode()
            assert line, "the demo ended before it printed its addresses"
            if match := ADDRESS.match(line.rstrip("\n")):
                found[match[1]] = match[2]
            if line.startswith("Ctrl-C"):
                return found


async def test_the_demo_serves_the_page_of_each_player_until_ctrl_c() -> None:
    executable = chromium_or_skip()
    playwright = playwright_or_skip()
    demo = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.webapp.demo",
        "--port",
        str(free_port()),
        "--lang",
        "en",
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        addresses = await _addresses(demo)
        assert sorted(addresses) == ["Giorgi", "Nino", "Tamar"]
        en = Catalogs(DEFAULT_LOCALES).get("en")
        async with playwright.async_playwright() as pw:
            chromium = await pw.chromium.launch(executable_path=executable)
            headers = []
            for name, address in addresses.items():
                page = await chromium.new_page(viewport=VIEWPORT)
                await page.goto(address)
                await page.wait_for_function(
                    "() => !!document.getElementById('app').dataset.revision"
                )
                headers.append(await page.locator("#header").text_content())
                seats = await page.locator(".seat.me .name").all_text_contents()
                assert seats == [name]
                assert await page.locator("#problem").is_hidden()
            await chromium.close()
        # One of them has the first turn; the others see whose it is.
        assert headers.count(en.gettext("▶️ Your turn")) == 1, headers
    finally:
        if demo.returncode is None:
            demo.send_signal(signal.SIGINT)
        async with asyncio.timeout(30):
            code = await demo.wait()
    assert code == 0
