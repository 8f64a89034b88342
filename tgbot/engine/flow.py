"""The turn run forward: after each change, every phase that needs no one's decision
is settled (a loss with one answer, an action that stands, the next turn) until someone
must decide or the game is over."""

from __future__ import annotations

from collections.abc import Callable

from . import events as ev
from .cards import FORCED_COUP_COINS
from .claims import Claims
from .decisions import Awaiting, DecisionKind
from .effects import _RESOLVE
from .state import _WINDOWS, Phase, TurnState


class Flow(Claims):
    """How a change runs on to the next decision (see `_settle`)."""

    __slots__ = ()

    def _settle(self, out: list[ev.Event]) -> list[ev.Event]:
        """Run the turn forward, then close the change: bump the version and note who is
        awaited next. Returns `out`, the change's events."""
        self._advance(out)
        self.version += 1
        self._awaiting = self._compute_awaiting()
        return out

    def _settle_window(self, out: list[ev.Event]) -> list[ev.Event]:
        """_settle() for a change that left a response window open to others: nothing runs
        forward, only who is awaited changes."""
        self.version += 1
        self._awaiting = Awaiting(
            DecisionKind.RESPONSE, tuple(self.turn.waiting), _WINDOWS[self.phase]
        )
        return out

    def _advance(self, out: list[ev.Event]) -> None:
        """Run the turn forward until someone must decide or the game is over."""
        while True:
            if self._someone_out:
                self._someone_out = False
                if self._decided(out):
                    return
            if self.losses:
                if self._take_loss(out):
                    return
            elif _STEPS[self.phase](self, out):
                return

    def _take_loss(self, out: list[ev.Event]) -> bool:
        """Settle the first pending card loss if it needs no answer; True when it does."""
        loser = self._by_id[self.losses[0]]
        if not loser.hidden:
            self.losses.pop(0)
            return False
        if not self._asks_loss(loser.hidden):
            self.losses.pop(0)
            self._lose(loser, loser.hidden[0], out)
            return False
        return True

    # Each step runs one phase forward and returns True when someone must decide now.

    def _step_turn(self, out: list[ev.Event]) -> bool:
        if self._by_id[self.turn.actor].hidden:
            return True
        self.phase = Phase.END_TURN
        return False

    def _step_window(self, out: list[ev.Event]) -> bool:
        """The action window, or the target's block window after a failed challenge."""
        turn = self.turn
        if not self._by_id[turn.actor].hidden:
            self.phase = Phase.END_TURN
            return False
        if turn.waiting:
            return True
        self.phase = Phase.RESOLVE
        return False

    def _step_block_challenge(self, out: list[ev.Event]) -> bool:
        turn = self.turn
        assert turn.blocker is not None
        if not self._by_id[turn.actor].hidden:
            self.phase = Phase.END_TURN
        elif not self._by_id[turn.blocker].hidden:
            self.phase = Phase.RESOLVE  # a blocker who left takes the block along
        elif turn.waiting:
            return True
        else:
            self.phase = Phase.BLOCKED
        return False

    def _step_blocked(self, out: list[ev.Event]) -> bool:
        turn = self.turn
        assert turn.action is not None and turn.blocker is not None
        assert turn.block_character is not None
        out.append(ev.ActionBlocked(turn.actor, turn.action, turn.blocker, turn.block_character))
        self.phase = Phase.END_TURN
        return False

    def _step_resolve(self, out: list[ev.Event]) -> bool:
        """The action takes effect (a targeted one fizzles if its target is already out)."""
        turn = self.turn
        assert turn.action is not None
        me = self._by_id[turn.actor]
        self.phase = Phase.END_TURN
        if not me.hidden:  # an actor who is out takes the action along
            return False
        if turn.target is None:
            _RESOLVE[turn.action](self, me, None, out)
            return False
        target = self._by_id[turn.target]
        if target.hidden:
            _RESOLVE[turn.action](self, me, target, out)
        else:
            out.append(ev.ActionFizzled(me.id, turn.action, target.id))
        return False

    def _step_exchange(self, out: list[ev.Event]) -> bool:
        if self._by_id[self.turn.actor].hidden:
            return True  # the kept cards are still to choose
        self._return_drawn()
        self.phase = Phase.END_TURN
        return False

    def _step_examine(self, out: list[ev.Event]) -> bool:
        """The Examine ends with no effect when the actor or the target is gone."""
        turn = self.turn
        assert turn.target is not None
        if self._by_id[turn.actor].hidden and self._by_id[turn.target].hidden:
            return True
        turn.shown = None
        self.phase = Phase.END_TURN
        return False

    def _step_over(self, out: list[ev.Event]) -> bool:
        return True

    def _decided(self, out: list[ev.Event]) -> bool:
        """End the game if at most one player is left; say whether it ended."""
        alive = [p for p in self.players if p.hidden]
        if len(alive) > 1:
            return False
        self._end_game(alive[0], out)
        return True

    def _step_end_turn(self, out: list[ev.Event]) -> bool:
        """The next living player clockwise begins their turn, and decides now."""
        for nxt in self._round[self.turn.actor]:
            if nxt.hidden:
                break
        self.turn = TurnState(nxt.id)
        self.phase = Phase.TURN
        out.append(ev.TurnStarted(nxt.id, nxt.coins >= FORCED_COUP_COINS))
        return True


# How _advance runs each phase forward.
_STEPS: dict[Phase, Callable[[Flow, list[ev.Event]], bool]] = {
    Phase.TURN: Flow._step_turn,
    Phase.ACTION_WINDOW: Flow._step_window,
    Phase.BLOCK_WINDOW: Flow._step_window,
    Phase.BLOCK_CHALLENGE: Flow._step_block_challenge,
    Phase.RESOLVE: Flow._step_resolve,
    Phase.BLOCKED: Flow._step_blocked,
    Phase.EXCHANGE: Flow._step_exchange,
    Phase.EXAMINE_SHOW: Flow._step_examine,
    Phase.EXAMINE_DECIDE: Flow._step_examine,
    Phase.END_TURN: Flow._step_end_turn,
    Phase.OVER: Flow._step_over,
}
