"""The Mini App's API: the game as the user may see it, their decisions, and the stream of
the game's new revisions (Server-Sent Events), each call signed by Telegram (auth.py).

A second edge beside tgbot/telegram, calling the same service: a decision goes through the
same press as the chat's button (`GameService.app_decide`), applied once per request id.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from ..config import Config
from ..rendering import notices
from ..service.game_service import GameService
from ..service.records import GAME_ID
from ..service.results import Person
from ..storage.app import CLOSED, RESET
from ..storage.clients import storage_error
from .auth import AppUser, AuthError, validate

log = logging.getLogger(__name__)

API = "/app/api"
THROTTLE_WINDOW_S = 10  # as for updates (telegram/handlers.py)
HEARTBEAT_S = 15.0
MAX_BODY_BYTES = 4096
GAME_ID_SHAPE = re.compile(GAME_ID)
REQUEST_ID_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,64}")
PENDING_WAITS = 30  # a repeat of a request still being handled waits this many times
PENDING_WAIT_S = 0.1


def _error(status: int, reason: str) -> JSONResponse:
    return JSONResponse({"error": reason}, status_code=status)


def api_routes(service: Callable[[], GameService], config: Config) -> list[BaseRoute]:
    """The API's routes, for the one webhook app (`run._app`); `service` gives the process's
    one service, asked for at each request."""

    def user_of(init_data: str) -> AppUser:
        return validate(init_data, config.bot_token, config.webapp_auth_max_age_s, time.time())

    async def open_call(request: Request, init_data: str) -> Person | Response:
        """The signed user (or the 401), counted for the throttle (or the 429)."""
        try:
            user = user_of(init_data)
        except AuthError as err:
            return _error(401, str(err))
        count = await service().store.app.hit(user.id, THROTTLE_WINDOW_S)
        if count > config.person_updates_per_10s:
            return _error(429, "too fast")
        return Person(user.id, user.name, user.language_code)

    def header_data(request: Request) -> str:
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        return value.strip() if scheme.lower() == "tma" else ""

    def game_param(request: Request) -> str | None:
        game = request.query_params.get("game") or None
        if game is not None and not GAME_ID_SHAPE.fullmatch(game):
            return ""
        return game

    async def view(request: Request) -> Response:
        person = await open_call(request, header_data(request))
        if isinstance(person, Response):
            return person
        game = game_param(request)
        if game == "":
            return _error(400, "bad game")
        shown = await service().app_view(person, game)
        if shown is None:
            return _error(404, "no game")
        return JSONResponse(shown, headers={"Cache-Control": "no-store"})

    async def decide(request: Request) -> Response:
        person = await open_call(request, header_data(request))
        if isinstance(person, Response):
            return person
        body = await request.body()
        try:
            if len(body) > MAX_BODY_BYTES:
                raise ValueError("too large")
            data = json.loads(body)
            game, revision = str(data["game"]), data["revision"]
            code, request_id = str(data["decision"]), str(data["request_id"])
            if type(revision) is not int or not GAME_ID_SHAPE.fullmatch(game):
                raise ValueError("bad revision or game")
            if not REQUEST_ID_SHAPE.fullmatch(request_id) or len(code) > 16:
                raise ValueError("bad request id or decision")
        except (ValueError, KeyError, TypeError, RecursionError):
            return _error(400, "bad request")
        store = service().store.app
        for _ in range(PENDING_WAITS):
            before = await store.claim_request(person.id, request_id)
            if before is None or not before.get("pending"):
                break
            await asyncio.sleep(PENDING_WAIT_S)  # its first handling is still under way
        if before is not None:
            if before.get("pending"):
                return JSONResponse({"ok": False, "error": "busy"}, status_code=409)
            return JSONResponse(before["body"], status_code=int(before["status"]))
        try:
            decided = await service().app_decide(person, game, revision, code)
        except BaseException:
            await store.forget_request(person.id, request_id)  # it changed nothing: retry
            raise
        answer: dict[str, Any]
        if decided.ok:
            status, answer = 200, {"ok": True, "revision": decided.revision}
        else:
            t = service().catalogs.get(decided.said.lang or "ka")
            status = 403 if decided.forbidden else 409
            answer = {"ok": False, "error": notices.say(t, decided.said)}
        await store.answer_request(person.id, request_id, {"status": status, "body": answer})
        return JSONResponse(answer, status_code=status)

    async def events(request: Request) -> Response:
        person = await open_call(request, request.query_params.get("tma", ""))
        if isinstance(person, Response):
            return person
        game = game_param(request)
        if not game:
            return _error(400, "bad game")
        try:
            after = int(request.query_params.get("after") or -1)
        except ValueError:
            return _error(400, "bad after")
        games = service().store.games
        if await games.record(game) is None:
            return _error(404, "no game")

        async def revision_now() -> int:
            raw = await games.record(game)
            return -1 if raw is None else int(raw.get("rev", 0))

        async def stream() -> AsyncIterator[str]:
            last = after
            async with service().store.app.events.listen(game) as queue:
                # Listening first, then reading: a revision committed in between is heard.
                now, heard = await revision_now(), False
                yield ": listening\n\n"
                while True:
                    # A record saved again without a step (a prompt's deadline starts once
                    # it is delivered) is told again under the same revision.
                    if now > last or (heard and now == last):
                        last = now
                        data = json.dumps({"game": game, "revision": now})
                        yield f"event: revision\ndata: {data}\n\n"
                    try:
                        got = await asyncio.wait_for(queue.get(), HEARTBEAT_S)
                    except TimeoutError:
                        yield ": heartbeat\n\n"
                        continue
                    if got == CLOSED:
                        return  # the process stops: the page reconnects, to another one
                    heard = got != RESET
                    now = got if heard else await revision_now()

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    def guarded(handler: Callable[[Request], Any]) -> Callable[[Request], Any]:
        async def run(request: Request) -> Response:
            try:
                response: Response = await handler(request)
            except Exception as err:
                if storage_error(err):
                    log.error("Mini App call failed, storage unavailable: %r", err)
                    return _error(503, "unavailable")
                raise
            return response

        return run

    return [
        Route(f"{API}/view", guarded(view), methods=["GET"]),
        Route(f"{API}/decide", guarded(decide), methods=["POST"]),
        Route(f"{API}/events", guarded(events), methods=["GET"]),
    ]
