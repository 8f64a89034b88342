"""The one place where the bot's parts are built and wired together."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from redis.asyncio import Redis
from telegram import BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats
from telegram.ext import AIORateLimiter, ExtBot
from telegram.request import HTTPXRequest

from .config import Config
from .rendering.i18n import DEFAULT_LANGUAGE, N_, Catalogs
from .service.game_service import GameService
from .storage.embedded import EmbeddedRedis
from .storage.keys import Keys
from .storage.store import Store, connect
from .tasks import settle, sleep_unless
from .telegram.handlers import Dispatcher
from .telegram.sender import Sender

log = logging.getLogger(__name__)

POLL_SECONDS = 0.25
SWEEP_EVERY = 4  # deadline polls to one sweep of undelivered outboxes
SHUTDOWN_DRAIN_S = 10
STOP_WAIT_S = 5

GROUP_COMMANDS = [
    ("newgame", N_("open a game of Coup")),
    ("join", N_("join the open game")),
    ("leave", N_("leave the game")),
    ("startgame", N_("start the game now")),
    ("board", N_("show the table")),
    ("top", N_("the group's best players")),
    ("cancel", N_("cancel the game")),
    ("settings", N_("time limits and language")),
    ("rules", N_("the rules")),
    ("help", N_("how to play")),
]
PRIVATE_COMMANDS = [
    ("start", N_("let the bot write to you")),
    ("language", N_("choose your language")),
    ("stats", N_("your games and wins")),
    ("leave", N_("leave your game")),
    ("rules", N_("the rules")),
    ("help", N_("how to play")),
]


def make_bot(config: Config, max_retries: int = 5) -> ExtBot[None]:
    """A bot with python-telegram-bot's rate limiter (30/s, 20/min per group, 429s retried)."""
    return ExtBot(
        config.bot_token,
        base_url=config.api_base_url,
        # A plain ExtBot gets a pool of one connection: every call would wait for the last.
        request=HTTPXRequest(connection_pool_size=64, pool_timeout=10.0),
        rate_limiter=AIORateLimiter(
            overall_max_rate=config.messages_per_second,
            group_max_rate=config.group_messages_per_minute,
            max_retries=max_retries,
        ),
    )


@dataclass
class Runtime:
    """Everything one bot process runs."""

    config: Config
    redis: Redis
    bot: ExtBot[None]
    service: GameService
    sender: Sender
    dispatcher: Dispatcher
    embedded: EmbeddedRedis | None = None
    _loops: list[asyncio.Task[None]] = field(default_factory=list, repr=False)
    _stopping: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @classmethod
    async def create(cls, config: Config) -> Runtime:
        """Connect to Redis (starting a private one if no URL is set) and to the Bot API."""
        embedded = None
        redis_url = config.redis_url
        if redis_url is None:
            embedded = EmbeddedRedis(config.data_dir / "redis")
            redis_url = await asyncio.to_thread(embedded.start)
            log.info("started a private Redis in %s", embedded.folder)
        redis = connect(redis_url)
        bot = make_bot(config)
        try:
            await bot.initialize()
        except Exception:
            await redis.aclose()
            if embedded is not None:
                await asyncio.to_thread(embedded.stop)
            raise
        store = Store(redis, Keys(config.key_prefix))
        catalogs = Catalogs(config.locales_dir)
        service = GameService(store, catalogs, config.deadlines, bot.username)
        service.ai_pause_ms = config.ai_pause_ms
        sender = Sender(bot, store, config.group_messages_per_minute, config.messages_per_second)
        dispatcher = Dispatcher(service, bot, sender, config.person_updates_per_10s)
        return cls(config, redis, bot, service, sender, dispatcher, embedded)

    async def publish_commands(self) -> None:
        """Publish the command menu in both languages for groups and private chats."""
        catalogs = self.service.catalogs
        for scope, commands in (
            (BotCommandScopeAllGroupChats(), GROUP_COMMANDS),
            (BotCommandScopeAllPrivateChats(), PRIVATE_COMMANDS),
        ):
            for lang in (*catalogs.languages, None):
                t = catalogs.get(lang or DEFAULT_LANGUAGE)
                await self.bot.set_my_commands(
                    [BotCommand(name, t.gettext(text)) for name, text in commands],
                    scope=scope,
                    language_code=lang,
                )

    def start_background(self) -> None:
        """Start firing deadlines and, beside it, sweeping undelivered outboxes.

        Two loops, so that a sweep held up by Telegram (flood control, a slow chat) never
        delays a deadline or an AI player's move.
        """
        self._loops = [
            asyncio.create_task(self._every(POLL_SECONDS, self.service.claim_and_fire)),
            asyncio.create_task(self._every(POLL_SECONDS * SWEEP_EVERY, self.sender.flush_pending)),
        ]

    async def _every(self, seconds: float, step: Callable[[], Awaitable[object]]) -> None:
        while not self._stopping.is_set():
            try:
                await step()
            except Exception:
                log.exception("background step failed; retrying")
            await sleep_unless(self._stopping, seconds)

    async def close(self) -> None:
        """Stop cleanly: finish deliveries in flight, then close connections."""
        self._stopping.set()
        await settle(self._loops, STOP_WAIT_S)
        # Deliveries still running stay queued in Redis if cut short: another process (or
        # this one after a restart) sends them, so shutdown need not wait long for them.
        await self.dispatcher.drain(SHUTDOWN_DRAIN_S)
        await self.bot.shutdown()
        await self.redis.aclose()
        if self.embedded is not None:
            await asyncio.to_thread(self.embedded.stop)
