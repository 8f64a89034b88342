"""Redis keys and once-per-game writes for game records, ratings and personal stats.

Every write here is its own single-slot transaction, so that it works on Redis Cluster
too: a game's record shares the game's hash tag; a rating board (one per group, one over
all groups) has the tag ``{r:<scope>}``; a person's stats the tag ``{u:<id>}``. Each scope
keeps the games it has counted in a sorted set in its own slot (game id -> when it ended):
a game is counted in a scope in the same transaction that adds it there, so counting again
after a crash or a retry changes nothing.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import WatchError

from .commit import Stale, retried
from .keys import Keys

GLOBAL_SCOPE = "all"


def group_scope(chat_id: int) -> str:
    """The rating scope of one group."""
    return f"c:{chat_id}"


@dataclass(frozen=True, slots=True)
class Rated:
    """One member's rating on a board."""

    member: str
    mu: float
    sigma: float
    games: int
    wins: int
    name: str


def read_rated(member: str, raw: str | None) -> Rated | None:
    """Parse a member's stored rating."""
    if raw is None:
        return None
    data = json.loads(raw)
    return Rated(member, data["mu"], data["s"], data["g"], data["w"], data.get("n", member))


def rated_json(r: Rated) -> str:
    """The stored form of a rating."""
    return json.dumps(
        {"mu": round(r.mu, 6), "s": round(r.sigma, 6), "g": r.games, "w": r.wins, "n": r.name},
        ensure_ascii=False,
        separators=(",", ":"),
    )


@dataclass(slots=True)
class RatingRound:
    """One attempt at counting a game on a board (`HistoryStore.rating_round`)."""

    counted: bool  # the game is on the board already: nothing is written
    seen: dict[str, Rated | None] = field(default_factory=dict)  # the members' ratings
    # What the block sets: (new rating, is AI, conservative score) for each member.
    new: list[tuple[Rated, bool, float]] = field(default_factory=list)


class HistoryStore:
    """Reads and once-per-game writes of records, boards and personal stats."""

    def __init__(self, redis: Redis, prefix: str) -> None:
        self.redis = redis
        self.keys = Keys(prefix)

    async def archive(self, game_id: str) -> dict[str, Any] | None:
        """A finished game's record, if it is still kept."""
        raw = await self.redis.get(self.keys.archive(game_id))
        return None if raw is None else json.loads(raw)

    @staticmethod
    async def _listed(pipe: Any, games_key: str, game_id: str, end_ms: int, keep_ms: int) -> None:
        """List the game in `games_key`'s scope (forgetting those older than `keep_ms`) with
        what `pipe` queued since MULTI, all in one transaction; Stale if what it watched
        changed meanwhile (the caller's attempt runs again: `retried`)."""
        pipe.zadd(games_key, {game_id: end_ms})
        pipe.zremrangebyscore(games_key, "-inf", end_ms - keep_ms)
        try:
            await pipe.execute()
        except WatchError:
            raise Stale(f"{games_key} changed while a game was counted there") from None

    @contextlib.asynccontextmanager
    async def rating_round(
        self, scope: str, game_id: str, end_ms: int, keep_ms: int, members: list[str]
    ) -> AsyncIterator[RatingRound]:
        """One attempt at counting a game on a board once, as a block: it gives the members'
        ratings as they are (read under WATCH) and whether the game is counted there
        already; leaving it writes the new ratings the block set (none: the game is only
        listed there) with the game's listing, in one transaction. Raises Stale when the
        board changed meanwhile: the caller runs its attempt again (`retried`)."""
        keys = self.keys
        ratings, games_key = keys.ratings(scope), keys.scope_games(scope)
        async with self.redis.pipeline(transaction=True) as pipe:
            await pipe.watch(games_key, ratings)
            board = RatingRound(await pipe.zscore(games_key, game_id) is not None)
            if members and not board.counted:
                raw = await pipe.hmget(ratings, members)
                board.seen = {m: read_rated(m, r) for m, r in zip(members, raw, strict=True)}
            yield board
            if board.counted:
                return
            pipe.multi()
            for new, ai, score in board.new:
                pipe.hset(ratings, new.member, rated_json(new))
                pipe.zadd(keys.ranks(scope, ai), {new.member: score})
            await self._listed(pipe, games_key, game_id, end_ms, keep_ms)

    @retried
    async def count_person_once(
        self, user_id: int, game_id: str, end_ms: int, keep_ms: int, counts: dict[str, int]
    ) -> bool:
        """Add a game's counts to a person's stats once (and list the game as theirs); True
        if they were added now."""
        games_key = self.keys.person_games(user_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            await pipe.watch(games_key)
            if await pipe.zscore(games_key, game_id) is not None:
                return False
            pipe.multi()
            for name, amount in counts.items():
                pipe.hincrby(self.keys.person_stats(user_id), name, amount)
            await self._listed(pipe, games_key, game_id, end_ms, keep_ms)
            return True

    async def board(self, scope: str, ai: bool, n: int) -> list[Rated]:
        """The n best members of a board, best first."""
        keys = self.keys
        top = await self.redis.zrevrange(keys.ranks(scope, ai), 0, n - 1)
        if not top:
            return []
        members = list(top)
        raw = await self.redis.hmget(keys.ratings(scope), members)
        return [r for m, x in zip(members, raw, strict=True) if (r := read_rated(m, x))]

    async def rating(self, scope: str, member: str) -> Rated | None:
        """One member's rating on a board."""
        return read_rated(member, await self.redis.hget(self.keys.ratings(scope), member))

    async def person_stats(self, user_id: int) -> dict[str, int]:
        """A person's counts."""
        raw = await self.redis.hgetall(self.keys.person_stats(user_id))
        return {k: int(v) for k, v in raw.items()}

    async def latest_of_person(self, user_id: int, n: int) -> list[str]:
        """The n most recent games a person played, newest first."""
        return await self._latest(self.keys.person_games(user_id), n)

    async def latest_of_scope(self, scope: str, n: int) -> list[str]:
        """The n most recent games counted on a board, newest first."""
        return await self._latest(self.keys.scope_games(scope), n)

    async def _latest(self, games_key: str, n: int) -> list[str]:
        return list(await self.redis.zrevrange(games_key, 0, n - 1))
