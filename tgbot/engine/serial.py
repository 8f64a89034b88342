"""A game as a JSON-safe dict, and back."""

from __future__ import annotations

from typing import Any

from .cards import Action, Allegiance, Character, Variant
from .errors import IllegalDecision, Reason
from .game import Game, Phase, PlayerState, TurnState
from .rng import GameRandom

SCHEMA_VERSION = 2
# Schema 1 (before the variants) had no variant, Reserve, allegiances or examined card:
# such a record loads as a base game.
_READABLE = (1, 2)


def _cards(names: list[str]) -> list[Character]:
    return [Character(n) for n in names]


def game_to_dict(game: Game) -> dict[str, Any]:
    """Return the whole state as a JSON-safe dict (with a schema version)."""
    t = game.turn
    reformation = game.variant.reformation
    data: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "variant": game.variant.value,
        "reserve": game.reserve,
        "version": game.version,
        "rng": game.rng.getstate(),
        "afk_limit": game.afk_limit,
        "phase": game.phase.value,
        "treasury": game.treasury,
        "deck": [c.value for c in game.deck],
        # The allegiance is a sixth column in Reformation games only (records stay small).
        "players": [
            [p.id, p.coins, [c.value for c in p.hidden], [c.value for c in p.revealed], p.afk_turns]
            + ([p.allegiance.value if p.allegiance else None] if reformation else [])
            for p in game.players
        ],
        "turn": {
            "actor": t.actor,
            "action": t.action.value if t.action else None,
            "target": t.target,
            "blocker": t.blocker,
            "block": t.block_character.value if t.block_character else None,
            "waiting": list(t.waiting),
            "drawn": [c.value for c in t.drawn],
        },
        "losses": list(game.losses),
        "winner": game.winner,
    }
    if t.shown is not None:  # only while an Examine waits for the examiner
        data["turn"]["shown"] = t.shown.value
    return data


def game_from_dict(data: dict[str, Any]) -> Game:
    """Rebuild a game from game_to_dict() output (schema 1 records load as base games)."""
    if data.get("schema") not in _READABLE:
        raise IllegalDecision(Reason.BAD_SETUP, f"unknown game schema {data.get('schema')!r}")
    t = data["turn"]
    players = []
    for row in data["players"]:
        pid, coins, hidden, revealed, afk = row[:5]
        side = row[5] if len(row) > 5 else None
        players.append(
            PlayerState(
                pid,
                coins,
                _cards(hidden),
                _cards(revealed),
                afk,
                Allegiance(side) if side else None,
            )
        )
    shown = t.get("shown")
    return Game(
        players=players,
        deck=_cards(data["deck"]),
        treasury=data["treasury"],
        rng=GameRandom(data["rng"]),
        turn=TurnState(
            actor=t["actor"],
            action=Action(t["action"]) if t["action"] else None,
            target=t["target"],
            blocker=t["blocker"],
            block_character=Character(t["block"]) if t["block"] else None,
            waiting=list(t["waiting"]),
            drawn=_cards(t["drawn"]),
            shown=Character(shown) if shown else None,
        ),
        phase=Phase(data["phase"]),
        losses=list(data["losses"]),
        version=data["version"],
        afk_limit=data["afk_limit"],
        winner=data["winner"],
        variant=Variant(data.get("variant", Variant.BASE.value)),
        reserve=data.get("reserve", 0),
    )
