"""Start-up checks: every failure becomes one line that says what to do, and an exit code.

Exit code 2: fix a setting or the installation (a bad token, a port in use, a missing
catalogue, no Redis server to run). Exit code 1: a dependency does not answer (Redis or
Telegram unreachable after a few tries): the same command may work later.
"""

from __future__ import annotations

import asyncio
import errno
import socket
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar
from urllib.parse import urlsplit, urlunsplit

from redis import exceptions as redis_errors
from telegram import Bot
from telegram.error import BadRequest, InvalidToken, NetworkError

from .storage.clients import Client, NotACluster, open_client

CONFIG_EXIT = 2
UNREACHABLE_EXIT = 1
FIRST_RETRY_S = 0.25
LONGEST_RETRY_S = 4.0

T = TypeVar("T")


class StartupError(Exception):
    """The bot cannot start; `str()` is the one line to print, `exit_code` the status."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def redact(text: str, *secrets: str | None) -> str:
    """`text` with every secret replaced by a placeholder."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "<hidden>")
    return text


def safe_url(url: str) -> str:
    """A URL (or REDIS_URL's comma-separated nodes) without its password, fit for a log line."""
    if "," in url:
        return ", ".join(safe_url(part.strip()) for part in url.split(",") if part.strip())
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _reason(err: BaseException) -> str:
    return str(err) or type(err).__name__


async def with_retries(
    attempt: Callable[[], Awaitable[T]],
    retry_on: tuple[type[BaseException], ...],
    budget_s: float,
    never_retry: tuple[type[BaseException], ...] = (),
) -> T:
    """Run `attempt`, retrying with doubling pauses while it fails with `retry_on`,
    for about `budget_s` seconds; the last failure is raised."""
    deadline = time.monotonic() + budget_s
    pause = FIRST_RETRY_S
    while True:
        try:
            return await attempt()
        except never_retry:
            raise
        except retry_on:
            if time.monotonic() + pause > deadline:
                raise
            await asyncio.sleep(pause)
            pause = min(pause * 2, LONGEST_RETRY_S)


async def probe_redis(redis: Client, probe_key: str) -> None:
    """Ping Redis and write one short-lived key: raises if it cannot be reached or written."""
    await redis.ping()
    await redis.set(probe_key, "1", px=60_000)


async def redis_ready(url: str, probe_key: str, budget_s: float) -> Client:
    """A client for `url` (one server's or a cluster's, `open_client`) once Redis answers
    and accepts writes, trying every node it names for a bounded time, else a StartupError."""
    where = safe_url(url)

    async def attempt() -> Client:
        redis = await open_client(url)
        try:
            await probe_redis(redis, probe_key)
        except BaseException:
            await redis.aclose()
            raise
        return redis

    try:
        return await with_retries(
            attempt,
            # A cluster's client says RedisClusterException when no node it knows answers.
            (
                redis_errors.ConnectionError,
                redis_errors.TimeoutError,
                redis_errors.RedisClusterException,
                OSError,
            ),
            budget_s,
            never_retry=(redis_errors.AuthenticationError,),
        )
    except NotACluster as err:
        raise StartupError(
            f"REDIS_URL names {err.nodes} nodes, but {safe_url(err.node)} is not in cluster "
            "mode: name one server, or nodes of one Redis Cluster",
            CONFIG_EXIT,
        ) from None
    except redis_errors.AuthenticationError as err:
        raise StartupError(
            f"Redis at {where} refused the login ({_reason(err)}): fix REDIS_URL", CONFIG_EXIT
        ) from None
    except redis_errors.ResponseError as err:  # OOM, READONLY replica, MISCONF disk errors
        raise StartupError(
            f"Redis at {where} refuses writes ({_reason(err)}): "
            "give it memory (maxmemory) or point REDIS_URL at a writable primary",
            UNREACHABLE_EXIT,
        ) from None
    except (redis_errors.RedisError, redis_errors.RedisClusterException, OSError) as err:
        raise StartupError(
            f"cannot reach Redis at {where} ({_reason(err)}): start it or fix REDIS_URL",
            UNREACHABLE_EXIT,
        ) from None


async def telegram_ready(bot: Bot, api_base_url: str, budget_s: float) -> None:
    """Log in to the Bot API (getMe) with a bounded number of tries, else a StartupError."""
    token = bot.token
    where = redact(api_base_url, token).removesuffix("/bot")
    try:
        await with_retries(
            bot.initialize, (NetworkError,), budget_s, never_retry=(BadRequest, InvalidToken)
        )
    except InvalidToken:
        raise StartupError(
            "Telegram refused BOT_TOKEN: copy the token again from @BotFather", CONFIG_EXIT
        ) from None
    except NetworkError as err:
        raise StartupError(
            f"cannot reach the Telegram Bot API at {where} ({redact(_reason(err), token)}): "
            "check the network, or TELEGRAM_API_URL",
            UNREACHABLE_EXIT,
        ) from None


def listen_socket(host: str, port: int, variable: str = "PORT") -> socket.socket:
    """A bound, listening TCP socket, or a StartupError that names the setting to change."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(256)
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            why = "is in use: stop what listens there, or"
        elif err.errno == errno.EACCES:
            why = "needs privileges:"
        else:
            why = f"cannot be used ({err.strerror}):"
        raise StartupError(
            f"port {port} on {host} {why} set {variable} to another port", CONFIG_EXIT
        ) from None
    sock.setblocking(False)
    return sock
