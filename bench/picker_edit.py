"""How soon a target picker's new look reaches Telegram after its press is answered, now
that the handler only answers and the edit goes through the game's outbox (issue 37).

A 3-player game is opened and started through the real webhook app against the simulated
Bot API, with Telegram's pace for private chats (about one message a second); the mover
then presses the picker and Back in turn, `--presses` times, `--gap` seconds apart, and
for each press the time from the webhook's answer to the editMessageText the simulated
Bot API receives is taken. Run: `python bench/picker_edit.py [--presses 20] [--gap 0.5]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("PTB_TIMEDELTA", "1")

from tests.bot.play import open_and_start, players
from tests.redis_server import redis_url
from tests.telegram_sim.harness import running_bot
from tgbot.contract import callbacks


async def measure(url: str, presses: int, gap: float) -> list[float]:
    """Milliseconds from each press's answer to its edit reaching the simulated Bot API."""
    async with running_bot(url, private_rate=1) as h:
        users = players(3, first_id=4200)
        game_id = await open_and_start(h, users, group=-100420)
        await h.delivered(game_id)
        actor = next(u for u in users if h.sim.with_buttons(u.id))
        prompt = h.sim.with_buttons(actor.id)[-1]
        steal = prompt.button(h.tr("🏴 Steal"))["callback_data"]
        back = steal.rsplit(".", 1)[0] + "." + callbacks.BACK
        await asyncio.sleep(3)  # the private chat's window of the deal and the prompt
        lags = []
        for i in range(presses):
            data = steal if i % 2 == 0 else back
            before = len(h.sim.calls_to(actor.id, "editMessageText"))
            response = await h.post(h.press_update(actor, actor.id, prompt.message_id, data))
            answered = time.monotonic()
            assert response.status_code == 200
            await h.until(lambda b=before: len(h.sim.calls_to(actor.id, "editMessageText")) > b)
            edit = h.sim.calls_to(actor.id, "editMessageText")[before]
            lags.append((edit.at - answered) * 1000)
            await asyncio.sleep(gap)
        return lags


def main() -> None:
    """Print the lag's median, 90th percentile and maximum."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--gap", type=float, default=0.5)
    args = parser.parse_args()
    with redis_url() as url:
        lags = asyncio.run(measure(url, args.presses, args.gap))
    lags.sort()
    p90 = lags[min(len(lags) - 1, int(len(lags) * 0.9))]
    print(
        f"picker edit after the answer, {len(lags)} presses {args.gap} s apart: "
        f"median {statistics.median(lags):.1f} ms, p90 {p90:.1f} ms, max {lags[-1]:.1f} ms"
    )


if __name__ == "__main__":
    main()
