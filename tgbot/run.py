"""Running the bot: webhook mode behind an ASGI server, or polling for local use."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
from collections.abc import AsyncIterator

import uvicorn
from starlette.applications import Starlette
from telegram import Update
from telegram.error import TelegramError
from telegram.ext import Application, ContextTypes, TypeHandler

from .bootstrap import Runtime, make_bot
from .config import Config
from .logs import redact_secrets
from .telegram.answers import CallbackAnswer
from .telegram.webhook import build_webhook_app

log = logging.getLogger(__name__)

ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member"]


def webhook_app(config: Config, set_webhook: bool = True) -> Starlette:
    """The ASGI app for webhook mode; the runtime lives as long as the app does."""
    holder: dict[str, Runtime] = {}

    async def process(update: Update) -> CallbackAnswer | None:
        return await holder["runtime"].dispatcher.process(update)

    async def healthy() -> bool:
        return await holder["runtime"].service.store.ping()

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        runtime = await Runtime.create(config)
        holder["runtime"] = runtime
        if set_webhook and config.webhook_url:
            await runtime.bot.set_webhook(
                config.webhook_url.rstrip("/") + config.webhook_path,
                secret_token=config.webhook_secret,
                allowed_updates=ALLOWED_UPDATES,
            )
            await runtime.publish_commands()
        runtime.start_background()
        log.info("webhook mode: listening on %s:%s", config.listen_host, config.listen_port)
        try:
            yield
        finally:
            await runtime.close()

    # The bot object only decodes updates here; the runtime's bot does the sending.
    return build_webhook_app(
        make_bot(config), process, healthy, config.webhook_secret, config.webhook_path, lifespan
    )


def run_webhook(config: Config) -> None:
    """Serve the webhook until SIGTERM; uvicorn lets in-flight requests finish first."""
    server = uvicorn.Server(
        uvicorn.Config(
            webhook_app(config),
            host=config.listen_host,
            port=config.listen_port,
            log_level=config.log_level.lower(),
            timeout_graceful_shutdown=30,
        )
    )
    server.run()


def run_polling(config: Config) -> None:
    """Poll Telegram for updates (local use, no public URL needed)."""
    holder: dict[str, Runtime] = {}

    async def handle(update: object, _: ContextTypes.DEFAULT_TYPE) -> None:
        if isinstance(update, Update):
            runtime = holder["runtime"]
            answer = await runtime.dispatcher.process(update)
            if answer is not None:
                try:
                    await answer.send(runtime.bot)
                except TelegramError as err:  # e.g. the press is too old to answer
                    log.warning("callback answer refused: %s", err)

    async def post_init(_: Application) -> None:  # type: ignore[type-arg]
        runtime = await Runtime.create(config)
        holder["runtime"] = runtime
        await runtime.bot.delete_webhook()
        await runtime.publish_commands()
        runtime.start_background()
        log.info("polling mode: bot @%s", runtime.bot.username)

    async def post_shutdown(_: Application) -> None:  # type: ignore[type-arg]
        if "runtime" in holder:
            await holder["runtime"].close()

    application = (
        Application.builder()
        .token(config.bot_token)
        .base_url(config.api_base_url)
        .post_init(post_init)
        .post_shutdown(post_shutdown)
        .build()
    )
    application.add_handler(TypeHandler(Update, handle))
    application.run_polling(
        allowed_updates=ALLOWED_UPDATES, stop_signals=(signal.SIGINT, signal.SIGTERM)
    )


def run(config: Config) -> None:
    """Webhook mode when WEBHOOK_URL is set, else polling."""
    # RetryAfter.retry_after becomes a timedelta in python-telegram-bot 23; the sender
    # takes both, so opt in now and skip the deprecation warning.
    os.environ.setdefault("PTB_TIMEDELTA", "1")
    logging.basicConfig(
        level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    redact_secrets(config.bot_token, config.webhook_secret or "")
    # httpx logs every request URL at INFO, and the URL holds the bot token.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if config.webhook_url:
        run_webhook(config)
    else:
        with contextlib.suppress(KeyboardInterrupt):
            run_polling(config)
