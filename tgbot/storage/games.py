"""A game's transaction in the game's words: save its record, claim or release the
indexes that name it, arm or clear its deadline, queue its messages. Key names and time
to live are chosen here; what each write becomes in Redis is plan.py's (see commit.py for
the order in which they are written)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from .commit import Commits
from .keys import Keys
from .plan import Writes, dumps
from .updates import Handling

DAY_S = 24 * 3600
RECORD_TTL_S = 7 * DAY_S  # an untouched game (and the indexes naming it) go after a week
FINISHED_TTL_S = DAY_S  # a finished game's record and message ids, after a day
FINISHED = ("over", "cancelled")  # a game record's statuses once it is finished


@dataclass(slots=True, kw_only=True)
class GameTx(Writes):
    """Everything one transaction of a game writes, said in the game's words."""

    keys: Keys
    game_id: str

    def save(self, game_id: str, doc: dict[str, Any], revision: int, status: str) -> None:
        """Write a game's record, `doc`, at `revision`: it lives a day once finished (by
        its `status`), else a week from its last change."""
        key = self.keys.game(game_id)
        self.set_json[key] = doc
        self.expire[key] = FINISHED_TTL_S if status in FINISHED else RECORD_TTL_S
        # Said in the commit's own script: a page listening on any process hears it.
        self.publish[self.keys.game_events(game_id)] = dumps(
            {"game": game_id, "revision": revision}
        )

    def claim_chat(self, chat_id: int) -> None:
        """Make this game the group's open game (an index that stays unique: claimed
        before the commit, unless it names another live game)."""
        self._claim(self.keys.chat_game(chat_id))

    def claim_player(self, user_id: int) -> None:
        """Make this game the person's game (unique, as `claim_chat`)."""
        self._claim(self.keys.user_game(user_id))

    def _claim(self, key: str) -> None:
        self.set_str[key] = self.game_id
        self.expire[key] = RECORD_TTL_S

    def release_chat(self, chat_id: int) -> None:
        """The group's index stops naming this game (if it still does)."""
        self.delete.append(self.keys.chat_game(chat_id))

    def release_player(self, user_id: int) -> None:
        """The person's index stops naming this game (if it still does)."""
        self.delete.append(self.keys.user_game(user_id))

    def arm_deadline(self, due_ms: int) -> None:
        """The game's next deadline (epoch ms), replacing any other."""
        self.deadline_clear = [g for g in self.deadline_clear if g != self.game_id]
        self.deadline_set[self.game_id] = due_ms

    def clear_deadline(self) -> None:
        """The game has no deadline any more."""
        self.deadline_clear.append(self.game_id)

    def send_all(self, ops: list[dict[str, Any]]) -> None:
        """Queue deliveries in the game's outbox, in order."""
        for op in ops:
            self.send(self.game_id, op)

    def close(self, chat_id: int, players: list[int]) -> None:
        """The game finished: no deadline, no index names it, its message ids go with its
        record."""
        self.clear_deadline()
        self.release_chat(chat_id)
        for user_id in players:
            self.release_player(user_id)
        self.expire[self.keys.messages(self.game_id)] = FINISHED_TTL_S
        self.expire[self.keys.message_heads(self.game_id)] = FINISHED_TTL_S

    def keep_archive(self, text: str, ttl_s: int) -> None:
        """Keep the finished game's archive (its kept record, JSON) beside it for `ttl_s`
        seconds, in the game's slot (read back by `HistoryStore.archive`)."""
        key = self.keys.archive(self.game_id)
        self.set_str[key] = text
        self.expire[key] = ttl_s


class Seen:
    """What a game's transaction read: its record (JSON as stored, None when absent) and
    the game each index it watches names (None: free, or naming no live game)."""

    def __init__(self, keys: Keys, record_key: str, values: dict[str, str | None]) -> None:
        self._keys = keys
        self._values = values
        self.record = values[record_key]

    def chat(self, chat_id: int) -> str | None:
        """The live game a watched group's index names."""
        return self._values[self._keys.chat_game(chat_id)]

    def player(self, user_id: int) -> str | None:
        """The live game a watched person's index names."""
        return self._values[self._keys.user_game(user_id)]


class Games:
    """Games' records and the indexes that name them, read and written by game."""

    def __init__(self, commits: Commits, keys: Keys) -> None:
        self.commits = commits
        self.keys = keys

    async def game_of_chat(self, chat_id: int) -> str | None:
        """The game a group's index names (it may be over: read its record)."""
        return await self.commits.get(self.keys.chat_game(chat_id))

    async def game_of_player(self, user_id: int) -> str | None:
        """The game a person's index names (it may be over: read its record)."""
        return await self.commits.get(self.keys.user_game(user_id))

    async def record(self, game_id: str, update: Handling | None = None) -> Any:
        """A game's record as stored (None when gone); kept in `update` for its
        transaction."""
        return await self.commits.get_json(self.keys.game(game_id), update)

    async def record_and_prefs(
        self, game_id: str, user_id: int, update: Handling | None = None
    ) -> tuple[Any, dict[str, str]]:
        """A game's record and a person's preferences in one round trip (the record kept
        in `update` for its transaction)."""
        return await self.commits.get_json_and_prefs(self.keys.game(game_id), user_id, update)

    def keep_decoded(self, update: Handling, game_id: str, record: object) -> None:
        """Keep the service's decoding of the record a read kept for `update`, for the
        first attempt of the update's transaction on the game (`take_decoded`)."""
        update.keep_decoded(self.keys.game(game_id), record)

    def take_decoded(self, update: Handling, game_id: str, raw: str | None) -> object:
        """The decoding `keep_decoded` kept, if `raw` is the very value it was decoded
        from (the transaction's first attempt), once; else None."""
        return update.take_decoded(self.keys.game(game_id), raw)

    @contextlib.asynccontextmanager
    async def transaction(
        self,
        game_id: str,
        update: Handling | None = None,
        players: tuple[int, ...] = (),
        chats: tuple[int, ...] = (),
    ) -> AsyncIterator[tuple[Seen, GameTx]]:
        """One attempt of the game's transaction, as a block: what it read (the record,
        None for a game not written yet, and the indexes of `chats` and `players`) and the
        transaction to fill; leaving the block commits it compare-and-set
        (`Commits.write`: Stale when the read is out of date, for the caller to run the
        operation again), an exception leaves it unwritten."""
        keys = self.keys
        record_key = keys.game(game_id)
        watch = [record_key, *map(keys.chat_game, chats), *map(keys.user_game, players)]
        read = await self.commits.read(watch, update)
        tx = GameTx(keys=keys, game_id=game_id)
        yield Seen(keys, record_key, read.seen), tx
        await self.commits.write(read, tx, update)
