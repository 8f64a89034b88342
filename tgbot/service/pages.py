"""The pages room: what the Mini App's edge keeps for its pages (their process's lease,
each person's pace, a decision's request handled once, single-use stream tickets) and the
game revisions a page listens to."""

from __future__ import annotations

import asyncio
import secrets
from contextlib import AbstractAsyncContextManager
from typing import Any

from ..storage.store import Store

TICKET_TTL_S = 60  # a page opens its stream at once with its ticket


class PagesRoom:
    """The Mini App's bookkeeping, apart from the game it shows (`AppRoom`)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def alive(self, process: str, ttl_ms: int) -> None:
        """`process` still holds its pages' event streams, for `ttl_ms`."""
        await self.store.app.pages_alive(process, ttl_ms)

    async def hit(self, person_id: int, window_s: int) -> int:
        """Count one API call of a person in the current window; return the count."""
        return await self.store.app.hit(person_id, window_s)

    async def take_request(
        self, person_id: int, game_id: str, request_id: str
    ) -> dict[str, Any] | None:
        """Take a decision's request id for its first handling (None), or what its first
        handling answered ({"pending": true} while it is still under way)."""
        return await self.store.app.claim_request(person_id, game_id, request_id)

    async def keep_answer(
        self, person_id: int, game_id: str, request_id: str, answer: dict[str, Any]
    ) -> None:
        """Keep what an accepted request was answered, for its repeats."""
        await self.store.app.answer_request(person_id, game_id, request_id, answer)

    async def forget_request(self, person_id: int, game_id: str, request_id: str) -> None:
        """A request that changed nothing: it may come again."""
        await self.store.app.forget_request(person_id, game_id, request_id)

    async def ticket(self, person_id: int, game_id: str, auth_date: int) -> str | None:
        """A single-use ticket for one event stream of a game (None: no such game)."""
        if await self.store.games.record(game_id) is None:
            return None
        issued = secrets.token_urlsafe(24)
        grant = {"user": person_id, "game": game_id, "auth_date": auth_date}
        await self.store.app.issue_ticket(issued, grant, TICKET_TTL_S)
        return issued

    async def take_ticket(self, given: str) -> dict[str, Any] | None:
        """What a ticket grants, once; None if unknown or expired."""
        return await self.store.app.take_ticket(given)

    async def revision(self, game_id: str) -> int:
        """The game's revision now (-1: no such game any more)."""
        raw = await self.store.games.record(game_id)
        return -1 if raw is None else int(raw.get("rev", 0))

    def listen(self, game_id: str) -> AbstractAsyncContextManager[asyncio.Queue[int]]:
        """The game's new revisions, as a queue, while the block runs (`EventHub.listen`)."""
        return self.store.app.events.listen(game_id)
