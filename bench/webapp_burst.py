"""What 1,000 requests at once cost one bot process, by kind: a probe (`GET /healthz`
every 10 ms) notes the longest wait while the burst is answered.

Kinds: `words` (`GET /app/api/words`: no signature, no Redis), `badauth` (a ticket asked
with bad initData: a 401 after the check), `events-badticket` (a stream asked with an
unknown ticket: one Redis GETDEL), `ticket` (tickets issued to 10 accounts: the check,
the throttle, a read of the game, a SET). Against a bot kept up by
`python bench/webapp.py --skip-fan-out --skip-views --idle-seconds 0 --games 2 --hold 200`
(it prints its bots and a game id): `python bench/webapp_burst.py BOT_URL GAME_ID`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.webapp import init_data

KINDS = ("words", "badauth", "events-badticket", "ticket")


async def probe(
    http: httpx.AsyncClient, base: str, waits: list[float], stop: asyncio.Event
) -> None:
    """GET /healthz every 10 ms until `stop`, noting each answer's wait."""
    while not stop.is_set():
        started = time.perf_counter()
        await http.get(f"{base}/healthz")
        waits.append(time.perf_counter() - started)
        await asyncio.sleep(0.01)


async def burst(base: str, game: str, kind: str, n: int) -> None:
    """Send `n` requests of a kind at once; print how long they took and the probe's worst."""
    limits = httpx.Limits(max_connections=n + 10, max_keepalive_connections=0)
    auth = [{"Authorization": "tma " + init_data(800_000 + i)} for i in range(10)]
    async with (
        httpx.AsyncClient(timeout=60, limits=limits) as attack,
        httpx.AsyncClient(timeout=60) as http,
    ):
        waits: list[float] = []
        stop = asyncio.Event()
        probing = asyncio.create_task(probe(http, base, waits, stop))
        await asyncio.sleep(0.5)

        async def one(k: int) -> None:
            try:
                if kind == "words":
                    await attack.get(f"{base}/app/api/words")
                elif kind == "badauth":
                    bad = {"Authorization": "tma x"}
                    await attack.post(f"{base}/app/api/ticket", params={"game": game}, headers=bad)
                elif kind == "events-badticket":
                    await attack.get(f"{base}/app/api/events", params={"ticket": "x" * 32})
                else:
                    await attack.post(
                        f"{base}/app/api/ticket", params={"game": game}, headers=auth[k % 10]
                    )
            except httpx.HTTPError:
                pass

        started = time.perf_counter()
        await asyncio.gather(*(one(k) for k in range(n)))
        took = time.perf_counter() - started
        await asyncio.sleep(0.5)
        stop.set()
        await probing
        print(
            f"{kind:18s} {n} at once in {took:.2f} s; /healthz probe: "
            f"longest wait {max(waits) * 1000:.0f} ms"
        )


async def main() -> None:
    """Each kind's burst in turn."""
    parser = argparse.ArgumentParser()
    parser.add_argument("base", help="a bot's URL, as bench/webapp.py --hold prints it")
    parser.add_argument("game", help="a game id, as bench/webapp.py --hold prints it")
    parser.add_argument("--requests", type=int, default=1000)
    args = parser.parse_args()
    for kind in KINDS:
        await burst(args.base, args.game, kind, args.requests)


if __name__ == "__main__":
    asyncio.run(main())
