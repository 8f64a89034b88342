"""The size of the group's turn messages: lines and characters, median and largest.

Plays seeded 6-player games (every seat the bot's AI, answers at the table) through the
real step builder (`service/step_messages.StepMessages`: `advance`, then
`rendering/step_plan`), follows the group's messages as the plan sends and edits them
(a send of the turn message's reference starts a new message), and measures each turn
message in its last state (what stays in the chat) and in every state it was shown in.
A deadline's moment counts as its plain-text fallback ("12:34:56 UTC").
Run: `python bench/turn_size.py [--games N] [--lang ka|en]`.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
from dataclasses import dataclass, field

from tgbot.ai import choose
from tgbot.config import DEFAULT_LOCALES
from tgbot.contract.plan import Edit, Send
from tgbot.contract.steps import TURN_REF
from tgbot.engine import Game, game_to_dict, view_of
from tgbot.rendering.i18n import Catalogs
from tgbot.service.history import History
from tgbot.service.records import GameRecord, Seat, Timing
from tgbot.service.step_messages import StepMessages

CHAT = -100
NAMES = ["Walter", "Carol", "ქეთი", "ნათია", "მარიამი", "გიორგი"]
FALLBACK = "12:34:56 UTC"  # as long as the sender's plain-text moment


@dataclass
class Sizes:
    """Each turn message's size: in its last state, and in every state it was shown in."""

    last: list[tuple[int, int]] = field(default_factory=list)  # (lines, characters)
    every: list[tuple[int, int]] = field(default_factory=list)
    tails_left: int = 0  # turn messages whose last state says "X to move" (never true later)
    buttons_left: int = 0  # turn messages whose last state still has buttons


def _shown(op: Send | Edit) -> str:
    moment = getattr(op, "moment", None)
    if moment is None:
        return op.text
    return op.text[: moment.offset] + FALLBACK + op.text[moment.offset :]


def play(seed: int, lang: str, builder: StepMessages, sizes: Sizes) -> None:
    """Play one game and add its turn messages' sizes (the game's end message aside)."""
    ids = list(range(1, 7))
    record = GameRecord(
        f"g{seed}",
        CHAT,
        None,
        lang,
        ids[0],
        Timing(60, 30, 30, 30, 60, 2),
        players=[Seat(pid, NAMES[pid - 1], lang) for pid in ids],
    )
    record.turn_ref = "lobby"
    game, events = Game.new(ids, seed)
    rng = random.Random(seed)
    messages: list[list[tuple[str, bool]]] = []  # each turn message's states (text, buttons)
    current: dict[str, int] = {"lobby": 0}
    messages.append([])
    now = 0
    while True:
        History.tally_claims(record, events)
        plan = builder.build(record, game, events, now)
        record.engine = game_to_dict(game)
        record.delivered = record.context  # as if its prompt reached Telegram at once
        for op in plan.ops:
            if op.chat != CHAT or not (op.ref == "lobby" or str(op.ref).startswith(TURN_REF)):
                continue
            if isinstance(op, Send):
                if game.over and op.kb:
                    continue  # the end's own message is not a turn's
                messages.append([])
                current[op.ref] = len(messages) - 1
            messages[current[op.ref]].append((_shown(op), bool(op.kb)))
        if game.over:
            break
        waiting = game.awaiting()
        pid = rng.choice(waiting.players)
        events = game.apply(pid, choose(view_of(game, pid), rng))
        now += 2000
    for states in messages:
        if not states:
            continue
        for text, _ in states:
            sizes.every.append((text.count("\n") + 1, len(text)))
        text, buttons = states[-1]
        sizes.last.append((text.count("\n") + 1, len(text)))
        sizes.tails_left += "▶️" in text.splitlines()[-1]
        sizes.buttons_left += buttons


def measure(seeds: range, lang: str = "ka") -> Sizes:
    """Play one game per seed and measure its turn messages."""
    builder = StepMessages(Catalogs(DEFAULT_LOCALES), "coup_test_bot")
    sizes = Sizes()
    for seed in seeds:
        play(seed, lang, builder, sizes)
    return sizes


def _figures(rows: list[tuple[int, int]]) -> str:
    lines = [r[0] for r in rows]
    chars = [r[1] for r in rows]
    return (
        f"median {statistics.median(lines):.0f} lines / {statistics.median(chars):.0f} chars, "
        f"max {max(lines)} lines / {max(chars)} chars ({len(rows)} messages)"
    )


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--lang", default="ka")
    args = parser.parse_args()
    sizes = measure(range(args.games), args.lang)
    print(f"{platform.machine()}, CPython {platform.python_version()}, {args.games} games")
    print(f"6-player turn messages ({args.lang}), last state: {_figures(sizes.last)}")
    print(f"6-player turn messages ({args.lang}), every state: {_figures(sizes.every)}")
    print(f"last states still saying whose turn it is: {sizes.tails_left}")
    print(f"last states still with buttons: {sizes.buttons_left}")


if __name__ == "__main__":
    main()
