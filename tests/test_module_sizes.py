"""Small modules with one job each: no module of tgbot/ runs past 600 lines (issue 40)."""

from __future__ import annotations

from pathlib import Path

TGBOT = Path(__file__).resolve().parents[1] / "tgbot"
LONGEST = 600


def test_no_module_runs_past_600_lines() -> None:
    modules = sorted(TGBOT.rglob("*.py"))
    assert len(modules) > 50  # the package was found
    long = {
        str(path.relative_to(TGBOT)): n
        for path in modules
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > LONGEST
    }
    assert long == {}
