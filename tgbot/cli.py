"""The `coup-bot` command: run the bot, or simulate games without Telegram."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from importlib import metadata

from .config import DEFAULT_LOCALES
from .contract.languages import DEFAULT_LANGUAGE, LANGUAGES
from .engine import Variant
from .engine.events import Event
from .rendering.i18n import CatalogError, Catalogs
from .rendering.texts import describe, told, variant_name
from .simulation import simulate


def version() -> str:
    """The installed package's version."""
    try:
        return metadata.version("coup-bot")
    except metadata.PackageNotFoundError:  # running from a checkout that is not installed
        return "unknown"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="coup-bot", description="Coup for Telegram groups")
    parser.add_argument("--version", action="version", version=f"coup-bot {version()}")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="run the bot (the default)")
    sub.add_parser(
        "check", help="check the configuration, Redis, the token and the webhook, then exit"
    )
    sim = sub.add_parser("simulate", help="play random games without Telegram")
    sim.add_argument("--players", type=int, default=4, choices=range(2, 7), metavar="N")
    sim.add_argument("--games", type=int, default=100, metavar="K")
    sim.add_argument("--seed", type=int, default=1, metavar="S")
    sim.add_argument("--log", action="store_true", help="print the first game's public log")
    sim.add_argument(
        "--lang", choices=LANGUAGES, default=DEFAULT_LANGUAGE, help="language of the log"
    )
    sim.add_argument(
        "--variant",
        type=_variant,
        default=Variant.BASE,
        metavar="V",
        help="base, inquisitor, reformation or reformation+inquisitor",
    )
    check = sub.add_parser(
        "verify", help="check a finished game's shuffle against the commitment shown at its start"
    )
    check.add_argument("game", help="the game's id (in its final message and /replay)")
    check.add_argument(
        "--file", metavar="PATH", help="read the kept record from this JSON file, not Redis"
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
    lines: list[str | None] = [variant_name(t, variant)] if variant is not Variant.BASE else []
    lines += [describe(e, t, names) for e in told(events) if e.recipient is None]
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
    """Load the configuration and run the bot; whatever stops it from starting is said in
    one line (exit 2: fix the setup; exit 1: Redis or Telegram did not answer)."""
    from .config import ConfigError, load_config
    from .run import run
    from .startup import CONFIG_EXIT, StartupError

    try:
        config = load_config()
    except ConfigError as err:
        print(f"coup-bot: {err}", file=sys.stderr)
        return CONFIG_EXIT
    try:
        run(config)
    except StartupError as err:
        print(f"coup-bot: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        pass
    return 0


def run_check() -> int:
    """`coup-bot check`: one line per check, exit 1 if any failed (2: bad configuration)."""
    import asyncio

    from .checks import check

    return asyncio.run(check())


def run_verify(args: argparse.Namespace) -> int:
    """`coup-bot verify <game>`: OK (exit 0) when the seed matches the commitment shown at
    the start, deals the hands recorded then and replays to the recorded result; else
    each mismatch (exit 1); exit 2 when the game's record cannot be read."""
    import asyncio
    import json
    from pathlib import Path

    from .service.fairness import committed_text, verify

    try:
        if args.file:
            archive = json.loads(Path(args.file).read_text(encoding="utf-8"))
        else:
            archive = asyncio.run(_kept_archive(args.game))
    except (OSError, ValueError) as err:
        print(f"coup-bot: {err}", file=sys.stderr)
        return 2
    if not isinstance(archive, dict) or str(archive.get("id")) != args.game:
        print(f"coup-bot: no kept record of game {args.game}", file=sys.stderr)
        return 2
    verdict = verify(archive)
    print(f"game {verdict.game_id}, seed {verdict.seed}")
    said = {
        "commitment": (
            verdict.commitment_ok,
            f'sha256("{committed_text(verdict.game_id, verdict.seed or 0)}") is the code '
            "shown at the start",
            "no commitment was shown (a game from before it was)",
        ),
        "deal": (
            verdict.deal_ok,
            "the seed deals the seats and hands recorded when they were dealt",
            "no opening hands were recorded (a game from before they were)",
        ),
        "replay": (
            verdict.replays or None,
            "the seed and the recorded decisions rebuild the recorded result",
            "",
        ),
    }
    wrong = {what: (recorded, rebuilt) for what, recorded, rebuilt in verdict.mismatches}
    for what, (ok, fine, missing) in said.items():
        if what in wrong:
            recorded, rebuilt = wrong[what]
            print(f"MISMATCH {what}: recorded {recorded}, rebuilt {rebuilt}")
        elif ok:
            print(f"ok {what}: {fine}")
        elif missing:
            print(f"-- {what}: {missing}")
    if "seed" in wrong:
        print(f"MISMATCH seed: {wrong['seed'][1]}")
    print("OK" if verdict.ok else "MISMATCH")
    return 0 if verdict.ok else 1


async def _kept_archive(game_id: str) -> object:
    """A finished game's kept record, from the Redis the configuration names (or the
    private Redis of a bot running with none named)."""
    from .config import ConfigError, load_config
    from .storage.clients import open_client
    from .storage.embedded import EmbeddedRedis
    from .storage.history_store import HistoryStore

    try:
        config = load_config()
    except ConfigError as err:
        raise ValueError(str(err)) from None
    url = config.redis_url or EmbeddedRedis(config.data_dir / "redis").url
    try:
        client = await open_client(url)
    except (ConnectionError, TimeoutError) as err:
        raise OSError(f"Redis at {url} did not answer: {err}") from None
    try:
        return await HistoryStore(client, config.key_prefix).archive(game_id)
    finally:
        await client.aclose()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `coup-bot` and `python -m tgbot`."""
    args = _parser().parse_args(argv)
    if args.command == "simulate":
        try:
            return run_simulate(args)
        except CatalogError as err:
            print(f"coup-bot: {err}", file=sys.stderr)
            return 2
    if args.command == "check":
        return run_check()
    if args.command == "verify":
        return run_verify(args)
    return run_bot()
