"""The simulated Bot API from tests/ in a process of its own (for the benchmarks)."""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.telegram_sim.server import TelegramSim, build_sim_app

if __name__ == "__main__":
    uvicorn.run(
        build_sim_app(TelegramSim()), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning"
    )
