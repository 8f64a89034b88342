"""A finished game's record (seed, variant, players, decisions, timing) and its replay.

During a game, every decision the engine applied is noted on the game record as a short
code (`note_move`); when the game ends, `archive_of` turns the record into a small JSON
document kept for a configurable time. `replay` rebuilds the whole game from that document
with the engine, and refuses (`DoesNotReplay`) when the result is not the one recorded.
A record names the rules version it was played under and rebuilds under those rules
(`engine.game_class`): base games kept before version 2 asked questions it no longer asks.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from ..engine import (
    RULES_VERSION,
    Action,
    Character,
    Game,
    IllegalDecision,
    Variant,
    codes,
    game_class,
    game_to_dict,
)
from ..engine import events as ev
from .records import GameRecord

ARCHIVE_SCHEMA = 1
# A move is "T" (a timeout), "<seat>Q" (that player left) or "<seat><decision code>", the
# code of engine/codes.py (the same as the buttons'). Schema 1 has always written these
# codes, so records of every age replay with the one codec.
TIMEOUT, LEAVE = "T", "Q"
# A record names the rules version it was played under ("rules"); one without it was kept
# before the versions were named (version 1), and rebuilds under those rules.
UNNAMED_RULES = 1


class DoesNotReplay(Exception):
    """The record does not rebuild the game it recorded (corrupt, or the rules changed)."""


def note_move(record: GameRecord, now_ms: int, player: int | None, decision: Any) -> None:
    """Note an applied step on the record: a decision (`player`, `decision`), a timeout
    (`player` None), or a player leaving (`decision` LEAVE)."""
    seats = [s.id for s in record.players]
    if player is None:
        code = TIMEOUT
    elif decision == LEAVE:
        code = f"{seats.index(player)}{LEAVE}"
    else:
        code = f"{seats.index(player)}{codes.encode(decision, seats)}"
    record.moves.append(code)
    record.move_s.append(max(0, (now_ms - record.created_ms) // 1000))


def fingerprint(game: Game) -> str:
    """A short digest of a whole game state: equal states, equal digests."""
    text = json.dumps(game_to_dict(game), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def archive_of(record: GameRecord, game: Game, now_ms: int) -> dict[str, Any]:
    """The record kept of a finished game: what the engine needs to rebuild it, and the
    digest of the result it must rebuild to."""
    return {
        "v": ARCHIVE_SCHEMA,
        "id": record.id,
        "chat": record.chat_id,
        "thread": record.thread_id,
        "lang": record.lang,
        "seed": record.seed,
        "variant": game.variant.value,
        "rules": RULES_VERSION,
        "afk": record.timing.afk_limit,
        "timing": [
            record.timing.turn,
            record.timing.response,
            record.timing.lose_card,
            record.timing.exchange,
        ],
        "players": [[s.id, s.name, s.lang, int(s.ai)] for s in record.players],
        "start": record.created_ms,
        "end": now_ms,
        "moves": " ".join(record.moves),
        "t": record.move_s,
        "winner": game.winner,
        "digest": fingerprint(game),
    }


def encode_archive(archive: dict[str, Any]) -> str:
    """The stored form of an archive (compact JSON)."""
    return json.dumps(archive, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class Claim:
    """A character someone claimed (an action or a block), and whether they held it then."""

    player: int
    character: Character
    turn: int
    true: bool


@dataclass(slots=True)
class Replayed:
    """A game rebuilt from its archive: every step's events, the claims, the final state."""

    archive: dict[str, Any]
    game: Game
    steps: list[list[ev.Event]] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    out_order: list[int] = field(default_factory=list)  # eliminated players, first out first

    def names(self) -> dict[int, str]:
        """Display names by seat id."""
        return {int(p[0]): str(p[1]) for p in self.archive["players"]}

    def humans(self) -> list[int]:
        """The people (not AI players) who played."""
        return [int(p[0]) for p in self.archive["players"] if not p[3]]

    def ranking(self) -> list[int]:
        """Every player, best first: the winner, then the last out, down to the first out."""
        out = [p for p in reversed(self.out_order) if p != self.game.winner]
        others = [int(p[0]) for p in self.archive["players"] if int(p[0]) not in out]
        others.sort(key=lambda p: p != self.game.winner)  # the winner first
        return others + out


def replay(archive: dict[str, Any]) -> Replayed:
    """Rebuild a game from its archive with the engine; DoesNotReplay if the result differs."""
    done = rebuild(archive)
    game = done.game
    if (
        not game.over
        or game.winner != archive.get("winner")
        or fingerprint(game) != archive.get("digest")
    ):
        raise DoesNotReplay(f"game {archive.get('id')} rebuilds to another result")
    return done


def rebuild(archive: dict[str, Any]) -> Replayed:
    """Rebuild a game, finished or not, from its archive with the engine, step by step;
    DoesNotReplay if a move does not apply (the caller compares the result)."""
    if archive.get("v") != ARCHIVE_SCHEMA:
        raise DoesNotReplay(f"game {archive.get('id')}: unknown record schema {archive.get('v')!r}")
    try:
        seats = [int(p[0]) for p in archive["players"]]
        variant = Variant.parse(str(archive["variant"]))
        rules = archive.get("rules", UNNAMED_RULES)
        if type(rules) is not int:
            raise ValueError(f"rules version {rules!r}")
        game, opening = game_class(variant, rules).new(
            seats, int(archive["seed"]), afk_limit=int(archive["afk"]), variant=variant
        )
        done = Replayed(archive, game, [opening])
        turn = sum(isinstance(e, ev.TurnStarted) for e in opening)
        for code in str(archive["moves"]).split():
            if code == TIMEOUT:
                events = game.apply_timeout()
                before: dict[int, list[Character]] = {}
            else:
                seat, rest = int(code[0]), code[1:]
                player = seats[seat]
                before = {player: list(game.player(player).hidden)}
                if rest == LEAVE:
                    events = game.leave(player)
                else:
                    events = game.apply(player, codes.decode(rest, seats))
            for e in events:
                who, character = _claim_of(e)
                if who is not None and character is not None and who in before:
                    held = character in before[who]
                    if isinstance(e, ev.ActionDeclared) and e.action is Action.EMBEZZLE:
                        held = not held  # Embezzlement claims *not* to hold the Duke
                    done.claims.append(Claim(who, character, turn, held))
                gone = getattr(e, "player", None)
                is_out = isinstance(e, ev.PlayerEliminated | ev.PlayerLeft)
                if is_out and gone is not None and gone not in done.out_order:
                    done.out_order.append(gone)
                if isinstance(e, ev.TurnStarted):
                    turn += 1
            done.steps.append(events)
    except (IllegalDecision, codes.BadCode, KeyError, ValueError, TypeError, IndexError) as err:
        raise DoesNotReplay(f"game {archive.get('id')}: {err}") from None
    return done


def _claim_of(e: ev.Event) -> tuple[int | None, Character | None]:
    if isinstance(e, ev.ActionDeclared):
        return e.actor, e.claim
    if isinstance(e, ev.BlockDeclared):
        return e.blocker, e.character
    return None, None
