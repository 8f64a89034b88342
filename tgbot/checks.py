"""`coup-bot check`: the configuration, catalogues, Redis, the token and the webhook,
one line each, without starting the bot."""

from __future__ import annotations

import fcntl
from pathlib import Path

from telegram import Bot
from telegram.request import HTTPXRequest

from .config import Config, ConfigError, load_config
from .rendering.i18n import CatalogError, Catalogs
from .startup import CONFIG_EXIT, StartupError, redis_ready, safe_url, telegram_ready
from .storage.embedded import NoRedisServer, redis_server_binary
from .storage.keys import Keys

CHECK_WAIT_S = 3


class _Report:
    """Prints one line per check and remembers whether any failed."""

    def __init__(self) -> None:
        self.failed = False

    def say(self, ok: bool, name: str, text: str) -> None:
        """Print one check's outcome."""
        self.failed |= not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {text}", flush=True)


async def check() -> int:
    """Run every check; 0 when all pass, 1 when one fails, 2 for a bad configuration."""
    report = _Report()
    try:
        config = load_config()
    except ConfigError as err:
        report.say(False, "config", str(err))
        return CONFIG_EXIT
    mode = f"webhook mode at {config.webhook_url}" if config.webhook_url else "polling mode"
    if not config.serves_updates:
        mode = f"the Mini App only, on port {config.listen_port} (SERVE=app)"
    elif not config.serves_app:
        mode += " (SERVE=webhook: no Mini App on this process)"
    report.say(True, "config", mode)
    try:
        catalogs = Catalogs(config.locales_dir)
        report.say(True, "catalogues", f"{', '.join(catalogs.languages)} in {config.locales_dir}")
    except CatalogError as err:
        report.say(False, "catalogues", str(err))
    await _check_redis(config, report)
    await _check_telegram(config, report)
    return 1 if report.failed else 0


async def _check_redis(config: Config, report: _Report) -> None:
    if config.redis_url is None:
        try:
            binary = redis_server_binary()
        except NoRedisServer as err:
            report.say(False, "redis", str(err))
            return
        folder = config.data_dir.resolve() / "redis"
        report.say(True, "redis", f"a private Redis in {folder}, run by {binary}{_owner(folder)}")
        return
    try:
        redis = await redis_ready(
            config.redis_url, Keys(config.key_prefix).health_probe, CHECK_WAIT_S
        )
    except StartupError as err:
        report.say(False, "redis", str(err))
        return
    await redis.aclose()
    report.say(True, "redis", f"{safe_url(config.redis_url)} answers and accepts writes")


def _owner(folder: Path) -> str:
    """Who holds the private Redis's folder, if anyone."""
    lock_path = folder / "owner.lock"
    if not lock_path.exists():
        return ""
    with lock_path.open("a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.seek(0)
            return f" (in use by the running bot, pid {lock.read().strip()})"
        fcntl.flock(lock, fcntl.LOCK_UN)
    return ""


async def _check_telegram(config: Config, report: _Report) -> None:
    requests = (HTTPXRequest(), HTTPXRequest())
    bot = Bot(
        config.bot_token,
        base_url=config.api_base_url,
        request=requests[0],
        get_updates_request=requests[1],
    )
    try:
        try:
            await telegram_ready(bot, config.api_base_url, CHECK_WAIT_S)
        except StartupError as err:
            report.say(False, "telegram", str(err))
            return
        report.say(True, "telegram", f"the token is valid: @{bot.username} (id {bot.id})")
        info = await bot.get_webhook_info()
        expected = (
            config.webhook_url.rstrip("/") + config.webhook_path if config.webhook_url else ""
        )
        pending = f"{info.pending_update_count} updates waiting"
        if info.last_error_message:
            report.say(
                False,
                "webhook",
                f"{info.url or 'none'}; {pending}; last error: {info.last_error_message}",
            )
        elif info.url == expected:
            report.say(True, "webhook", f"{info.url or 'none (polling mode)'}; {pending}")
        elif expected:
            report.say(
                False,
                "webhook",
                f"Telegram has {info.url or 'none'}, expected {expected}: it is set when the "
                "bot starts",
            )
        else:
            report.say(True, "webhook", f"{info.url} (polling mode removes it when it starts)")
    finally:
        # Closes the HTTP clients that initialize() opened, even when getMe failed.
        for request in requests:
            await request.shutdown()
