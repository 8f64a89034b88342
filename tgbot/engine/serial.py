"""A game as a JSON-safe dict, and back."""

from __future__ import annotations

from typing import Any

from .cards import Action, Character
from .errors import IllegalDecision, Reason
from .game import Game, Phase, PlayerState, TurnState
from .rng import GameRandom

SCHEMA_VERSION = 1


def _cards(names: list[str]) -> list[Character]:
    return [Character(n) for n in names]


def game_to_dict(game: Game) -> dict[str, Any]:
    """Return the whole state as a JSON-safe dict (with a schema version)."""
    t = game.turn
    return {
        "schema": SCHEMA_VERSION,
        "version": game.version,
        "rng": game.rng.getstate(),
        "afk_limit": game.afk_limit,
        "phase": game.phase.value,
        "treasury": game.treasury,
        "deck": [c.value for c in game.deck],
        "players": [
            [p.id, p.coins, [c.value for c in p.hidden], [c.value for c in p.revealed], p.afk_turns]
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


def game_from_dict(data: dict[str, Any]) -> Game:
    """Rebuild a game from game_to_dict() output."""
    if data.get("schema") != SCHEMA_VERSION:
        raise IllegalDecision(Reason.BAD_SETUP, f"unknown game schema {data.get('schema')!r}")
    t = data["turn"]
    return Game(
        players=[
            PlayerState(pid, coins, _cards(hidden), _cards(revealed), afk)
            for pid, coins, hidden, revealed, afk in data["players"]
        ],
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
        ),
        phase=Phase(data["phase"]),
        losses=list(data["losses"]),
        version=data["version"],
        afk_limit=data["afk_limit"],
        winner=data["winner"],
    )
