"""Operating the bot: /healthz and /metrics over HTTP, `coup-bot check`, `--version`, the
profile texts, and a Redis outage that the background loops ride out quietly."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import httpx
import pytest
from redis import Redis

from tests.telegram_sim.harness import SECRET, TgUser, Updates, free_port, serve
from tests.telegram_sim.server import TelegramSim, build_sim_app

from .cli import TOKEN, bot_env, redis_on_port, run_cli, start_cli, until

GROUP = -9100


async def _status(http: httpx.AsyncClient, url: str) -> int:
    try:
        return (await http.get(url)).status_code
    except httpx.TransportError:
        return 0


async def _until_status(http: httpx.AsyncClient, url: str, status: int, timeout: float) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while (got := await _status(http, url)) != status:
        assert asyncio.get_running_loop().time() < deadline, f"{url}: {got}, not {status}"
        await asyncio.sleep(0.1)


def _metric(text: str, name: str, **labels: str) -> float:
    wanted = ",".join(f'{k}="{v}"' for k, v in labels.items())
    pattern = (
        rf"^{re.escape(name)}(\{{{re.escape(wanted)}\}})? (\S+)$"
        if labels
        else (rf"^{re.escape(name)} (\S+)$")
    )
    for line in text.splitlines():
        found = re.match(pattern, line)
        if found:
            return float(found.groups()[-1])
    raise AssertionError(f"no {name}{{{wanted}}} in /metrics")


async def test_webhook_mode_health_metrics_profile_and_a_redis_outage(tmp_path: Path) -> None:
    sim = TelegramSim()
    sim_port, redis_port, bot_port = free_port(), free_port(), free_port()
    metrics_port = free_port()
    redis_server = redis_on_port(redis_port, tmp_path)
    log = tmp_path / "bot.log"
    async with serve(build_sim_app(sim), sim_port), httpx.AsyncClient(timeout=10) as http:
        env = bot_env(
            BOT_TOKEN=TOKEN,
            TELEGRAM_API_URL=f"http://127.0.0.1:{sim_port}/bot",
            REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
            WEBHOOK_URL="https://coup.example",
            WEBHOOK_SECRET=SECRET,
            LISTEN_HOST="127.0.0.1",
            PORT=str(bot_port),
            METRICS_PORT=str(metrics_port),
            LOG_LEVEL="INFO",
        )
        bot = start_cli(env, tmp_path, log)
        base = f"http://127.0.0.1:{bot_port}"
        try:
            await _until_status(http, f"{base}/healthz", 200, 30)
            for method in ("setMyDescription", "setMyShortDescription"):
                languages = {c.params.get("language_code") for c in sim.calls if c.method == method}
                assert languages == {"ka", "en", None}, (method, languages)

            updates, nika = Updates(), TgUser(9101, "Nika")
            for update in (
                updates.message(nika, nika.id, "/start"),
                updates.message(nika, GROUP, "/newgame"),
            ):
                answer = await http.post(
                    f"{base}/telegram",
                    json=update,
                    headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
                )
                assert answer.status_code == 200
            await until(lambda: any(m.buttons() for m in sim.messages(GROUP)), what="the lobby")
            await asyncio.sleep(5.5)  # one round of the gauges loop
            # Never on the public listener: on METRICS_PORT only.
            assert (await http.get(f"{base}/metrics")).status_code == 404
            metrics = (await http.get(f"http://127.0.0.1:{metrics_port}/metrics")).text
            assert _metric(metrics, "coup_updates_total", kind="command") == 2
            assert _metric(metrics, "coup_steps_total", cause="command") == 1
            assert (
                _metric(metrics, "coup_bot_api_calls_total", method="setWebhook", outcome="ok") == 1
            )
            assert _metric(metrics, "coup_delivery_lag_seconds_count") >= 1
            assert _metric(metrics, "coup_games_open") == 1
            assert TOKEN not in metrics

            # Redis refuses writes (memory full): unhealthy, then healthy again.
            admin = Redis(port=redis_port)
            admin.config_set("maxmemory", 1)
            admin.config_set("maxmemory-policy", "noeviction")
            await _until_status(http, f"{base}/healthz", 503, 10)
            admin.config_set("maxmemory", 0)
            await _until_status(http, f"{base}/healthz", 200, 10)

            # Redis goes away for a while: a few lines, no traceback, then recovery.
            before = log.read_text()
            redis_server.terminate()
            redis_server.wait()
            await asyncio.sleep(8)
            during = log.read_text()[len(before) :]
            failing = [line for line in during.splitlines() if "failing" in line]
            assert 1 <= len(failing) <= 6, during
            redis_server = redis_on_port(redis_port, tmp_path)
            await until(
                lambda: log.read_text().count("working again") >= 2,
                timeout=40,
                what="the loops to recover",
            )
            await _until_status(http, f"{base}/healthz", 200, 10)
            assert "Traceback" not in log.read_text()
            assert TOKEN not in log.read_text()
        finally:
            bot.terminate()
            code = await asyncio.to_thread(bot.wait, 40)
            redis_server.terminate()
            redis_server.wait()
    assert code == 0, log.read_text()[-3000:]


async def test_polling_mode_serves_metrics_on_its_own_port(
    redis_server_url: str, tmp_path: Path
) -> None:
    sim = TelegramSim()
    sim_port, metrics_port = free_port(), free_port()
    async with serve(build_sim_app(sim), sim_port), httpx.AsyncClient(timeout=10) as http:
        env = bot_env(
            BOT_TOKEN=TOKEN,
            TELEGRAM_API_URL=f"http://127.0.0.1:{sim_port}/bot",
            REDIS_URL=redis_server_url,
            METRICS_PORT=str(metrics_port),
            LISTEN_HOST="127.0.0.1",
            REDIS_KEY_PREFIX="metrics-test",
        )
        bot = start_cli(env, tmp_path, tmp_path / "bot.log")
        try:
            await until(lambda: any(c.method == "getUpdates" for c in sim.calls), what="polling")
            await _until_status(http, f"http://127.0.0.1:{metrics_port}/metrics", 200, 10)
            text = (await http.get(f"http://127.0.0.1:{metrics_port}/metrics")).text
            assert (
                _metric(text, "coup_bot_api_calls_total", method="deleteWebhook", outcome="ok") == 1
            )
        finally:
            bot.terminate()
            assert await asyncio.to_thread(bot.wait, 30) == 0


async def test_check_says_one_line_per_check(redis_server_url: str, tmp_path: Path) -> None:
    sim = TelegramSim()
    port = free_port()
    async with serve(build_sim_app(sim), port):
        api = f"http://127.0.0.1:{port}/bot"
        polling = await run_cli(
            bot_env(BOT_TOKEN=TOKEN, TELEGRAM_API_URL=api, REDIS_URL=redis_server_url),
            tmp_path,
            "check",
        )
        assert polling.returncode == 0, polling.stdout + polling.stderr
        lines = polling.stdout.splitlines()
        assert [line.split(":")[0] for line in lines] == [
            "ok   config",
            "ok   catalogues",
            "ok   redis",
            "ok   telegram",
            "ok   webhook",
        ], lines
        assert "@coup_test_bot" in lines[3] and TOKEN not in polling.stdout

        webhook = await run_cli(
            bot_env(
                BOT_TOKEN=TOKEN,
                TELEGRAM_API_URL=api,
                REDIS_URL=redis_server_url,
                WEBHOOK_URL="https://coup.example",
                WEBHOOK_SECRET=SECRET,
            ),
            tmp_path,
            "check",
        )
        assert webhook.returncode == 1
        assert webhook.stdout.splitlines()[-1].startswith("FAIL webhook")

        no_redis = await run_cli(
            bot_env(
                BOT_TOKEN=TOKEN,
                TELEGRAM_API_URL=api,
                REDIS_URL=f"redis://127.0.0.1:{free_port()}/0",
            ),
            tmp_path,
            "check",
        )
        assert no_redis.returncode == 1 and "FAIL redis: cannot reach Redis" in no_redis.stdout
        assert "ok   telegram" in no_redis.stdout  # one failure does not hide the others

    bad = await run_cli(bot_env(), tmp_path, "check")
    assert bad.returncode == 2 and bad.stdout.strip().startswith("FAIL config: BOT_TOKEN")


@pytest.mark.parametrize("flag", ["--version"])
async def test_version(flag: str, tmp_path: Path) -> None:
    from importlib.metadata import version

    result = await run_cli(bot_env(), tmp_path, flag)
    assert result.returncode == 0 and result.stdout.strip() == f"coup-bot {version('coup-bot')}"


@pytest.mark.expect_log(r"a background loop has stopped: unhealthy")
async def test_health_fails_when_a_background_loop_has_died(redis_server_url: str) -> None:
    from tgbot.bootstrap import Runtime
    from tgbot.config import Config

    port = free_port()
    async with serve(build_sim_app(TelegramSim()), port):
        runtime = await Runtime.create(
            Config(
                bot_token=TOKEN,
                redis_url=redis_server_url,
                api_base_url=f"http://127.0.0.1:{port}/bot",
                key_prefix="health-test",
            )
        )
        try:
            runtime.start_background()
            assert await runtime.healthy()
            # A loop that has ended (they end only on a BaseException or at close()).
            ended = asyncio.create_task(asyncio.sleep(0))
            await ended
            runtime._loops.append(ended)
            assert not await runtime.healthy()
        finally:
            await runtime.close()
