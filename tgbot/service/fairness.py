"""A shuffle anyone can check: a commitment to the seed at a game's start, the seed at its end.

The commitment is the SHA-256, in lowercase hex, of the UTF-8 bytes of
`f"{game_id}:{seed}"`, the seed in decimal without sign or leading zeros (the text
`k3x9q2ab:1234567890`, for instance); `printf '%s' 'k3x9q2ab:1234567890' | sha256sum`
gives it back. The group sees it when the game starts and the seed only when the game is
over: the seed deals every hand, so it is never shown before. The engine deals from the
seed alone (`engine/rng.py`), so the seed, the players in the lobby's order and the
variant rebuild the seating, who starts and every opening hand, which the record noted
when they were dealt (`deal`). The seed is 64 bits from the operating system's CSPRNG
(`secrets`): too many to try against the commitment while a game lasts; the game id in
the hashed text ties a commitment to one game.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..engine import Variant, game_class
from ..engine import events as ev
from .archive import UNNAMED_RULES, DoesNotReplay, replay

# A deal as kept: each seat in seating order, with the cards it was dealt face down.
Deal = list[list[Any]]  # [[player id, [character, character]], ...]


def committed_text(game_id: str, seed: int) -> str:
    """The exact text whose SHA-256 is a game's commitment."""
    return f"{game_id}:{seed}"


def commitment(game_id: str, seed: int) -> str:
    """A game's commitment: the SHA-256 (hex) of the UTF-8 bytes of `game_id:seed`."""
    return hashlib.sha256(committed_text(game_id, seed).encode("utf-8")).hexdigest()


def deal_of(events: Iterable[ev.Event]) -> Deal:
    """The opening hands of a game's first events, in seating order."""
    return [[e.player, [c.value for c in e.cards]] for e in events if isinstance(e, ev.CardsDealt)]


@dataclass(slots=True)
class Verdict:
    """What `verify` found: each check's result (None: the record has nothing to check it
    against), and the mismatches, each (what, recorded, rebuilt)."""

    game_id: str
    seed: int | None
    commitment_ok: bool | None = None
    deal_ok: bool | None = None
    replays: bool = False
    mismatches: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Every check that could be made passed."""
        return self.replays and not self.mismatches


def verify(archive: dict[str, Any]) -> Verdict:
    """Check a kept game: its seed against the commitment shown at its start, the deal the
    seed rebuilds against the hands noted when they were dealt, and its whole replay."""
    game_id = str(archive.get("id"))
    raw_seed = archive.get("seed")
    seed = raw_seed if type(raw_seed) is int else None
    verdict = Verdict(game_id, seed)
    if seed is None:
        verdict.mismatches.append(("seed", "an integer", repr(raw_seed)))
        return verdict
    shown = archive.get("commit")
    if shown is not None:
        rebuilt = commitment(game_id, seed)
        verdict.commitment_ok = rebuilt == shown
        if not verdict.commitment_ok:
            verdict.mismatches.append(("commitment", str(shown), rebuilt))
    noted = archive.get("deal")
    if noted is not None:
        try:
            dealt = rebuild_deal(archive)
        except (DoesNotReplay, ValueError, KeyError, TypeError) as err:
            verdict.mismatches.append(("deal", str(noted), f"no deal: {err}"))
        else:
            verdict.deal_ok = dealt == noted
            if not verdict.deal_ok:
                verdict.mismatches.append(("deal", str(noted), str(dealt)))
    try:
        replay(archive)
        verdict.replays = True
    except DoesNotReplay as err:
        verdict.mismatches.append(("replay", "the recorded result", str(err)))
    return verdict


def rebuild_deal(archive: dict[str, Any]) -> Deal:
    """The opening hands a kept game's seed deals its players, under its rules."""
    seats = [int(p[0]) for p in archive["players"]]
    variant = Variant.parse(str(archive["variant"]))
    rules = archive.get("rules", UNNAMED_RULES)
    _, opening = game_class(variant, int(rules)).new(
        seats, int(archive["seed"]), afk_limit=int(archive["afk"]), variant=variant
    )
    return deal_of(opening)
