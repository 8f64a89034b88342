"""The simulated Bot API from tests/ in a process of its own (for the benchmarks).

`python bench/sim_server.py PORT [GROUP_FLOOD_PER_MINUTE]`: with the second argument the
sim answers 429 to a group's messages and edits past that many in any 60 s, as Telegram
does. Besides the Bot API it serves what a benchmark needs to check afterwards:
GET /sim/chat/{chat_id} (the texts of the chat's messages, oldest first) and
GET /sim/stats (calls by method and status, 429s to groups).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.telegram_sim.server import TelegramSim, build_sim_app


def build(sim: TelegramSim) -> Starlette:
    """The sim's Bot API with the two inspection routes added."""
    app = build_sim_app(sim)

    async def chat(request: Request) -> JSONResponse:
        chat_id = int(request.path_params["chat_id"])
        return JSONResponse([m.text for m in sim.messages(chat_id)])

    async def stats(_: Request) -> JSONResponse:
        by_call = Counter(f"{c.method} {c.status}" for c in sim.calls)
        group_429 = sum(
            1 for c in sim.calls if c.status == 429 and int(c.params.get("chat_id") or 0) < 0
        )
        return JSONResponse({"calls": dict(by_call), "group_429": group_429})

    app.add_route("/sim/chat/{chat_id}", chat, methods=["GET"])
    app.add_route("/sim/stats", stats, methods=["GET"])
    return app


if __name__ == "__main__":
    flood = int(sys.argv[2]) if len(sys.argv) > 2 else None
    uvicorn.run(
        build(TelegramSim(group_flood_per_minute=flood)),
        host="127.0.0.1",
        port=int(sys.argv[1]),
        log_level="warning",
    )
