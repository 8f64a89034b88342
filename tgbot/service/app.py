"""The Mini App's room: a game as one person may see it, and their decisions, through the
same checks and the same press as the chat's buttons (`PlayRoom.press`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from ..contract import callbacks
from ..contract.outcomes import Notice, Refusal, Said
from ..engine import Game, view_of
from ..engine.events import event_from_dict
from ..rendering import app_view
from ..rendering.i18n import Translator, pick_language
from . import archive
from .advance import bluffs_of
from .core import GameSteps
from .play import PlayRoom
from .records import PLAYING, GameRecord
from .results import CallbackResult, Person

log = logging.getLogger(__name__)

# Refusals of a decision that is not the person's to make (403); any other is 409.
FORBIDDEN = frozenset({Refusal.NOT_IN_GAME, Refusal.NOT_YOURS_TO_ANSWER, Refusal.NOT_YOUR_DECISION})
PLAY_AGAIN = "again"  # the page's Play again (the chat's button under the final message)
REPLAY = "replay"  # the page's Replay: the replay comes to the private chat, as the chat's


@dataclass(frozen=True, slots=True)
class Decided:
    """A decision's outcome: applied (`revision` the game's now) or refused (`said`)."""

    ok: bool
    said: Said
    revision: int | None = None
    forbidden: bool = False


class AppRoom:
    """Reads and presses for the Mini App."""

    def __init__(self, steps: GameSteps, play: PlayRoom) -> None:
        self.steps = steps
        self.play = play
        self.store = steps.store
        self.catalogs = steps.catalogs
        self.history = steps.history

    async def app_view(self, person: Person, game_id: str | None) -> dict[str, Any] | None:
        """What `person` may know of a game (their current one when `game_id` is None), in
        their language, as the page's JSON; None when there is no such game."""
        games = self.store.games
        if game_id is None:
            game_id = await games.game_of_player(person.id)
            if not game_id:
                return None
        raw, prefs = await games.record_and_prefs(game_id, person.id)
        if raw is None:
            return None
        record = GameRecord.from_dict(raw)
        t = self.catalogs.get(pick_language(prefs.get("lang"), person.language_code))
        return page_of(t, record, person.id, self.steps.now_ms())

    async def app_decide(self, person: Person, game_id: str, revision: int, code: str) -> Decided:
        """A decision sent from the page, given as the chat's button would give it: the
        same press, rights and refusals; a `revision` that is not the game's is out of
        date, as a stale button is."""
        raw, prefs = await self.store.games.record_and_prefs(game_id, person.id)
        lang = pick_language(prefs.get("lang"), person.language_code)

        def refused(why: Refusal) -> Decided:
            return Decided(False, Said(why, lang), forbidden=why in FORBIDDEN)

        if raw is None:
            return refused(Refusal.GAME_OVER)
        record = GameRecord.from_dict(raw)
        if record.seat(person.id) is None:
            return refused(Refusal.NOT_IN_GAME)
        if code == REPLAY:
            data = callbacks.replay(game_id)
            return await self._decided(
                await self.history.replay_pressed(person, data, None), game_id
            )
        if code == PLAY_AGAIN:
            data = callbacks.pack(game_id, 0, callbacks.AGAIN)
            pressed = await self.play.press(person, data, None, chat_id=record.chat_id)
            return await self._decided(pressed, game_id)
        if record.status != PLAYING:
            return refused(Refusal.GAME_OVER)
        if record.rev != revision:
            return refused(Refusal.OUT_OF_DATE)
        if callbacks.picker_action(code) is not None or code == callbacks.BACK:
            return refused(Refusal.NOT_VALID)  # the page sends the decision itself
        if person.id not in record.game().awaiting().players:
            return refused(Refusal.NOT_YOUR_DECISION)
        context = record.prompts.get(person.id)
        chat_id = person.id
        if context is None and record.table_context is not None and callbacks.is_answer(code):
            context, chat_id = record.table_context, record.chat_id
        if context is None:
            return refused(Refusal.OUT_OF_DATE)
        data = callbacks.pack(game_id, context, code)
        return await self._decided(
            await self.play.press(person, data, None, chat_id=chat_id), game_id
        )

    async def page_opened(
        self, game_id: str, user_id: int, stream: str, process: str, ttl_s: int
    ) -> None:
        """A person's page follows the game (its event stream is open on `process`, whose
        pages' lease the edge keeps: `AppStore.pages_alive`); while it does, their new
        prompts are asked in the page first. `ttl_s`: a stream's longest life."""
        await self.store.app.here(game_id, user_id, stream, process, ttl_s)

    async def page_closed(self, game_id: str, user_id: int, stream: str, process: str) -> None:
        """A person's page stopped following the game: a prompt of theirs held for the
        page goes to their private chat now (the game's outbox is delivered)."""
        await self.store.app.gone(game_id, user_id, stream, process)
        await self.steps.committed(game_id)

    async def _decided(self, pressed: CallbackResult, game_id: str) -> Decided:
        said = pressed.said
        if said is not None and isinstance(said.what, Refusal):
            return Decided(False, said, forbidden=said.what in FORBIDDEN)
        # Applied (or, for Play again, a lobby opened): the game's revision now.
        raw = await self.store.games.record(game_id)
        revision = None if raw is None else int(raw.get("rev", 0))
        return Decided(True, said or Said(Notice.DECIDED), revision=revision)


def page_of(t: Translator, record: GameRecord, reader: int, now_ms: int) -> dict[str, Any]:
    """The page's JSON of a game for `reader`, in `t`'s language: `view_of` for a seated
    player still in the game (or at its end), the public view for everyone else."""
    seated = record.seat(reader) is not None
    view = None
    steps: list[list[Any]] = []
    turn_events: list[Any] = []
    if record.engine is not None:
        game = record.game()
        mine = view_of(game, reader) if seated else None
        # A player who is out sees what everyone sees (they may tell the others).
        plays_on = mine is not None and (mine.seat(reader).alive or game.over)
        view = mine if plays_on else view_of(game)
        steps = steps_of(record, game, now_ms)
        turn_events = [event_from_dict(e) for e in record.turn_events]
    facts = app_view.GameFacts(
        game_id=record.id,
        revision=record.rev,
        status=record.status,
        variant=record.game_variant(),
        names=record.names(),
        deadline_ms=record.deadline_ms,
        claims=record.claims,
        steps=steps,
        turn_events=turn_events,
        bluffs=bluffs_of(record),
    )
    return app_view.app_view(t, facts, view, reader, seated)


def steps_of(record: GameRecord, game: Game, now_ms: int) -> list[list[Any]]:
    """Every step's events, rebuilt from the record's seed and moves (checked against the
    game it holds); the current turn's alone if it does not rebuild."""
    if record.seed is not None:
        kept = archive.archive_of(record, game, now_ms)
        try:
            rebuilt = archive.rebuild(kept)
        except archive.DoesNotReplay as err:
            log.warning("game %s: log not rebuilt: %s", record.id, err)
        else:
            if archive.fingerprint(rebuilt.game) == kept["digest"]:
                return rebuilt.steps
            log.warning("game %s: log rebuilds to another state", record.id)
    return [[event_from_dict(e) for e in record.turn_events]]
