"""The game service: load a game from Redis, apply the engine, save compare-and-set.

`GameService` builds the rooms around one `GameSteps` (service/core.py): preferences,
lobby, play, deadlines, queries and history, each given what it needs in its
constructor; the edges call each room by name (`service.play.press`). Nothing here talks to
Telegram: `notify` hears of every commit, and the edge delivers it.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..config import Config, Deadlines
from ..engine import SEED_BITS
from ..rendering.app_links import AppLinks
from ..rendering.i18n import Catalogs
from ..storage.commit import Duplicate  # noqa: F401  (a second delivery of an update)
from ..storage.store import Store
from .app import AppRoom
from .core import (  # noqa: F401  (the names the Telegram layer and tests import from here)
    AdminCheck,
    GameSteps,
    NeedsStart,
    reply_op,
)
from .deadlines import DeadlineRoom
from .hand import HandRoom
from .history import History
from .intake import Intake
from .lobby import LobbyRoom
from .pages import PagesRoom
from .play import PlayRoom
from .preferences import Preferences
from .queries import QueryRoom


@dataclass(frozen=True)
class ServiceSettings:
    """What the service is told by the process's configuration; every field required."""

    bot_username: str
    defaults: Deadlines  # a group's timing until its admins choose
    ai_pause_ms: tuple[int, int]  # an AI player "thinks" between these
    record_ttl_s: int  # how long a finished game's record is kept
    hold_ms: int  # how long an edit of the lobby's list waits for a newer one
    app_links: AppLinks  # the Mini App's buttons (AppLinks(): none)

    @classmethod
    def from_config(cls, config: Config, bot_username: str) -> ServiceSettings:
        """The settings a process's configuration gives."""
        return cls(
            bot_username,
            config.deadlines,
            config.ai_pause_ms,
            config.record_ttl_s,
            config.answer_edit_hold_ms,
            AppLinks(config.mini_app_url, config.webapp_short_name),
        )


class GameService:
    """Every game operation, as compare-and-set transactions on Redis, in its room:
    `prefs` (languages and settings), `steps` (a reply that changes nothing else),
    `lobby` (the lobby and the group's changes), `play` (presses of game buttons), `app`
    (the Mini App), `hand` (My cards, More time), `deadlines`, `queries` (reads) and
    `history` (records, the claim tracker, replays); `intake` (an update taken once, a
    person's pace) and `pages` (the Mini App's lease, pace, requests, tickets, streams)."""

    def __init__(
        self,
        store: Store,
        catalogs: Catalogs,
        settings: ServiceSettings,
        notify: Callable[[str], Awaitable[None]],
        clock: Callable[[], float] = time.time,
        new_seed: Callable[[], int] = lambda: secrets.randbits(SEED_BITS),
    ) -> None:
        self.store = store
        self.catalogs = catalogs
        history = History(store, catalogs, notify, clock, settings.record_ttl_s)
        steps = GameSteps(
            store,
            catalogs,
            history,
            notify,
            settings.bot_username,
            settings.ai_pause_ms,
            settings.hold_ms,
            settings.app_links,
            clock,
        )
        # The rooms, which the edges call by name (`service.play.press`): each built once,
        # here, with what it needs in its constructor.
        self.steps = steps
        self.history = history
        self.prefs = Preferences(steps, settings.defaults)
        self.lobby = LobbyRoom(steps, self.prefs, settings.bot_username, new_seed)
        self.play = PlayRoom(steps, self.prefs, self.lobby)
        self.deadlines = DeadlineRoom(steps, self.lobby)
        self.queries = QueryRoom(steps, self.prefs)
        self.app = AppRoom(steps, self.play)
        self.hand = HandRoom(steps)
        self.intake = Intake(store)
        self.pages = PagesRoom(store)
