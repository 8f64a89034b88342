"""The webhook app: POST updates (checked against the secret), GET /healthz."""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route
from telegram import Bot, Update
from telegram.error import BadRequest, NetworkError, RetryAfter

from ..storage.clients import storage_error
from ..storage.commit import Conflict
from .answers import CallbackAnswer

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 1 << 20
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
SERVING = "serving"  # the key of the app's state under which its lifespan puts a Serving


class Serving(Protocol):
    """What the webhook app serves updates with: the process's runtime."""

    @property
    def bot(self) -> Bot:
        """The process's one bot object, which updates are decoded with."""

    async def process(self, update: Update) -> CallbackAnswer | None:
        """Handle one update; the answer a button press gets, if any."""

    async def healthy(self) -> bool:
        """Whether the process can do its work."""


Lifespan = Callable[[Starlette], AbstractAsyncContextManager[Mapping[str, Any]]]


def build_webhook_app(
    secret: str | None,
    path: str,
    lifespan: Lifespan,
    routes: Sequence[BaseRoute] = (),
    updates: bool = True,
) -> Starlette:
    """An ASGI app that answers only after the update's step is committed; it also serves
    GET /healthz and `routes` (the Mini App's). Never /metrics: that is served apart, on
    METRICS_PORT (`run.serve`), not on the public listener.

    `lifespan` puts the process's runtime in the app's state, under SERVING: each request
    is served by it (Starlette's lifespan state, so no holder or getter is passed around).
    A button press's answer rides in the response body (Telegram runs the method it names),
    which saves the bot one request per press. `updates` False: no update route (a process
    that serves only the Mini App, `SERVE=app`).
    """

    async def telegram(request: Request) -> Response:
        serving: Serving = getattr(request.state, SERVING)
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
        # The secret matched, so Telegram sent it: any answer but 200 would only make
        # Telegram send it again for hours. What we cannot use is dropped with one log line
        # (no traceback). Only a storage outage answers 503, so that Telegram retries it.
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as err:
            log.warning("undecodable update dropped: %s", type(err).__name__)
            return PlainTextResponse("ignored")
        if not isinstance(data, dict) or type(data.get("update_id")) is not int:
            log.warning("body without an update_id dropped")
            return PlainTextResponse("ignored")
        update_id = data["update_id"]
        try:
            update = Update.de_json(data, serving.bot)
            query = update.callback_query
            # de_json lets some required fields through missing or of the wrong type.
            if query is not None and (not isinstance(query.id, str) or query.from_user is None):
                raise TypeError("callback_query without id or sender")
            user, chat = update.effective_user, update.effective_chat
            if (user is not None and type(user.id) is not int) or (
                chat is not None and type(chat.id) is not int
            ):
                raise TypeError("a user or chat id that is not a number")
        except Exception as err:  # python-telegram-bot raises all kinds on odd shapes
            log.warning("update %s could not be read, dropped: %s", update_id, type(err).__name__)
            return PlainTextResponse("ignored")
        try:
            answer = await serving.process(update)
        except Conflict as err:
            log.error("update %s not applied, too many writers: %s", update_id, err)
            return PlainTextResponse("unavailable", status_code=503)
        except (NetworkError, RetryAfter) as err:
            # Telegram itself was out of reach (asking who is an admin, say): retried later.
            # BadRequest is a NetworkError too, but it is a refusal that would come again.
            if not isinstance(err, BadRequest):
                log.error("update %s not applied, Telegram unreachable: %s", update_id, err)
                return PlainTextResponse("unavailable", status_code=503)
            log.exception("update %s failed, dropped", update_id)
            return PlainTextResponse("error")
        except Exception as err:
            # Redis away, or a connection of redis-py's dying under it (in a failover):
            # what the update did is undone or recorded with it, so Telegram may retry it.
            if storage_error(err):
                log.error("update %s not applied, storage unavailable: %r", update_id, err)
                return PlainTextResponse("unavailable", status_code=503)
            # A bug of ours: a retry would fail the same way, so say so once and drop it.
            log.exception("update %s failed, dropped", update_id)
            return PlainTextResponse("error")
        if answer is not None:
            return JSONResponse(answer.webhook_reply())
        return PlainTextResponse("ok")

    async def healthz(request: Request) -> Response:
        serving: Serving = getattr(request.state, SERVING)
        try:
            ok = await serving.healthy()
        except Exception as err:
            if not storage_error(err):
                raise
            ok = False
        return JSONResponse({"ok": ok}, status_code=200 if ok else 503)

    update_routes = [Route(path, telegram, methods=["POST"])] if updates else []
    return Starlette(
        routes=[*update_routes, Route("/healthz", healthz, methods=["GET"]), *routes],
        lifespan=lifespan,
    )
