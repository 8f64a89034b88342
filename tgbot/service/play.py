"""The play room: button presses, at the table (answers) and in private (the hand)."""

from __future__ import annotations

from ..contract import callbacks
from ..contract.outcomes import STALE, Notice, Refusal, Said, engine_refusal, table_refusal
from ..contract.plan import Edit
from ..contract.steps import prompt_ref
from ..engine import IllegalDecision, codes, view_of
from ..rendering import hand, prompting
from ..rendering.i18n import pick_language
from ..storage.commit import Duplicate
from ..storage.plan import applied
from ..storage.updates import Handling
from . import archive
from .core import AdminCheck, GameSteps, NeedsStart, never_admin, retried
from .lobby import LobbyRoom
from .preferences import Preferences
from .records import PLAYING, GameRecord
from .results import CallbackResult, Person, UserError


def _refused(refusal: Refusal, lang: str, alert: bool = False) -> CallbackResult:
    """A press's answer that it changes nothing, and why (in the presser's language)."""
    return CallbackResult(Said(refusal, lang), alert=alert)


def _stale_prompt(pressed: int, context: int) -> Refusal:
    """Why a private prompt's button is refused: one of an earlier decision (its closing
    edit is optional, so its buttons may still show) was already decided; any other is
    out of date (not theirs, or forged)."""
    return Refusal.ALREADY_DECIDED if pressed < context else Refusal.OUT_OF_DATE


class _Refused(Exception):
    """A press refused inside its transaction: nothing is written, `result` is its answer."""

    def __init__(self, result: CallbackResult) -> None:
        super().__init__(result.said)
        self.result = result


def _check_prompt(
    record: GameRecord, person: Person, pressed: callbacks.ButtonPress, lang: str
) -> None:
    """A private prompt's button counts only while its game plays, the presser sits in it
    and the prompt is the one open for them."""
    if record.status != PLAYING:
        raise _Refused(_refused(Refusal.GAME_OVER, lang))
    if record.seat(person.id) is None:
        raise _Refused(_refused(Refusal.NOT_IN_GAME, lang, alert=True))
    if record.prompts.get(person.id) != pressed.context:
        raise _Refused(_refused(_stale_prompt(pressed.context, record.context), lang))


def _check_answer(
    record: GameRecord, person: Person, pressed: callbacks.ButtonPress, lang: str
) -> None:
    """An answer on the group's turn message counts only while its game plays, its window
    is the one open and the presser sits in the game."""
    if record.status != PLAYING:
        raise _Refused(_refused(Refusal.GAME_OVER, lang))
    if record.table_context != pressed.context:
        raise _Refused(_refused(Refusal.ALREADY_ANSWERED, lang))
    if record.seat(person.id) is None:
        raise _Refused(_refused(Refusal.NOT_IN_GAME, lang))


class PlayRoom:
    """Presses of game buttons, checked against the current decision and applied."""

    def __init__(self, steps: GameSteps, prefs: Preferences, lobby: LobbyRoom) -> None:
        self.steps = steps
        self.prefs = prefs
        self.lobby = lobby
        self.store = steps.store
        self.catalogs = steps.catalogs

    @retried
    async def press(
        self,
        person: Person,
        data: str,
        update: Handling | None = None,
        is_admin: AdminCheck = never_admin,
        chat_id: int | None = None,
        message_id: int | None = None,
        shows_button: bool = False,
    ) -> CallbackResult:
        """A button was pressed in `chat_id`: check it is current and theirs, then apply it.

        A button counts only on the kind of message it was made for: lobby buttons on the
        game's group, prompt buttons in the presser's own private chat. `message_id`: the
        message pressed (a target picker or Back gives it a new look, through the outbox);
        when it shows that button (`shows_button`) and the press is refused as over
        (`STALE`), it has its buttons taken off, through the outbox, unless it is one the
        game edits (a copy a send made again left behind: see telegram/sender.py).
        """
        try:
            pressed = callbacks.unpack(data)
        except callbacks.BadButton:
            return _refused(Refusal.NOT_VALID, await self.prefs.person_language(person), alert=True)
        result = await self._press(person, pressed, update, is_admin, chat_id, message_id)
        said = result.said
        stale = said is not None and said.what in STALE
        if stale and shows_button and message_id is not None and chat_id:
            await self.steps.close_buttons(pressed.game_id, chat_id, message_id)
        return result

    async def _press(
        self,
        person: Person,
        pressed: callbacks.ButtonPress,
        update: Handling | None,
        is_admin: AdminCheck,
        chat_id: int | None,
        message_id: int | None,
    ) -> CallbackResult:
        # The record and the presser's language in one round trip.
        raw, record, prefs = await self.steps.read(pressed.game_id, person.id, update)
        lang = pick_language(prefs.get("lang"), person.language_code)
        invalid = _refused(Refusal.NOT_VALID, lang, alert=True)
        if raw is None or record is None:
            return _refused(Refusal.GAME_OVER, lang)
        if update is not None and applied(raw, update.update_id):
            raise Duplicate
        if pressed.code in callbacks.LOBBY_CODES:
            if chat_id != record.chat_id:
                return invalid
            return await self._lobby_press(person, pressed, lang, update, is_admin)
        table = chat_id == record.chat_id and pressed.answer
        if not table and chat_id != person.id:
            return invalid
        if pressed.picker is not None or pressed.code == callbacks.BACK:
            return await self._show_choices(person, pressed, lang, update, message_id)
        return await self._decide(person, pressed, lang, update, table)

    async def _show_choices(
        self,
        person: Person,
        pressed: callbacks.ButtonPress,
        lang: str,
        update: Handling | None,
        message_id: int | None,
    ) -> CallbackResult:
        """A target picker's button, or Back: the prompt pressed (`message_id`; None: the
        one the game records) becomes the list of targets, or the prompt again. Its new
        look is queued in the game's outbox as the prompt's newest state (the press's
        answer says nothing), compare-and-set against the record it was made from, so
        that a prompt a step closed meanwhile is never opened again."""
        picker = pressed.picker
        try:
            async with self.steps.game(pressed.game_id, update, lang, saves=False) as g:
                record = g.record
                _check_prompt(record, person, pressed, lang)
                game = record.game()
                if game.awaiting().players != (person.id,):
                    raise _Refused(_refused(Refusal.OUT_OF_DATE, lang))
                t = self.catalogs.get(lang)
                view = view_of(game, person.id)
                asking = prompting.Asking(t, view, record.id, record.context, record.names())
                if picker is not None:
                    screen = prompting.target_screen(asking, picker)
                else:
                    screen = prompting.turn_screen(asking)
                if person.id not in record.more_time:  # the prompt's ⏳ More time stays on it
                    screen.keyboard += hand.prompt_row(t, record.id, pressed.context)
                ref = prompt_ref(person.id)
                shown = Edit(
                    person.id, ref, screen.text, screen.keyboard, message_id=message_id, direct=True
                )
                g.tx.send(pressed.game_id, shown.to_op())
        except UserError as err:  # no game any more
            return CallbackResult(err.said)
        except _Refused as refused:
            return refused.result
        return CallbackResult()

    async def _lobby_press(
        self,
        person: Person,
        pressed: callbacks.ButtonPress,
        lang: str,
        update: Handling | None,
        is_admin: AdminCheck,
    ) -> CallbackResult:
        try:
            if pressed.code == callbacks.AGAIN:
                return CallbackResult(await self.lobby.play_again(pressed.game_id, person, update))
            if pressed.code == callbacks.LOBBY_JOIN:
                return CallbackResult(await self.lobby.join(pressed.game_id, person, update))
            if pressed.code == callbacks.LOBBY_LEAVE:
                return CallbackResult(
                    await self.lobby.leave_lobby_or_game(pressed.game_id, person, update)
                )
            if pressed.code == callbacks.LOBBY_START:
                await self.lobby.start_game(pressed.game_id, person, update)
                return CallbackResult(Said(Notice.STARTING, lang))
            if pressed.code in (callbacks.LOBBY_ADD_AI, callbacks.LOBBY_REMOVE_AI):
                add = pressed.code == callbacks.LOBBY_ADD_AI
                return CallbackResult(
                    await self.lobby.change_ai(pressed.game_id, person, add, update)
                )
            await self.lobby.cancel(pressed.game_id, person, is_admin, update)
            return CallbackResult(Said(Notice.CANCELLED, lang))
        except NeedsStart:
            return CallbackResult(url=self.lobby.join_link(pressed.game_id))
        except UserError as err:
            return CallbackResult(err.said, alert=True)

    async def _decide(
        self,
        person: Person,
        pressed: callbacks.ButtonPress,
        lang: str,
        update: Handling | None,
        table: bool,
    ) -> CallbackResult:
        """A decision pressed on the person's private prompt, or (`table`) an answer on the
        group's turn message (only by a player who may give it: anyone else gets a short
        toast and nothing changes). Checked once, against the record its transaction
        commits on; whether they may decide so is the engine's to say."""
        try:
            async with self.steps.game(pressed.game_id, update, lang) as g:
                record = g.record
                if table:
                    _check_answer(record, person, pressed, lang)
                else:
                    _check_prompt(record, person, pressed, lang)
                game = record.game()
                try:
                    decision = codes.decode(pressed.code, [p.id for p in game.players])
                except codes.BadCode:
                    raise _Refused(_refused(Refusal.NOT_VALID, lang, alert=True)) from None
                try:
                    events = game.apply(person.id, decision)
                except IllegalDecision as err:
                    why = table_refusal(err.reason) if table else engine_refusal(err.reason)
                    raise _Refused(_refused(why, lang, alert=not table)) from None
                archive.note_move(record, self.steps.now_ms(), person.id, decision)
                self.steps.apply_step(record, game, events, g.tx)
        except UserError as err:  # no game any more
            return CallbackResult(err.said, alert=not table)
        except _Refused as refused:
            return refused.result
        return CallbackResult(Said(Notice.DECIDED, lang))
