"""What moves cards and coins: each action's effect once it stands, a card lost or
shown, an exchange finished, a player out, the game's end."""

from __future__ import annotations

from collections.abc import Callable

from . import events as ev
from .cards import STEAL_AMOUNT, Action, Character, sorted_cards
from .decisions import KeepCards
from .options import Options, _keep_options
from .state import Phase, PlayerState


class Effects(Options):
    """The changes of cards and coins that the claims and the flow make."""

    __slots__ = ()

    # What each action does once it stands (see _RESOLVE); the turn ends unless they say.

    def _gain(self, me: PlayerState, target: PlayerState | None, out: list[ev.Event]) -> None:
        """Income, Foreign Aid and Tax: coins from the treasury, as many as it holds."""
        action = self.turn.action
        assert action is not None
        amount = min(self._rules.actions[action].gain, self.treasury)
        me.coins += amount
        self.treasury -= amount
        out.append(ev.ActionResolved(me.id, action, None, amount))

    def _steal(self, me: PlayerState, target: PlayerState | None, out: list[ev.Event]) -> None:
        assert target is not None
        amount = min(STEAL_AMOUNT, target.coins)
        target.coins -= amount
        me.coins += amount
        out.append(ev.ActionResolved(me.id, Action.STEAL, target.id, amount))

    def _strike(self, me: PlayerState, target: PlayerState | None, out: list[ev.Event]) -> None:
        """Coup and Assassinate: the target loses a card."""
        assert target is not None and self.turn.action is not None
        out.append(ev.ActionResolved(me.id, self.turn.action, target.id, 0))
        self.losses.append(target.id)

    def _draw_for_exchange(
        self, me: PlayerState, target: PlayerState | None, out: list[ev.Event]
    ) -> None:
        turn = self.turn
        turn.drawn = [self.deck.pop() for _ in range(self._rules.exchange_draw)]
        out.append(ev.ExchangeDrawn(me.id, tuple(turn.drawn)))
        self.phase = Phase.EXCHANGE
        keeps = _keep_options(tuple(me.hidden + turn.drawn), len(me.hidden))
        if not self._asks_keep(keeps):
            self._finish_exchange(list(keeps[0].cards), out)

    def _embezzle(self, me: PlayerState, target: PlayerState | None, out: list[ev.Event]) -> None:
        """Embezzlement takes the whole Treasury Reserve."""
        amount = self.reserve
        self.reserve = 0
        me.coins += amount
        out.append(ev.ActionResolved(me.id, Action.EMBEZZLE, None, amount))

    def _examine(self, me: PlayerState, target: PlayerState | None, out: list[ev.Event]) -> None:
        assert target is not None
        if len(set(target.hidden)) == 1:  # one answer: shown without asking
            self._show(target, target.hidden[0], out)
        else:
            self.phase = Phase.EXAMINE_SHOW

    def _finish_exchange(self, kept: list[Character], out: list[ev.Event]) -> None:
        me = self._by_id[self.turn.actor]
        pool = me.hidden + self.turn.drawn
        for card in kept:
            pool.remove(card)
        me.hidden = kept
        self.deck.extend(pool)
        self.rng.shuffle(self.deck)
        self.turn.drawn = []
        out.append(ev.ExchangeKept(me.id, sorted_cards(kept)))
        out.append(ev.ExchangeCompleted(me.id))
        self.phase = Phase.END_TURN

    def _show(self, target: PlayerState, character: Character, out: list[ev.Event]) -> None:
        """Examine: `target` shows `character` to the actor, and to no one else."""
        turn = self.turn
        turn.shown = character
        out.append(ev.CardShown(turn.actor, target.id))
        out.append(ev.ExaminedCard(turn.actor, target.id, character))
        out.append(ev.CardShownTo(target.id, turn.actor, character))
        self.phase = Phase.EXAMINE_DECIDE

    def _finish_examine(self, force: bool, out: list[ev.Event]) -> None:
        """Examine: keep, or the shown card goes into the deck and the target draws one."""
        turn = self.turn
        assert turn.target is not None
        target = self._by_id[turn.target]
        shown = turn.shown
        assert shown is not None
        out.append(ev.ExamineDecided(turn.actor, target.id, force))
        if force:
            self._replace_shown_card(target, shown, out)
        turn.shown = None
        self.phase = Phase.END_TURN

    def _replace_shown_card(
        self, holder: PlayerState, shown: Character, out: list[ev.Event]
    ) -> None:
        holder.hidden.remove(shown)
        self.deck.append(shown)
        self.rng.shuffle(self.deck)
        drawn = self.deck.pop()
        holder.hidden.append(drawn)
        out.append(ev.CardReplaced(holder.id, shown, drawn))

    def _lose(self, me: PlayerState, character: Character, out: list[ev.Event]) -> None:
        me.hidden.remove(character)
        me.revealed.append(character)
        out.append(ev.CardRevealed(me.id, character))
        if not me.hidden:
            self._eliminate(me, out)

    def _eliminate(self, me: PlayerState, out: list[ev.Event]) -> None:
        if me.id in self.turn.waiting:
            self.turn.waiting.remove(me.id)
        coins = me.coins
        self.treasury += coins
        me.coins = 0
        out.append(ev.PlayerEliminated(me.id, coins))
        self._someone_out = True

    def _remove(self, me: PlayerState, afk: bool, out: list[ev.Event]) -> None:
        out.append(ev.PlayerLeft(me.id, afk))
        for card in list(me.hidden):
            me.hidden.remove(card)
            me.revealed.append(card)
            out.append(ev.CardRevealed(me.id, card))
        self._eliminate(me, out)

    # No question with one answer: a card to lose when one is left or both are alike, an
    # exchange whose every keep is the same, is taken without asking (and no deadline).

    def _asks_loss(self, hand: list[Character]) -> bool:
        return len(set(hand)) > 1

    def _asks_keep(self, keeps: tuple[KeepCards, ...]) -> bool:
        return len(keeps) > 1

    def _return_drawn(self) -> None:
        if self.turn.drawn:
            self.deck.extend(self.turn.drawn)
            self.turn.drawn = []
            self.rng.shuffle(self.deck)

    def _end_game(self, winner: PlayerState, out: list[ev.Event]) -> None:
        self._return_drawn()
        self.turn.shown = None
        self.losses = []
        self.phase = Phase.OVER
        self.winner = winner.id
        out.append(ev.GameEnded(winner.id))


# What each action does once it stands.
_RESOLVE: dict[
    Action, Callable[[Effects, PlayerState, PlayerState | None, list[ev.Event]], None]
] = {
    Action.INCOME: Effects._gain,
    Action.FOREIGN_AID: Effects._gain,
    Action.TAX: Effects._gain,
    Action.COUP: Effects._strike,
    Action.ASSASSINATE: Effects._strike,
    Action.STEAL: Effects._steal,
    Action.EXCHANGE: Effects._draw_for_exchange,
    Action.EXAMINE: Effects._examine,
    Action.EMBEZZLE: Effects._embezzle,
}
