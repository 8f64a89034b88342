"""Running the bot: webhook mode behind an ASGI server, or polling for local use.

`serve()` starts everything in one event loop: it binds the port first, creates the
runtime (catalogues, Redis, Telegram: see `Runtime.create`), then serves until SIGTERM or
SIGINT and stops in order. Any start-up failure is a `StartupError`: one line to print.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
from collections.abc import AsyncIterator, Generator
from typing import Any

import h11
import prometheus_client
import uvicorn
from starlette.applications import Starlette
from telegram import Update
from telegram.error import TelegramError
from telegram.ext import Application, ContextTypes, TypeHandler
from uvicorn.protocols.http.h11_impl import H11Protocol

from .bootstrap import Runtime
from .config import Config
from .logs import redact_secrets
from .startup import CONFIG_EXIT, StartupError, listen_socket
from .telegram.webhook import SERVING, Lifespan, Serving, build_webhook_app
from .webapp import routes as webapp_routes
from .webapp.api import SERVICE

log = logging.getLogger(__name__)

ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member"]
GRACEFUL_SHUTDOWN_S = 30
KEEP_ALIVE_S = 5  # an idle kept-alive connection is closed after this
MAX_HEADER_BYTES = 16 * 1024  # a request line and its headers (a larger one: 400)
CONCURRENT_UPDATES = 64  # polling mode: updates handled at once


async def start_webhook(runtime: Runtime, set_webhook: bool = True) -> None:
    """Register the webhook and the bot's menus (not in a process that serves only the Mini
    App), then start the background loops."""
    config = runtime.config
    if set_webhook and config.webhook_url and config.serves_updates:
        await runtime.bot.set_webhook(
            config.webhook_url.rstrip("/") + config.webhook_path,
            secret_token=config.webhook_secret,
            allowed_updates=ALLOWED_UPDATES,
        )
        await runtime.publish_commands()
    runtime.start_background()


def _app(config: Config, lifespan: Lifespan) -> Starlette:
    """The one webhook app, served by the runtime that `lifespan` puts in its state
    (`state_of`): updates go to it, the Mini App's routes call its service.
    `config.serve` says which of the two this process's listener serves."""
    return build_webhook_app(
        config.webhook_secret,
        config.webhook_path,
        lifespan,
        webapp_routes(config) if config.serves_app else (),
        updates=config.serves_updates,
    )


def state_of(runtime: Runtime) -> dict[str, Any]:
    """The app's lifespan state: what every request is served by."""
    serving: Serving = runtime  # checked here: the webhook reads it back untyped
    return {SERVING: serving, SERVICE: runtime.service}


def webhook_app(config: Config, set_webhook: bool = True) -> Starlette:
    """The ASGI app for webhook mode with its runtime opened in its lifespan (for running
    it inside another server, as the tests do; `serve()` opens the runtime first)."""

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[dict[str, Any]]:
        async with Runtime.open(config) as runtime:
            await start_webhook(runtime, set_webhook)
            yield state_of(runtime)

    return _app(config, lifespan)


class _Protocol(H11Protocol):
    """uvicorn's h11 connection, which closes a connection whose request line and headers
    are not all in within `header_timeout_s` (uvicorn has no such limit: a client trickling
    a header line now and then would hold its connection for ever)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Start the headers' clock."""
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm()

    def handle_events(self) -> None:
        """Stop the clock once a request's headers are in."""
        super().handle_events()
        if self.conn.their_state is not h11.IDLE and self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def on_response_complete(self) -> None:
        """The next request's headers get the same time."""
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        """No clock for a closed connection."""
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            timeout: float = self.config.header_timeout_s  # type: ignore[attr-defined]
            self._header_timer = self.loop.call_later(timeout, self._headers_too_slow)

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


def server_config(app: Starlette, config: Config, **more: Any) -> uvicorn.Config:
    """uvicorn's configuration for the webhook app, with the limits a public listener needs:
    connections and requests at once (503 beyond), headers in `config.header_timeout_s`, an
    idle keep-alive closed after KEEP_ALIVE_S; request lines and headers of at most
    MAX_HEADER_BYTES (h11)."""
    server = uvicorn.Config(
        app,
        http=_Protocol,
        limit_concurrency=config.max_connections,
        timeout_keep_alive=KEEP_ALIVE_S,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
        **more,
    )
    server.header_timeout_s = config.header_timeout_s  # type: ignore[attr-defined]
    return server


class _Server(uvicorn.Server):
    """uvicorn's server, leaving the signals to `serve()` (which stops everything in order)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        """Handle no signals here."""
        yield


async def _serve_webhook(runtime: Runtime, sock: socket.socket, stop: asyncio.Event) -> None:
    config = runtime.config

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[dict[str, Any]]:
        yield state_of(runtime)  # opened already, closed by `serve()`

    app = _app(config, lifespan)
    server = _Server(server_config(app, config, log_level=config.log_level.lower(), lifespan="on"))
    await start_webhook(runtime)
    log.info(
        "webhook mode (serving %s): listening on %s:%s",
        config.serve,
        config.listen_host,
        config.listen_port,
    )
    served = asyncio.create_task(server.serve(sockets=[sock]))
    stopped = asyncio.create_task(stop.wait())
    await asyncio.wait({served, stopped}, return_when=asyncio.FIRST_COMPLETED)
    server.should_exit = True  # uvicorn lets the requests in flight finish
    # The Mini App's event streams never finish by themselves: end them now, or uvicorn
    # waits its whole GRACEFUL_SHUTDOWN_S for them (their pages reconnect elsewhere).
    await runtime.service.store.app.events.close()
    await served
    stopped.cancel()


async def _serve_polling(runtime: Runtime, stop: asyncio.Event) -> None:
    async def handle(update: object, _: ContextTypes.DEFAULT_TYPE) -> None:
        if isinstance(update, Update):
            answer = await runtime.process(update)
            if answer is not None:
                try:
                    await answer.send(runtime.bot)
                except TelegramError as err:  # e.g. the press is too old to answer
                    log.warning("callback answer refused: %s", err)

    async def on_error(_: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        log.error("update failed: %r", context.error, exc_info=context.error)

    # Updates are handled side by side (a handler never waits for a rate window, but it
    # does wait for Redis and, asking who is an admin, for Telegram).
    application = (
        Application.builder().bot(runtime.bot).concurrent_updates(CONCURRENT_UPDATES).build()
    )
    application.add_handler(TypeHandler(Update, handle))
    application.add_error_handler(on_error)
    await runtime.publish_commands()
    await application.initialize()
    await application.start()
    assert application.updater is not None
    # start_polling removes a webhook that is still set (Telegram allows one or the other).
    await application.updater.start_polling(allowed_updates=ALLOWED_UPDATES)
    runtime.start_background()
    log.info("polling mode: bot @%s", runtime.bot.username)
    try:
        await stop.wait()
    finally:
        await application.updater.stop()
        await application.stop()
        await application.shutdown()


async def serve(config: Config) -> None:
    """Start the bot, serve until SIGTERM or SIGINT, and stop cleanly.

    Raises StartupError (one line, and an exit code) when it cannot start.
    """
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    sock = listen_socket(config.listen_host, config.listen_port) if config.listens else None
    # /metrics never on the public listener: on METRICS_PORT (meant for loopback or a
    # private network), in both modes, or not at all.
    if config.metrics_port:
        metrics_sock = listen_socket(config.listen_host, config.metrics_port, "METRICS_PORT")
        metrics_sock.close()  # free, so prometheus-client may bind it now
        try:
            prometheus_client.start_http_server(config.metrics_port, config.listen_host)
        except OSError as err:
            if sock is not None:
                sock.close()
            raise StartupError(
                f"METRICS_PORT {config.metrics_port}: {err.strerror}", CONFIG_EXIT
            ) from None
    try:
        async with Runtime.open(config) as runtime:
            if sock is not None:
                await _serve_webhook(runtime, sock, stop)
            else:
                await _serve_polling(runtime, stop)
    finally:
        if sock is not None:
            sock.close()


def setup_logging(config: Config) -> None:
    """Log lines with time and level; never a URL with the token in it."""
    # RetryAfter.retry_after becomes a timedelta in python-telegram-bot 23; the sender
    # takes both, so opt in now and skip the deprecation warning.
    os.environ.setdefault("PTB_TIMEDELTA", "1")
    logging.basicConfig(
        level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    redact_secrets(config.bot_token, config.webhook_secret or "")
    # httpx logs every request URL at INFO, and the URL holds the bot token.
    logging.getLogger("httpx").setLevel(logging.WARNING)


def run(config: Config) -> None:
    """Webhook mode when WEBHOOK_URL is set (or SERVE=app), else polling; StartupError when
    it cannot start."""
    setup_logging(config)
    asyncio.run(serve(config))
