"""The read-only room: the games of a group or person, the table, stats and leaderboards."""

from __future__ import annotations

from ..contract.outcomes import Refusal
from ..contract.plan import Moment
from ..engine import Variant, view_of
from ..rendering import guide, tabletop, ui
from ..rendering import history as texts
from ..rendering.i18n import Translator
from ..storage.updates import Handling
from .core import GameSteps
from .preferences import Preferences
from .records import LOBBY, PLAYING, GameRecord
from .results import Person, Reply, UserError


class QueryRoom:
    """Reads that change no game."""

    def __init__(self, steps: GameSteps, prefs: Preferences) -> None:
        self.steps = steps
        self.prefs = prefs
        self.store = steps.store
        self.history = steps.history

    async def game_of_chat(self, chat_id: int, update: Handling | None = None) -> GameRecord | None:
        """The open game of a group (its record kept in `update` for its transaction)."""
        return await self._live(await self.store.games.game_of_chat(chat_id), update)

    async def game_of_person(
        self, user_id: int, update: Handling | None = None
    ) -> GameRecord | None:
        """The game a person is in (its record kept in `update` for its transaction)."""
        return await self._live(await self.store.games.game_of_player(user_id), update)

    async def _live(self, game_id: str | None, update: Handling | None) -> GameRecord | None:
        if not game_id:
            return None
        raw = await self.store.games.record(game_id, update)
        # An index entry is removed after the record's last step: one left behind (a crash
        # in between) names a game that is over, which reads as none.
        if raw is None or raw.get("status") not in (LOBBY, PLAYING):
            return None
        return GameRecord.from_dict(raw)

    async def board(self, chat_id: int) -> Reply:
        """The table of the group's game (or the lobby), posted again."""
        t = await self.prefs.group_translator(chat_id)
        record = await self.game_of_chat(chat_id)
        if record is None:
            raise UserError(Refusal.NO_GAME_HERE, t.language)
        if record.status == LOBBY:
            screen = self.steps.lobby_screen(record)
            return Reply(screen.text, screen.keyboard)
        view = view_of(record.game())
        names = record.names()
        # The deadline is shown as a moment once it has started (its prompt arrived).
        settled = record.deadline_ms is not None and record.delivered == record.context
        living = {p.id for p in view.seats if p.cards_down}
        claimed = texts.claims_line(t, record.claims, names, living)
        text, offset = ui.take_moment(tabletop.posted_table(t, view, names, settled, claimed))
        if offset is None or record.deadline_ms is None:
            return Reply(text)
        return Reply(text, moment=Moment(offset, record.deadline_ms))

    async def group_rules(self, chat_id: int, t: Translator) -> list[str]:
        """/rules in a group: the rules of its open game's variant, else of its setting (its
        messages: the rules, then what the variant changes)."""
        record = await self.game_of_chat(chat_id)
        if record is not None:
            variant = record.game_variant()
        else:
            variant = (await self.prefs.chat_settings(chat_id)).variant
        return guide.rules_messages(t, variant)

    async def person_rules(self, person: Person, t: Translator) -> list[str]:
        """/rules in private: the variant of the game one is in; else the base rules and
        a short list of the variants (its own message)."""
        record = await self.game_of_person(person.id)
        variant = Variant.BASE if record is None else record.game_variant()
        if variant is not Variant.BASE:
            return guide.rules_messages(t, variant)
        return [*guide.rules_messages(t, Variant.BASE), guide.variants_list_text(t)]

    async def my_stats(self, person: Person) -> Reply:
        """A person's rating, games, wins, claims and bluffs (service/history.py)."""
        return await self.history.stats(person, await self.prefs.translator_for(person))

    async def leaderboard(self, chat_id: int) -> Reply:
        """The group's players by rating (service/history.py)."""
        return await self.history.top(chat_id, await self.prefs.group_translator(chat_id))

    async def global_leaderboard(self, t: Translator) -> Reply:
        """The board of all groups (service/history.py), in `t`'s language."""
        return await self.history.top(None, t)
