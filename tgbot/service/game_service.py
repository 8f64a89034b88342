"""The game service: load a game from Redis, apply the engine, save compare-and-set.

Its rooms live beside it: core (languages, transactions, the step), lobby, play,
deadlines and queries. Nothing here talks to Telegram.
"""

from __future__ import annotations

from ..storage.commit import Duplicate  # noqa: F401  (a second delivery of an update)
from .core import (  # noqa: F401  (the names the Telegram layer and tests import from here)
    AdminCheck,
    NeedsStart,
    reply_op,
)
from .deadlines import DeadlineRoom
from .play import PlayRoom
from .queries import QueryRoom


class GameService(PlayRoom, DeadlineRoom, QueryRoom):
    """Every game operation, as compare-and-set transactions on Redis."""
