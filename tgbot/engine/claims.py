"""Claims and their answers: an action declared, the windows that open on it, a
challenge and what the card shown decides, a block."""

from __future__ import annotations

from . import events as ev
from .cards import Action, ActionSpec, Character, conversion_cost, sorted_cards
from .decisions import TakeAction
from .effects import Effects
from .state import Phase


class Claims(Effects):
    """An action's claim and the challenges and blocks it meets."""

    __slots__ = ()

    # Each response window lists who may answer it, in seat order after the actor.

    def _open_action_window(self) -> None:
        """Anyone may challenge the action's claim or block it (their own rules permitting)."""
        turn = self.turn
        self.phase = Phase.ACTION_WINDOW
        turn.waiting = [p.id for p in self._after[turn.actor] if p.hidden]
        if self._rules.allegiances and turn.action is Action.FOREIGN_AID and self.divided():
            # While divided, only the other allegiance may block Foreign Aid.
            side = self._by_id[turn.actor].allegiance
            turn.waiting = [pid for pid in turn.waiting if self._by_id[pid].allegiance is not side]

    def _open_block_window(self) -> None:
        """The action survived a challenge: its target alone may still block."""
        turn = self.turn
        self.phase = Phase.BLOCK_WINDOW
        target = self._by_id.get(turn.target) if turn.target is not None else None
        turn.waiting = [target.id] if target is not None and target.hidden else []

    def _open_block_challenge(self) -> None:
        """Anyone but the blocker may challenge the block."""
        turn = self.turn
        self.phase = Phase.BLOCK_CHALLENGE
        blocker = turn.blocker
        turn.waiting = [p.id for p in self._round[turn.actor] if p.hidden and p.id != blocker]

    def _declare(self, decision: TakeAction, out: list[ev.Event]) -> None:
        action = decision.action
        if self._rules.allegiances and action is Action.CONVERT:
            self._convert(decision, out)
            return
        spec = self._rules.actions[action]
        me = self._by_id[self.turn.actor]
        me.coins -= spec.cost
        self.treasury += spec.cost
        turn = self.turn
        turn.action = action
        turn.target = decision.target
        claim = None if spec.inverted else spec.claim
        out.append(ev.ActionDeclared(me.id, action, decision.target, claim, spec.cost))
        if not spec.answerable:
            self.phase = Phase.RESOLVE
        else:
            self._open_action_window()

    def _convert(self, decision: TakeAction, out: list[ev.Event]) -> None:
        """Conversion resolves at once: pay the Reserve, flip the target, end the turn."""
        turn = self.turn
        me = self._by_id[turn.actor]
        assert decision.target is not None  # checked by _validate_variant_action
        target = self._by_id[decision.target]
        cost = conversion_cost(me.id, target.id)
        me.coins -= cost
        self.reserve += cost
        turn.action = Action.CONVERT
        turn.target = target.id
        out.append(ev.ActionDeclared(me.id, Action.CONVERT, target.id, None, cost))
        assert target.allegiance is not None
        target.allegiance = target.allegiance.other
        out.append(ev.AllegianceChanged(me.id, target.id, target.allegiance, self.reserve))
        self.phase = Phase.END_TURN

    def _challenge_embezzlement(self, challenger: int, out: list[ev.Event]) -> None:
        """The inverted challenge: the challenger wins exactly when the actor has a Duke."""
        turn = self.turn
        holder = self._by_id[turn.actor]
        out.append(ev.EmbezzlementChallenged(challenger, holder.id))
        if Character.DUKE in holder.hidden:
            out.append(ev.EmbezzlerHadDuke(holder.id, challenger))
            self.losses.append(holder.id)
            self.phase = Phase.END_TURN
            return
        shown = tuple(holder.hidden)
        out.append(ev.EmbezzlerCleared(holder.id, sorted_cards(shown), challenger))
        self.deck.extend(shown)
        self.rng.shuffle(self.deck)
        holder.hidden = [self.deck.pop() for _ in shown]
        out.append(ev.CardsRedrawn(holder.id, shown, tuple(holder.hidden)))
        self.losses.append(challenger)
        self.phase = Phase.RESOLVE

    def _challenge(self, challenger: int, spec: ActionSpec, out: list[ev.Event]) -> None:
        """Challenge the claim on the table: the block's if there is one, else the action's."""
        turn = self.turn
        blocked = turn.blocker is not None
        claimant: int | None
        character: Character | None
        if blocked:
            claimant, character = turn.blocker, turn.block_character
        else:
            claimant, character = turn.actor, spec.claim
        assert claimant is not None and character is not None
        out.append(ev.ChallengeDeclared(challenger, claimant, character))
        holder = self._by_id[claimant]
        if character in holder.hidden:
            out.append(ev.ClaimProven(claimant, character, challenger))
            # The table sees the proven card go back and a new one drawn; not which one.
            out.append(ev.CardReturned(claimant, character))
            self._replace_shown_card(holder, character, out)
            self.losses.append(challenger)
            if blocked:
                self.phase = Phase.BLOCKED
            elif spec.blockers:
                self._open_block_window()
            else:
                self.phase = Phase.RESOLVE
            return
        out.append(ev.ClaimFailed(claimant, character, challenger))
        self.losses.append(claimant)
        if blocked:
            self.phase = Phase.RESOLVE
            return
        refund = spec.cost
        if refund:
            holder.coins += refund
            self.treasury -= refund
            out.append(ev.CoinsRefunded(claimant, refund))
        self.phase = Phase.END_TURN

    def _block(self, blocker: int, character: Character, out: list[ev.Event]) -> None:
        turn = self.turn
        assert turn.action is not None
        turn.blocker = blocker
        turn.block_character = character
        out.append(ev.BlockDeclared(blocker, character, turn.actor, turn.action))
        self._open_block_challenge()
