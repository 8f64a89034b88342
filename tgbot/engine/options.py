"""What is legal now: each kind of decision's options for the player awaited, and the
table's answer buttons."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import combinations, product

from .cards import (
    ACTIONS,
    CARDS_PER_PLAYER,
    CHARACTER_ORDER,
    FORCED_COUP_COINS,
    Action,
    Character,
    sorted_cards,
)
from .decisions import (
    FORCE_EXCHANGE,
    LET_KEEP,
    Challenge,
    Decision,
    DecisionKind,
    KeepCards,
    LoseCard,
    Pass,
    lose,
    show,
    take,
)
from .state import GameState, PlayerState

_UNTARGETED = tuple(take(a) for a, spec in ACTIONS.items() if not spec.targeted)
COUP_COST = ACTIONS[Action.COUP].cost
ASSASSINATE_COST = ACTIONS[Action.ASSASSINATE].cost


def _card_order(cards: tuple[Character, ...]) -> list[int]:
    return [CHARACTER_ORDER[c] for c in cards]


class Options(GameState):
    """What the awaited players may decide (see `legal_decisions`)."""

    __slots__ = ()

    def answers(self) -> list[Decision]:
        """Every answer that anyone awaited may give to the open claim or block, each once:
        the table's buttons, Challenge first, then the blocks, Pass last (empty when no
        claim or block is open)."""
        kind, awaited, _ = self._awaiting
        if kind is not DecisionKind.RESPONSE:
            return []
        offered: list[Decision] = []
        for player_id in awaited:
            offered += (d for d in self.legal_decisions(player_id) if d not in offered)
        return sorted(offered, key=_answer_order)

    def legal_decisions(self, player_id: int) -> list[Decision]:
        """Every decision `player_id` may take now (empty when it is not theirs to take)."""
        kind, awaited, _ = self._awaiting
        if kind is None or player_id not in awaited:
            return []
        return _OPTIONS[kind](self, self._by_id[player_id])

    # What the awaited player may decide, one method per kind of decision (see _OPTIONS).

    def _response_options(self, me: PlayerState) -> list[Decision]:
        turn = self.turn
        assert turn.action is not None
        return list(self._rules.responses[self.phase, turn.action, me.id == turn.target])

    def _lose_options(self, me: PlayerState) -> list[Decision]:
        return list(_LOSE_OPTIONS[tuple(me.hidden)])

    def _exchange_options(self, me: PlayerState) -> list[Decision]:
        return list(_keep_options(tuple(me.hidden + self.turn.drawn), len(me.hidden)))

    def _show_options(self, me: PlayerState) -> list[Decision]:
        return [show(c) for c in sorted_cards(list(set(me.hidden)))]

    def _examine_options(self, me: PlayerState) -> list[Decision]:
        return [LET_KEEP, FORCE_EXCHANGE]

    def _turn_options(self, me: PlayerState) -> list[Decision]:
        """The turn's options, in a fixed order: untargeted actions, then by target."""
        rules = self._rules
        coins = me.coins
        at = self._aimed_at
        opponents = [p for p in self._others[me.id] if p.hidden]
        rivals = opponents
        if rules.allegiances and self.divided():
            rivals = [p for p in opponents if p.allegiance is not me.allegiance]
        if coins >= FORCED_COUP_COINS:
            return [at[p.id].coup for p in rivals]
        options: list[Decision] = list(_UNTARGETED)
        if rules.allegiances and self.reserve > 0:
            options.append(take(Action.EMBEZZLE))
        if coins >= COUP_COST:
            options += [at[p.id].coup for p in rivals]
        if coins >= ASSASSINATE_COST:
            options += [at[p.id].assassinate for p in rivals]
        options += [at[p.id].steal for p in rivals if p.coins]
        if rules.examine:
            options += [at[p.id].examine for p in rivals]
        if rules.allegiances and coins >= 1:
            options.append(at[me.id].convert)
            if coins >= 2:
                options += [at[p.id].convert for p in opponents]
        return options


# A hand of one or two face-down cards, in any order -> the cards one may turn up.
_LOSE_OPTIONS: dict[tuple[Character, ...], tuple[LoseCard, ...]] = {
    hand: tuple(lose(c) for c in sorted_cards(list(set(hand))))
    for size in (1, CARDS_PER_PLAYER)
    for hand in product(Character, repeat=size)
}


@lru_cache(maxsize=4096)
def _keep_options(pool: tuple[Character, ...], keep: int) -> tuple[KeepCards, ...]:
    """Every distinct choice of `keep` cards from an exchange's pool, in canonical order."""
    keeps = {sorted_cards(combo) for combo in combinations(pool, keep)}
    return tuple(KeepCards(k) for k in sorted(keeps, key=_card_order))


def _answer_order(answer: Decision) -> int:
    """Where an answer goes among the table's buttons."""
    return 0 if isinstance(answer, Challenge) else 2 if isinstance(answer, Pass) else 1


# How legal_decisions lists each kind of decision.
_OPTIONS: dict[DecisionKind, Callable[[Options, PlayerState], list[Decision]]] = {
    DecisionKind.TURN: Options._turn_options,
    DecisionKind.RESPONSE: Options._response_options,
    DecisionKind.LOSE_CARD: Options._lose_options,
    DecisionKind.EXCHANGE: Options._exchange_options,
    DecisionKind.SHOW_CARD: Options._show_options,
    DecisionKind.EXAMINE: Options._examine_options,
}
