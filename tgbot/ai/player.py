"""A sensible Coup player that sees only what RULES.md lets it see.

It plays its real cards, bluffs now and then, challenges claims that the cards it can see
make unlikely, blocks when it holds the blocker (and bluffs a block when losing would cost
it the game), and keeps its strongest cards. In the variants of VARIANTS.md it embezzles
when it holds no Duke, examines with a real Inquisitor, shows its weakest card and makes
an examined player swap a strong one; the engine's legal options carry the allegiance rules.
"""

from __future__ import annotations

import random
from math import comb

from ..engine import (
    VARIANT_ACTIONS,
    Action,
    Block,
    Challenge,
    Character,
    Decision,
    DecisionKind,
    ForceExchange,
    KeepCards,
    LetKeep,
    LoseCard,
    Pass,
    PlayerView,
    ShowCard,
    TakeAction,
    Window,
)
from ..engine.cards import COPIES_PER_CHARACTER

# How much the AI wants to keep each card (Duke pays, Captain steals and blocks, ...).
KEEP_VALUE = {
    Character.DUKE: 5,
    Character.CAPTAIN: 4,
    Character.ASSASSIN: 3,
    Character.CONTESSA: 2,
    Character.INQUISITOR: 2,
    Character.AMBASSADOR: 1,
}
FORCE_FROM = 4  # make an examined player swap a card worth this much or more
BLUFF_RATE = 0.15
CHALLENGE_BELOW = 0.3  # challenge a claim the AI thinks is true less often than this


def holds_probability(view: PlayerView, claimant: int, character: Character) -> float:
    """The chance that `claimant` holds `character`, from the cards this view can see."""
    seen = list(view.my_cards) + [c for seat in view.seats for c in seat.revealed]
    left = COPIES_PER_CHARACTER - seen.count(character)
    if left <= 0:
        return 0.0
    hidden_elsewhere = view.deck_size + sum(s.cards_down for s in view.seats if s.id != view.viewer)
    k = view.seat(claimant).cards_down
    if k <= 0 or hidden_elsewhere <= 0:
        return 0.0
    # Hypergeometric: 1 - P(none of the k cards is one of the `left` copies).
    return 1.0 - comb(hidden_elsewhere - left, k) / comb(hidden_elsewhere, k)


def _richest_opponent(view: PlayerView, ids: list[int]) -> int:
    return max(ids, key=lambda pid: (view.seat(pid).cards_down, view.seat(pid).coins, -pid))


def choose(view: PlayerView, rng: random.Random) -> Decision:
    """One legal decision for the player whose view this is."""
    legal = list(view.legal)
    if not legal:
        raise ValueError("nothing to decide")
    kind = view.awaiting.kind
    if kind is DecisionKind.TURN:
        return _turn(view, legal, rng)
    if kind is DecisionKind.RESPONSE:
        return _respond(view, legal, rng)
    if kind is DecisionKind.LOSE_CARD or kind is DecisionKind.SHOW_CARD:
        # Lose the weakest card; show the weakest, which an examiner has no reason to swap.
        cards = [d for d in legal if isinstance(d, LoseCard | ShowCard)]
        return min(cards, key=lambda d: KEEP_VALUE[d.character])
    if kind is DecisionKind.EXAMINE:
        strong = view.examined is not None and KEEP_VALUE[view.examined] >= FORCE_FROM
        return ForceExchange() if strong and ForceExchange() in legal else LetKeep()
    keeps = [d for d in legal if isinstance(d, KeepCards)]
    return max(keeps, key=lambda d: sum(KEEP_VALUE[c] for c in d.cards))


def _turn(view: PlayerView, legal: list[Decision], rng: random.Random) -> Decision:
    table = VARIANT_ACTIONS[view.variant]
    actions: dict[Action, list[TakeAction]] = {}
    for d in legal:
        assert isinstance(d, TakeAction)
        actions.setdefault(d.action, []).append(d)
    mine = set(view.my_cards)

    def target_of(action: Action) -> TakeAction:
        options = actions[action]
        best = _richest_opponent(view, [d.target for d in options if d.target is not None])
        return next(d for d in options if d.target == best)

    if Action.COUP in actions and (Action.INCOME not in actions or rng.random() < 0.9):
        return target_of(Action.COUP)
    if Action.EMBEZZLE in actions and Character.DUKE not in mine and view.reserve >= 2:
        return actions[Action.EMBEZZLE][0]  # the truth: nothing to fear from a challenge
    honest: list[Action] = []
    if Character.ASSASSIN in mine and Action.ASSASSINATE in actions:
        honest.append(Action.ASSASSINATE)
    if Character.DUKE in mine:
        honest.append(Action.TAX)
    if Character.CAPTAIN in mine and Action.STEAL in actions:
        honest.append(Action.STEAL)
    # Now and then take plain income anyway: two AIs stealing from each other and
    # blocking forever would never finish a game.
    if honest and rng.random() < 0.8:
        return target_of(honest[0]) if table[honest[0]].targeted else actions[honest[0]][0]
    if rng.random() < BLUFF_RATE:
        bluff = rng.choice([a for a in (Action.TAX, Action.STEAL) if a in actions])
        return target_of(bluff) if table[bluff].targeted else actions[bluff][0]
    exchanger = table[Action.EXCHANGE].claim
    if exchanger in mine and rng.random() < 0.5:
        if Action.EXAMINE in actions and rng.random() < 0.4:
            return target_of(Action.EXAMINE)
        return actions[Action.EXCHANGE][0]
    return actions[Action.FOREIGN_AID if rng.random() < 0.4 else Action.INCOME][0]


def _respond(view: PlayerView, legal: list[Decision], rng: random.Random) -> Decision:
    me = view.viewer
    assert me is not None
    blocks = [d for d in legal if isinstance(d, Block)]
    real_blocks = [b for b in blocks if b.character in view.my_cards]
    if real_blocks:
        return real_blocks[0]
    window = view.awaiting.window
    table = VARIANT_ACTIONS[view.variant]
    claimant: int | None
    claim: Character | None
    if window is Window.BLOCK_CHALLENGE:
        claimant, claim = view.blocker, view.block_character
    else:
        claimant = view.actor
        claim = table[view.action].claim if view.action is not None else None
    if view.action is Action.EMBEZZLE and window is Window.ACTION and claimant is not None:
        # The claim is "no Duke": challenge only when a Duke looks likely.
        p = holds_probability(view, claimant, Character.DUKE)
        return Challenge() if p > 0.6 and Challenge() in legal else Pass()
    targeted_me = view.target == me
    if Challenge() in legal and claimant is not None and claim is not None:
        p = holds_probability(view, claimant, claim)
        stakes = targeted_me or (window is Window.BLOCK_CHALLENGE and view.actor == me)
        if p < CHALLENGE_BELOW or (stakes and p < 0.5 and rng.random() < 0.5):
            return Challenge()
    if blocks and targeted_me:
        last_card = view.seat(me).cards_down == 1
        if view.action is Action.ASSASSINATE and (last_card or rng.random() < 0.3):
            return next((b for b in blocks if b.character is Character.CONTESSA), blocks[0])
        if rng.random() < BLUFF_RATE:
            return rng.choice(blocks)
    return Pass() if Pass() in legal else legal[0]


__all__ = ["KeepCards", "LoseCard", "choose", "holds_probability"]
