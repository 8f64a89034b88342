"""The one place where the bot's parts are built and wired together."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from redis import exceptions as redis_errors
from redis.asyncio import Redis
from telegram import MenuButtonWebApp, Update, WebAppInfo
from telegram.error import NetworkError
from telegram.ext import ExtBot
from telegram.request import HTTPXRequest

from . import metrics
from .config import Config
from .contract.languages import DEFAULT_LANGUAGE
from .contract.plan import Fallback
from .rendering import app_links, profile
from .rendering.i18n import CatalogError, Catalogs
from .service.game_service import GameService, ServiceSettings
from .startup import CONFIG_EXIT, UNREACHABLE_EXIT, StartupError, redis_ready, telegram_ready
from .storage.embedded import EmbeddedRedis, EmbeddedRedisError, FolderInUse, NoRedisServer
from .storage.keys import Keys
from .storage.store import Store
from .tasks import settle, sleep_unless
from .telegram.answers import CallbackAnswer
from .telegram.commands import menus as command_menus
from .telegram.deliveries import Deliveries
from .telegram.handlers import Dispatcher
from .telegram.rate_limit import RedisRateLimiter
from .telegram.sender import Sender

log = logging.getLogger(__name__)

POLL_SECONDS = 0.25
SWEEP_EVERY = 4  # deadline polls to one sweep of undelivered outboxes
GAUGES_EVERY_S = 5.0
GAUGE_SAMPLE = 16  # outboxes whose messages the backlog gauge counts
SHUTDOWN_DRAIN_S = 10
STOP_WAIT_S = 5
LONGEST_BACKOFF_S = 5.0  # a failing background loop tries again at least this often
FAILURE_LOG_EVERY_S = 10.0  # and says so at most this often


class CountingRequest(HTTPXRequest):
    """python-telegram-bot's HTTP client, counting every Bot API request and its outcome."""

    async def do_request(
        self, url: str, method: str, *args: Any, **kwargs: Any
    ) -> tuple[int, bytes]:
        """Send the request; count it by API method and status (or as a network error)."""
        try:
            status, payload = await super().do_request(url, method, *args, **kwargs)
        except NetworkError:
            metrics.count_api_call(url, None)
            raise
        metrics.count_api_call(url, status)
        return status, payload


def make_bot(config: Config, store: Store) -> ExtBot[dict[str, Any]]:
    """The process's one bot, with the rate limiter that every process shares in Redis."""
    return ExtBot(
        config.bot_token,
        base_url=config.api_base_url,
        # A plain ExtBot gets a pool of one connection: every call would wait for the last.
        request=CountingRequest(connection_pool_size=64, pool_timeout=10.0),
        rate_limiter=RedisRateLimiter(
            store,
            config.group_messages_per_minute,
            config.messages_per_second,
            config.private_messages_per_second,
        ),
    )


@dataclass
class Runtime:
    """Everything one bot process runs."""

    config: Config
    redis: Redis
    bot: ExtBot[dict[str, Any]]
    service: GameService
    sender: Sender
    deliveries: Deliveries
    dispatcher: Dispatcher
    embedded: EmbeddedRedis | None = None
    _loops: list[asyncio.Task[None]] = field(default_factory=list, repr=False)
    _stopping: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @classmethod
    async def create(cls, config: Config) -> Runtime:
        """Load the catalogues, reach Redis (starting a private one if no URL is set) and
        log in to the Bot API; any failure is a StartupError with one line to print."""
        try:
            catalogs = Catalogs(config.locales_dir)
        except CatalogError as err:
            raise StartupError(str(err), CONFIG_EXIT) from None
        embedded, redis, bot = None, None, None
        try:
            redis_url = config.redis_url
            if redis_url is None:
                embedded = EmbeddedRedis(config.data_dir / "redis")
                redis_url = await asyncio.to_thread(embedded.start)
                log.debug("started a private Redis in %s", embedded.folder)
            keys = Keys(config.key_prefix, config.redis_buckets)
            # A cluster's client if it is one, learnt from whichever named node answers.
            redis = await redis_ready(redis_url, keys.health_probe, config.startup_wait_s)
            store = Store(redis, keys)
            if (
                moved := await store.deadlines.adopt_legacy()
            ):  # an upgrade keeps games in flight going
                log.warning("moved %d deadlines and pending outboxes into buckets", moved)
            bot = make_bot(config, store)
            await telegram_ready(bot, config.api_base_url, config.startup_wait_s)
        except BaseException as err:
            if redis is not None:
                await redis.aclose()
            if embedded is not None:
                await asyncio.to_thread(embedded.stop)
            if isinstance(err, (NoRedisServer, FolderInUse)):
                raise StartupError(str(err), CONFIG_EXIT) from None
            if isinstance(err, EmbeddedRedisError):
                raise StartupError(str(err), UNREACHABLE_EXIT) from None
            raise
        metrics.watch_gc()
        # A delivery reports back to the service (a prompt delivered, a group migrated, a
        # person unreachable), whose commits are delivered: the one cycle, closed here and
        # only here.

        async def migrated(old_chat: int, new_chat: int) -> None:
            await service.lobby.chat_migrated(old_chat, new_chat)

        async def prompt_delivered(game_id: str, context: int, seconds: int) -> None:
            await service.deadlines.prompt_delivered(game_id, context, seconds)

        async def unreachable(game_id: str, user_id: int, fallback: Fallback | None) -> None:
            await service.prefs.mark_unreachable(game_id, user_id, fallback)

        sender = Sender(
            bot,
            store,
            on_migrated=migrated,
            on_prompt_delivered=prompt_delivered,
            on_unreachable=unreachable,
            app_first_ms=1000 * config.app_first_s,
        )
        deliveries = Deliveries(sender)
        settings = ServiceSettings.from_config(config, bot.username)
        service = GameService(store, catalogs, settings, notify=deliveries.commit)
        dispatcher = Dispatcher(service, bot, config.person_updates_per_10s)
        # What start-up made (modules, classes, catalogues: most of the heap) lives as long
        # as the process: out of the collector's sight, a full collection, which stops the
        # event loop, has that much less to walk (90 ms pauses at 100 updates/s before).
        gc.collect()
        gc.freeze()
        return cls(config, redis, bot, service, sender, deliveries, dispatcher, embedded)

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, config: Config) -> AsyncIterator[Runtime]:
        """The runtime `create` makes, closed (`close`) when the block ends however it ends."""
        runtime = await cls.create(config)
        try:
            yield runtime
        finally:
            await runtime.close()

    async def process(self, update: Update) -> CallbackAnswer | None:
        """Handle one update (counted by kind); the answer a button press gets, if any."""
        kind = metrics.update_kind(update)
        metrics.UPDATES.labels(kind).inc()
        metrics.cause.set(kind)
        return await self.dispatcher.process(update)

    async def healthy(self) -> bool:
        """Redis accepts writes and every background loop still runs."""
        if any(loop.done() for loop in self._loops):
            log.error("a background loop has stopped: unhealthy")
            return False
        try:
            await self.redis.set(self.service.store.keys.health_probe, "1", px=60_000)
        except (redis_errors.RedisError, OSError) as err:
            log.warning("health check: Redis does not accept writes (%s)", err)
            return False
        return True

    async def publish_commands(self) -> None:
        """Publish the command menus and the bot's profile texts, in every language
        (and Georgian for everyone else), and the Mini App's menu button when configured."""
        catalogs = self.service.catalogs
        for lang in (*catalogs.languages, None):
            t = catalogs.get(lang or DEFAULT_LANGUAGE)
            for scope, commands in command_menus(t):  # from the command table
                await self.bot.set_my_commands(commands, scope=scope, language_code=lang)
            await self.bot.set_my_description(profile.description(t), language_code=lang)
            await self.bot.set_my_short_description(
                profile.short_description(t), language_code=lang
            )
        await self.publish_menu_button()

    async def publish_menu_button(self) -> None:
        """Every private chat's menu button opens the Mini App (on the user's current game),
        when it is configured; otherwise the menu button is left as it is. One label for
        all (the menu button has no per-language variant): the default language's."""
        url = self.config.mini_app_url
        if url is None:
            return
        label = app_links.menu_label(self.service.catalogs.get(DEFAULT_LANGUAGE))
        await self.bot.set_chat_menu_button(menu_button=MenuButtonWebApp(label, WebAppInfo(url)))

    def start_background(self) -> None:
        """Start firing deadlines and, beside it, sweeping undelivered outboxes.

        Two loops, so that a sweep held up by Telegram (flood control, a slow chat) never
        delays a deadline or an AI player's move.
        """
        self._loops = [
            asyncio.create_task(self._every("deadlines", POLL_SECONDS, self._fire_deadlines)),
            asyncio.create_task(
                self._every("outbox sweep", POLL_SECONDS * SWEEP_EVERY, self.sender.flush_pending)
            ),
            asyncio.create_task(self._every("gauges", GAUGES_EVERY_S, self._read_gauges)),
        ]

    async def _fire_deadlines(self) -> None:
        metrics.cause.set("deadline")
        metrics.DEADLINES_FIRED.inc(await self.service.deadlines.claim_and_fire())

    async def _read_gauges(self) -> None:
        store, now_ms = self.service.store, int(time.time() * 1000)
        due, late, open_games = await store.deadlines.deadline_counts(
            now_ms, metrics.LATE_AFTER_S * 1000
        )
        # Bounded work however many outboxes wait: their number, and the messages of the
        # longest-waiting few (a lower bound of the backlog, which shows it growing).
        waiting, messages = await store.outboxes.outbox_gauges(GAUGE_SAMPLE)
        metrics.OUTBOX_GAMES.set(waiting)
        metrics.OUTBOX_MESSAGES.set(messages)
        metrics.DEADLINES_DUE.set(due)
        metrics.DEADLINES_LATE.set(late)
        metrics.GAMES_OPEN.set(open_games)
        metrics.DELIVERIES_IN_FLIGHT.set(self.sender.in_flight())

    async def _every(
        self, name: str, seconds: float, step: Callable[[], Awaitable[object]]
    ) -> None:
        """Run `step` every `seconds`; while it fails, back off exponentially and say so
        at most every FAILURE_LOG_EVERY_S (an outage must not flood the log), then say
        once that it recovered."""
        failures, logged_at, failing_since = 0, 0.0, 0.0
        while not self._stopping.is_set():
            pause = seconds
            try:
                await step()
            except Exception as err:
                metrics.LOOP_FAILURES.labels(name).inc()
                failures += 1
                now = time.monotonic()
                if failures == 1:
                    failing_since = now
                pause = min(seconds * 2**failures, LONGEST_BACKOFF_S)
                if failures == 1 or now - logged_at >= FAILURE_LOG_EVERY_S:
                    logged_at = now
                    _log_failure(name, err, failures, pause)
            else:
                if failures:
                    log.warning(
                        "%s: working again after %d failed rounds in %.0f s",
                        name,
                        failures,
                        time.monotonic() - failing_since,
                    )
                    failures = 0
            await sleep_unless(self._stopping, pause)

    async def close(self) -> None:
        """Stop cleanly: finish deliveries in flight, then close connections."""
        self._stopping.set()
        await settle(self._loops, STOP_WAIT_S)
        # Deliveries still running stay queued in Redis if cut short: another process (or
        # this one after a restart) sends them, so shutdown need not wait long for them.
        await self.deliveries.drain(SHUTDOWN_DRAIN_S)
        await self.service.store.app.events.close()  # the Mini App's game channels
        await self.bot.shutdown()
        await self.redis.aclose()
        if self.embedded is not None:
            await asyncio.to_thread(self.embedded.stop)


def _log_failure(name: str, err: Exception, failures: int, pause: float) -> None:
    """One line for an outage (Redis or Telegram away); the traceback only for a bug."""
    outage = isinstance(err, (redis_errors.RedisError, NetworkError, OSError))
    log.log(
        logging.WARNING if outage else logging.ERROR,
        "%s: failing (%s: %s), %d rounds so far; next try in %.1f s",
        name,
        type(err).__name__,
        err,
        failures,
        pause,
        exc_info=None if outage else err,
    )
