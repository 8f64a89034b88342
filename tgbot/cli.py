"""The `coup-bot` command: run the bot, or simulate games without Telegram."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from .config import DEFAULT_LOCALES
from .engine import Variant
from .engine.events import Event
from .rendering.i18n import Catalogs
from .rendering.texts import describe, variant_name
from .simulation import simulate


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="coup-bot", description="Coup for Telegram groups")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="run the bot (the default)")
    sim = sub.add_parser("simulate", help="play random games without Telegram")
    sim.add_argument("--players", type=int, default=4, choices=range(2, 7), metavar="N")
    sim.add_argument("--games", type=int, default=100, metavar="K")
    sim.add_argument("--seed", type=int, default=1, metavar="S")
    sim.add_argument("--log", action="store_true", help="print the first game's public log")
    sim.add_argument("--lang", choices=("ka", "en"), default="ka", help="language of the log")
    sim.add_argument(
        "--variant",
        type=_variant,
        default=Variant.BASE,
        metavar="V",
        help="base, inquisitor, reformation or reformation+inquisitor",
    )
    return parser


def _variant(text: str) -> Variant:
    """Parse --variant: `reformation+inquisitor` and `reformation_inquisitor` both work."""
    try:
        return Variant.parse(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"unknown variant {text!r}: base, inquisitor, reformation, reformation+inquisitor"
        ) from None


def public_log(events: list[Event], lang: str, variant: Variant = Variant.BASE) -> str:
    """A game's public events as the group would read them."""
    t = Catalogs(DEFAULT_LOCALES).get(lang)
    names = {pid: f"P{pid}" for pid in range(1, 7)}
    lines = [variant_name(t, variant)] if variant is not Variant.BASE else []
    lines += [describe(e, t, names) for e in events if e.recipient is None]
    return "\n".join(line for line in lines if line)


def run_simulate(args: argparse.Namespace) -> int:
    """Play the games and print a summary (and optionally one game's public log)."""
    started = time.perf_counter()
    summary, first = simulate(args.players, args.games, args.seed, args.variant)
    elapsed = time.perf_counter() - started
    if args.log and first is not None:
        print(public_log(first.events, args.lang, args.variant))
        print()
    if args.variant is not Variant.BASE:
        print(f"variant: {args.variant.value}")
    print(f"games: {summary.games}")
    print(f"decisions: {summary.decisions}")
    wins = ", ".join(f"{seat}: {summary.wins_by_seat[seat]}" for seat in range(1, args.players + 1))
    print(f"wins by seat: {wins}")
    print(f"elapsed: {elapsed:.3f} s")
    return 0


def run_bot() -> int:
    """Load the configuration and run the bot; a bad setting stops it with one clear line."""
    from telegram.error import InvalidToken, NetworkError

    from .config import ConfigError, load_config
    from .run import run

    try:
        config = load_config()
    except ConfigError as err:
        print(f"coup-bot: {err}", file=sys.stderr)
        return 2
    try:
        run(config)
    except InvalidToken:
        print("coup-bot: Telegram refused BOT_TOKEN: check it with @BotFather", file=sys.stderr)
        return 2
    except NetworkError as err:
        print(f"coup-bot: cannot reach the Telegram Bot API ({err})", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `coup-bot` and `python -m tgbot`."""
    args = _parser().parse_args(argv)
    if args.command == "simulate":
        return run_simulate(args)
    return run_bot()
