"""SERVE=webhook and SERVE=app: the Mini App on a process of its own, so that a burst of page
connections never shares the event loop that Telegram's updates need (issue 39).

Both processes run as production runs them (`tgbot.run`, every setting from the
environment) against one Redis and the simulated Bot API.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx

from tests.bot.play import GROUP, open_and_start, players
from tests.resilience.production import production_env, until_healthy
from tests.telegram_sim.harness import (
    SECRET,
    WEBHOOK_PATH,
    Harness,
    config_for_tests,
    free_port,
    serve,
)
from tests.telegram_sim.server import TelegramSim, build_sim_app

from .client import Page

ROOT = Path(__file__).resolve().parents[2]


def _start(env: dict[str, str], log_path: Path) -> subprocess.Popen[bytes]:
    with log_path.open("wb") as log_file:
        return subprocess.Popen(
            [sys.executable, "-m", "tests.resilience.bot_process", "run"],
            cwd=ROOT,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )


def _stopped(process: subprocess.Popen[bytes], log_path: Path) -> str:
    process.terminate()
    code = process.wait(40)
    text = log_path.read_text()
    assert code == 0, text[-3000:]
    return text


async def test_the_mini_app_on_a_process_of_its_own(redis_server_url: str, tmp_path: Path) -> None:
    sim = TelegramSim()
    sim_port, hook_port, app_port = free_port(), free_port(), free_port()
    config = config_for_tests(redis_server_url, sim_port)
    hook_base, app_base = f"http://127.0.0.1:{hook_port}", f"http://127.0.0.1:{app_port}"
    hook_log, app_log = tmp_path / "webhook.log", tmp_path / "app.log"
    async with serve(build_sim_app(sim), sim_port), httpx.AsyncClient(timeout=30) as http:
        hook_env = production_env(config, redis_server_url, hook_port, "INFO")
        app_env = production_env(config, redis_server_url, app_port, "INFO")
        # The page's process needs no webhook address: it registers none.
        del app_env["WEBHOOK_URL"], app_env["WEBHOOK_SECRET"]
        hook = _start({**hook_env, "SERVE": "webhook"}, hook_log)
        app = _start({**app_env, "SERVE": "app"}, app_log)
        try:
            await until_healthy(http, hook_base, hook, hook_log)
            await until_healthy(http, app_base, app, app_log)
            # Only the webhook's process registers the webhook and the menus.
            webhooks = [c for c in sim.calls if c.method == "setWebhook"]
            assert len(webhooks) == 1, webhooks
            assert webhooks[0].params["url"] == "https://coup.example.test" + WEBHOOK_PATH

            # Each listener serves its own part, and nothing of the other's.
            assert (await http.get(f"{hook_base}/app")).status_code == 404
            assert (await http.post(f"{hook_base}/app/api/decide", json={})).status_code == 404
            assert (await http.get(f"{app_base}/app")).status_code == 200
            update = {"update_id": 1, "message": {}}
            secret = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
            refused = await http.post(f"{app_base}{WEBHOOK_PATH}", json=update, headers=secret)
            assert refused.status_code in (404, 405)

            # A game opened through the webhook, a decision made in the page: the group
            # hears of it (the page's process delivers what its step queued).
            h = Harness(sim, hook_base + WEBHOOK_PATH, http, config)
            h.urls = [hook_base + WEBHOOK_PATH, app_base + WEBHOOK_PATH]
            users = players(3)
            game_id = await open_and_start(h, users)
            record = await h.record(game_id)
            assert record is not None
            actor_id = record.game().awaiting().players[0]
            actor = next(u for u in users if u.id == actor_id)
            decided = await Page(h, actor, instance=1).decide(game_id, record.rev, "i")
            assert decided.status_code == 200, decided.text
            after = await h.record(game_id)
            assert after is not None and after.game().player(actor_id).coins == 3
            # Income has no message of its own: its line rides on the game's newest one.
            line = h.tr("💰 {actor} takes Income.").format(actor=actor.first_name)
            await h.until(lambda: line in sim.text_of(GROUP), timeout=20)
            await h.store.redis.aclose()
        finally:
            hook_text = _stopped(hook, hook_log)
            app_text = _stopped(app, app_log)
    for text in (hook_text, app_text):
        assert "Traceback" not in text and " ERROR " not in text, text[-3000:]
    assert "serving webhook" in hook_text and "serving app" in app_text
