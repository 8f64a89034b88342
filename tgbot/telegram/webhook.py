"""The webhook app: POST updates (checked against the secret), GET /healthz."""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from telegram import Bot, Update

from ..storage.store import Conflict
from .answers import CallbackAnswer

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 1 << 20
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def build_webhook_app(
    bot: Bot,
    process: Callable[[Update], Awaitable[CallbackAnswer | None]],
    healthy: Callable[[], Awaitable[bool]],
    secret: str | None,
    path: str,
    lifespan: Callable | None = None,
) -> Starlette:
    """An ASGI app that answers only after the update's step is committed; it also serves
    GET /healthz and the Prometheus metrics at GET /metrics.

    A button press's answer rides in the response body (Telegram runs the method it names),
    which saves the bot one request per press.
    """

    async def telegram(request: Request) -> Response:
        given = request.headers.get(SECRET_HEADER, "")
        if secret is None or not hmac.compare_digest(given.encode(), secret.encode()):
            return PlainTextResponse("forbidden", status_code=403)
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
            return PlainTextResponse("too large", status_code=413)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY_BYTES:
                return PlainTextResponse("too large", status_code=413)
        try:
            data = json.loads(body)
            if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
                raise ValueError("not an update")
        except ValueError as err:
            log.warning("malformed update refused: %s", err)
            return PlainTextResponse("bad request", status_code=400)
        try:
            update = Update.de_json(data, bot)
        except (ValueError, TypeError, KeyError) as err:
            # The secret matched, so Telegram sent it: an error answer would only make
            # Telegram send it again and again. Drop it, loudly.
            log.error("update %s could not be read, dropped: %r", data["update_id"], err)
            return PlainTextResponse("ignored")
        try:
            answer = await process(update)
        except (RedisError, Conflict, OSError) as err:
            log.error("update %s not applied, storage unavailable: %s", update.update_id, err)
            return PlainTextResponse("unavailable", status_code=503)
        except Exception:
            log.exception("update %s failed", update.update_id)
            return PlainTextResponse("error", status_code=500)
        if answer is not None:
            return JSONResponse(answer.webhook_reply())
        return PlainTextResponse("ok")

    async def metrics(_: Request) -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    async def healthz(_: Request) -> Response:
        try:
            ok = await healthy()
        except (RedisError, OSError):
            ok = False
        return JSONResponse({"ok": ok}, status_code=200 if ok else 503)

    return Starlette(
        routes=[
            Route(path, telegram, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
