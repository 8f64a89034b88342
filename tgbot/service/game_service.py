"""The game service: load a game from Redis, apply the engine, save compare-and-set.

`GameService` builds the rooms around one `GameSteps` (service/core.py): preferences,
lobby, play, deadlines, queries and history, each given what it needs in its
constructor, and offers their public operations as its own. Nothing here talks to
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
from .lobby import LobbyRoom
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
    """Every game operation, as compare-and-set transactions on Redis.

    A facade: each operation is a room's own bound method (its signature and docstring
    are the room's), so a call costs no extra hop.
    """

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
        prefs = Preferences(steps, settings.defaults)
        lobby = LobbyRoom(steps, prefs, settings.bot_username, new_seed)
        play = PlayRoom(steps, prefs, lobby)
        deadlines = DeadlineRoom(steps, lobby)
        queries = QueryRoom(steps, prefs)
        app = AppRoom(steps, play)
        hand = HandRoom(steps)
        # Languages and settings.
        self.person_language = prefs.person_language
        self.translator_for = prefs.translator_for
        self.group_translator = prefs.group_translator
        self.chat_settings = prefs.chat_settings
        self.change_setting = prefs.change_setting
        self.set_language = prefs.set_language
        # A reply to an update that changed nothing else.
        self.reply = steps.reply
        # The lobby, and the group's changes.
        self.new_game = lobby.new_game
        self.join = lobby.join
        self.leave_lobby_or_game = lobby.leave_lobby_or_game
        self.start_game = lobby.start_game
        self.change_ai = lobby.change_ai
        self.cancel = lobby.cancel
        self.play_again = lobby.play_again
        self.private_started = lobby.private_started
        self.join_link = lobby.join_link
        self.start_link = lobby.start_link
        self.toggle_notify = lobby.toggle_notify
        self.chat_closed = lobby.chat_closed
        self.chat_migrated = lobby.chat_migrated
        # Presses of game buttons.
        self.press = play.press
        # The Mini App.
        self.app_view = app.app_view
        self.app_decide = app.app_decide
        self.page_opened = app.page_opened
        self.page_closed = app.page_closed
        # 👁 My cards and ⏳ More time.
        self.my_cards = hand.my_cards
        self.more_time = hand.more_time
        # Deadlines.
        self.fire_deadline = deadlines.fire_deadline
        self.prompt_delivered = deadlines.prompt_delivered
        self.claim_and_fire = deadlines.claim_and_fire
        # Reads.
        self.game_of_chat = queries.game_of_chat
        self.game_of_person = queries.game_of_person
        self.board = queries.board
        self.group_rules = queries.group_rules
        self.person_rules = queries.person_rules
        self.my_stats = queries.my_stats
        self.leaderboard = queries.leaderboard
        self.global_leaderboard = queries.global_leaderboard
        # Records, the claim tracker and replays.
        self.claims = history.claims
        self.replay_for_group = history.replay_for_group
        self.replay_for_person = history.replay_for_person
        self.replay_pressed = history.replay_pressed
