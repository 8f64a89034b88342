"""The Redis layer's front door: one client and its key names, and a room per job.

- `commits` (commit.py, plan.py): reads and a step's compare-and-set transaction;
- `games` (games.py): a game's record and the indexes naming it, its transaction in its
  words (`GameTx`);
- `updates` (updates.py): an update's lease, its mark, its presser's throttle count;
- `deadlines` (deadlines.py): armed by steps, claimed per bucket when due;
- `outboxes` (outbox.py) and `delivery` (delivery.py): queued messages, who delivers them,
  which wait;
- `windows` (windows.py): the rate windows shared by every process;
- `prefs` (prefs.py): a person's preferences, a group's settings;
- `history` (history_store.py): finished games' records, ratings and stats.
- `app` (app.py): the Mini App's requests, throttle and game channels.

The same code runs on one Redis server and on a Redis Cluster (`clients.open_client`):
every atomic operation is one Lua script or command on keys of a single slot.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

from .app import AppStore
from .clients import is_cluster
from .commit import Commits
from .deadlines import Deadlines
from .delivery import Delivery
from .games import Games
from .history_store import HistoryStore
from .keys import Keys
from .outbox import Outboxes
from .prefs import Prefs
from .updates import Handling, Updates
from .windows import Windows


class Store:
    """Redis access for the game service and the edge, one room per job."""

    def __init__(self, redis: Any, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys
        self.cluster = is_cluster(redis)
        self.commits = Commits(redis, keys)
        self.games = Games(self.commits, keys)
        self.updates = Updates(redis, keys)
        self.deadlines = Deadlines(redis, keys)
        self.outboxes = Outboxes(redis, keys)
        self.delivery = Delivery(redis, keys)
        self.windows = Windows(redis, keys)
        self.prefs = Prefs(redis, keys, self.commits)
        self.history = HistoryStore(redis, keys.prefix)
        self.app = AppStore(redis, keys)

    async def ping(self) -> bool:
        """True when Redis answers."""
        return bool(await self.redis.ping())

    def update(
        self, chat_id: int, update_id: int, counting: tuple[int, int] | None = None
    ) -> AbstractAsyncContextManager[Handling]:
        """Take an update of a chat and end it when its handling is done (`Updates.update`)."""
        return self.updates.update(chat_id, update_id, counting)
