"""The Mini App's API: the game as the user may see it, their decisions, and the stream of
the game's new revisions (Server-Sent Events), each call signed by Telegram (auth.py).

A second edge beside tgbot/telegram, calling the same service: a decision goes through the
same press as the chat's button (`service.app.app_decide`), applied once per request id.
The edge's own limits: a body read no further than 4 KB, event streams opened by a
single-use ticket (no credential in a URL), a few per person and a bounded number per
process, each ending at a lifetime and when its initData expires.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from ..config import Config
from ..rendering import notices
from ..rendering.app_view import page_texts
from ..rendering.i18n import pick_language
from ..service.game_service import GameService
from ..service.pages import TICKET_TTL_S
from ..service.records import GAME_ID
from ..service.results import Person
from ..storage.app import CLOSED, RESET
from ..storage.clients import storage_error
from .auth import AppUser, AuthError, validate

log = logging.getLogger(__name__)

SERVICE = "service"  # the key of the app's state under which its lifespan puts the service

API = "/app/api"
THROTTLE_WINDOW_S = 10  # as for updates (telegram/handlers.py)
HEARTBEAT_S = 15.0
# An open stream says its page follows the game (asked in the page first: lanes.py) while
# it is open and its process lives: one lease per process for all its pages, lasting
# PAGES_LEASE_MS, renewed every PAGES_RENEW_S while any is open (an idle page costs Redis
# nothing); a process killed stops counting within the lease's life.
PAGES_LEASE_MS = 30_000
PAGES_RENEW_S = 10.0
MAX_BODY_BYTES = 4096
BODY_READ_S = 5.0  # a decision's few bytes come at once; a body slower than this is refused
STREAM_RETRY_AFTER_S = 30  # a full process: the page may try again (another process) then
GAME_ID_SHAPE = re.compile(GAME_ID)
REQUEST_ID_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,64}")
TICKET_SHAPE = re.compile(r"[A-Za-z0-9_-]{20,64}")
PENDING_WAITS = 30  # a repeat of a request still being handled waits this many times
PENDING_WAIT_S = 0.1
# Every API answer: never cached by anyone, never sniffed as another type.
API_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


def _error(status: int, reason: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": reason}, status_code=status, headers=headers)


class _TooLarge(Exception):
    """A body longer than MAX_BODY_BYTES."""


async def _read_body(request: Request) -> bytes:
    """The body, read no further than MAX_BODY_BYTES (else _TooLarge) and within
    BODY_READ_S (else TimeoutError)."""
    body = b""
    async with asyncio.timeout(BODY_READ_S):
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY_BYTES:
                raise _TooLarge
    return body


def _declared_too_large(request: Request) -> bool:
    declared = request.headers.get("content-length")
    return declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES)


@dataclass(eq=False)
class _Stream:
    """One open event stream of one person, and how to end it early."""

    user_id: int
    queue: asyncio.Queue[int] | None = None
    ended: bool = False

    def end(self) -> None:
        """Make the stream end now (its page reconnects)."""
        self.ended = True
        if self.queue is not None:
            self.queue.put_nowait(CLOSED)


@dataclass
class StreamLimits:
    """The event streams one process holds: at most `per_person` of one person (a new one
    ends their oldest: a page that lost its connection unnoticed is not locked out) and
    `per_process` in all (more are refused)."""

    per_person: int
    per_process: int
    open: dict[int, list[_Stream]] = field(default_factory=dict)
    count: int = 0

    def take(self, user_id: int) -> _Stream | None:
        """A stream of the person, or None when the process holds all it may."""
        if self.count >= self.per_process:
            return None
        mine = self.open.setdefault(user_id, [])
        live = [s for s in mine if not s.ended]
        for old in live[: max(0, len(live) - self.per_person + 1)]:
            old.end()
        stream = _Stream(user_id)
        mine.append(stream)
        self.count += 1
        return stream

    def release(self, stream: _Stream) -> None:
        """The stream has ended."""
        mine = self.open.get(stream.user_id, [])
        if stream in mine:
            mine.remove(stream)
            self.count -= 1
        if not mine:
            self.open.pop(stream.user_id, None)


class PagesLease:
    """This process's one lease on the presence of every page whose stream it holds
    (`AppStore.pages_alive`): taken when a stream opens, renewed by one task while the
    process holds any, let lapse once it holds none."""

    def __init__(self, limits: StreamLimits) -> None:
        self.process = secrets.token_hex(8)
        self._limits = limits
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    async def hold(self, renew: Callable[[str, int], Awaitable[None]]) -> None:
        """A stream opened: the lease is fresh (or renewed now, with `renew`), and kept
        while any is."""
        if self._task is None or self._task.done():
            await renew(self.process, PAGES_LEASE_MS)
            self._task = asyncio.create_task(self._keep(renew))

    def released(self) -> None:
        """A stream ended: with none left, the keeper stops now (not a renewal later)."""
        if self._limits.count == 0:
            self._wake.set()

    async def _keep(self, renew: Callable[[str, int], Awaitable[None]]) -> None:
        while self._limits.count > 0:
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), PAGES_RENEW_S)
            if self._limits.count == 0:
                return
            try:
                await renew(self.process, PAGES_LEASE_MS)
            except Exception as err:  # tried again in PAGES_RENEW_S, well within the lease
                log.warning("the pages' lease not renewed: %r", err)


class _EventStream(StreamingResponse):
    """A StreamingResponse that frees its place in the limits however it ends (even when
    its body never starts: the client went away first)."""

    def __init__(
        self,
        body: AsyncIterator[str],
        limits: StreamLimits,
        stream: _Stream,
        ended: Callable[[], Awaitable[None]],
    ) -> None:
        super().__init__(body, media_type="text/event-stream", headers={"X-Accel-Buffering": "no"})
        self._limits, self._stream, self._ended = limits, stream, ended

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Stream the body, then free the place and say that the page has gone."""
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._limits.release(self._stream)
            try:
                await self._ended()
            except Exception as err:  # its presence lapses by itself
                log.warning("a closed page's presence not ended: %r", err)


def service_of(request: Request) -> GameService:
    """The process's one service, which the app's lifespan put in its state (`run._app`)."""
    service: GameService = getattr(request.state, SERVICE)
    return service


def api_routes(config: Config) -> list[BaseRoute]:
    """The API's routes, for the one webhook app (`run._app`); each request calls the
    process's one service (`service_of`)."""
    return MiniAppApi(config).routes()


class MiniAppApi:
    """The API's handlers, with what the process keeps for them: its limits on event
    streams and its pages' lease."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.limits = StreamLimits(
            config.webapp_streams_per_person, config.webapp_streams_per_process
        )
        self.lease = PagesLease(self.limits)

    def _user_of(self, init_data: str) -> AppUser:
        return validate(
            init_data, self.config.bot_token, self.config.webapp_auth_max_age_s, time.time()
        )

    async def _counted(self, service: GameService, person: Person) -> Response | None:
        """The 429 when the person calls too fast, counted for the throttle."""
        count = await service.pages.hit(person.id, THROTTLE_WINDOW_S)
        if count > self.config.person_updates_per_10s:
            return _error(429, "too fast")
        return None

    async def _open_call(self, request: Request) -> tuple[Person, AppUser] | Response:
        """The signed user of the `Authorization: tma <initData>` header (or the 401),
        counted for the throttle (or the 429)."""
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        try:
            user = self._user_of(value.strip() if scheme.lower() == "tma" else "")
        except AuthError as err:
            return _error(401, str(err))
        person = Person(user.id, user.name, user.language_code)
        return await self._counted(service_of(request), person) or (person, user)

    async def view(self, request: Request) -> Response:
        """GET view: the game as the signed user may see it (404: no game of theirs)."""
        called = await self._open_call(request)
        if isinstance(called, Response):
            return called
        game = _game_param(request)
        if game == "":
            return _error(400, "bad game")
        shown = await service_of(request).app.app_view(called[0], game)
        if shown is None:
            return _error(404, "no game")
        return JSONResponse(shown)

    async def decide(self, request: Request) -> Response:
        """POST decide: a decision, applied once per request id (a repeat gets the first
        answer); refused as the chat's press would be."""
        if _declared_too_large(request):
            return _error(413, "too large")  # before anything is read or checked
        called = await self._open_call(request)
        if isinstance(called, Response):
            return called
        person = called[0]
        try:
            body = await _read_body(request)
        except _TooLarge:
            return _error(413, "too large")
        except TimeoutError:
            return _error(408, "too slow")
        try:
            data = json.loads(body)
            game, revision = str(data["game"]), data["revision"]
            code, request_id = str(data["decision"]), str(data["request_id"])
            if type(revision) is not int or not GAME_ID_SHAPE.fullmatch(game):
                raise ValueError("bad revision or game")
            if not REQUEST_ID_SHAPE.fullmatch(request_id) or len(code) > 16:
                raise ValueError("bad request id or decision")
        except (ValueError, KeyError, TypeError, RecursionError):
            return _error(400, "bad request")
        service = service_of(request)
        pages = service.pages
        for _ in range(PENDING_WAITS):
            before = await pages.take_request(person.id, game, request_id)
            if before is None or not before.get("pending"):
                break
            await asyncio.sleep(PENDING_WAIT_S)  # its first handling is still under way
        if before is not None:
            if before.get("pending"):
                return JSONResponse({"ok": False, "error": "busy"}, status_code=409)
            return JSONResponse(before["body"], status_code=int(before["status"]))
        try:
            decided = await service.app.app_decide(person, game, revision, code)
        except BaseException:
            await pages.forget_request(person.id, game, request_id)  # it changed nothing
            raise
        if not decided.ok:
            # Refused, nothing changed: nothing is kept (a repeat is refused again).
            await pages.forget_request(person.id, game, request_id)
            refused = {"ok": False, "error": notices.said_text(service.catalogs, decided.said)}
            return JSONResponse(refused, status_code=403 if decided.forbidden else 409)
        answer = {"ok": True, "revision": decided.revision}
        await pages.keep_answer(person.id, game, request_id, {"status": 200, "body": answer})
        return JSONResponse(answer)

    async def words(self, request: Request) -> Response:
        """The page's words in a language (Telegram's language code of the user, unsigned:
        they are the same for everyone), so that it can say an error before any view."""
        lang = pick_language(None, request.query_params.get("lang", "")[:16] or None)
        t = service_of(request).catalogs.get(lang)
        return JSONResponse({"lang": t.language, "texts": page_texts(t)})

    async def ticket(self, request: Request) -> Response:
        """A single-use ticket for one event stream of the game, so that no initData
        travels in a URL (EventSource cannot send a header)."""
        called = await self._open_call(request)
        if isinstance(called, Response):
            return called
        person, user = called
        game = _game_param(request)
        if not game:
            return _error(400, "bad game")
        issued = await service_of(request).pages.ticket(person.id, game, user.auth_date)
        if issued is None:
            return _error(404, "no game")
        return JSONResponse({"ticket": issued, "expires_in": TICKET_TTL_S})

    async def events(self, request: Request) -> Response:
        """GET events: the game's new revisions as Server-Sent Events, opened with a
        single-use ticket, until the stream's lifetime or its initData's end."""
        given = request.query_params.get("ticket", "")
        service = service_of(request)
        grant = None
        if TICKET_SHAPE.fullmatch(given):
            grant = await service.pages.take_ticket(given)
        if grant is None:
            return _error(401, "bad ticket")
        game = str(grant["game"])
        try:
            after = int(request.query_params.get("after") or -1)
        except ValueError:
            return _error(400, "bad after")
        # The stream ends when its initData could no longer open one, or at its lifetime.
        ends_at = min(
            time.time() + self.config.webapp_stream_lifetime_s,
            int(grant["auth_date"]) + self.config.webapp_auth_max_age_s,
        )
        held = self.limits.take(int(grant["user"]))
        if held is None:
            retry = {"Retry-After": str(STREAM_RETRY_AFTER_S)}
            return _error(503, "too many streams", retry)
        pages = service.pages
        user_id, here = int(grant["user"]), secrets.token_hex(4)

        async def revision_now() -> int:
            return await pages.revision(game)

        async def stream() -> AsyncIterator[str]:
            last = after
            async with pages.listen(game) as queue:
                held.queue = queue
                if held.ended:
                    return
                # Listening first, then reading: a revision committed in between is heard.
                now, heard = await revision_now(), False
                await self.lease.hold(pages.alive)
                noted_s = self.config.webapp_stream_lifetime_s + 60  # the longest a stream lives
                await service.app.page_opened(game, user_id, here, self.lease.process, noted_s)
                yield ": listening\n\n"
                while True:
                    # A record saved again without a step (a prompt's deadline starts once
                    # it is delivered) is told again under the same revision.
                    if now > last or (heard and now == last):
                        last = now
                        data = json.dumps({"game": game, "revision": now})
                        yield f"event: revision\ndata: {data}\n\n"
                    left = ends_at - time.time()
                    if left <= 0:
                        return  # the page reconnects, with a new ticket
                    try:
                        got = await asyncio.wait_for(queue.get(), min(HEARTBEAT_S, left))
                    except TimeoutError:
                        if time.time() < ends_at:
                            yield ": heartbeat\n\n"
                        continue
                    if got == CLOSED:
                        return  # the process stops, or the person opened another: reconnect
                    heard = got != RESET
                    now = got if heard else await revision_now()

        async def ended() -> None:
            self.lease.released()
            await service.app.page_closed(game, user_id, here, self.lease.process)

        return _EventStream(stream(), self.limits, held, ended)

    def routes(self) -> list[BaseRoute]:
        """The API's routes, each answer with API_HEADERS and a storage outage as a 503."""
        return [
            Route(f"{API}/view", _guarded(self.view), methods=["GET"]),
            Route(f"{API}/words", _guarded(self.words), methods=["GET"]),
            Route(f"{API}/decide", _guarded(self.decide), methods=["POST"]),
            Route(f"{API}/ticket", _guarded(self.ticket), methods=["POST"]),
            Route(f"{API}/events", _guarded(self.events), methods=["GET"]),
        ]


def _game_param(request: Request) -> str | None:
    """The `game` query parameter: None when absent, "" when it is no game id."""
    game = request.query_params.get("game") or None
    if game is not None and not GAME_ID_SHAPE.fullmatch(game):
        return ""
    return game


def _guarded(handler: Callable[[Request], Any]) -> Callable[[Request], Any]:
    """A handler whose answers carry API_HEADERS, a storage outage answered 503."""

    async def run(request: Request) -> Response:
        try:
            response: Response = await handler(request)
        except Exception as err:
            if storage_error(err):
                log.error("Mini App call failed, storage unavailable: %r", err)
                response = _error(503, "unavailable")
            else:
                raise
        response.headers.update(API_HEADERS)
        return response

    return run
