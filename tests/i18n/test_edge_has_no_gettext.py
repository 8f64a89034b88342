"""Text is made in tgbot/rendering only: the Telegram edge calls no gettext."""

from __future__ import annotations

import ast
from pathlib import Path

TGBOT = Path(__file__).resolve().parents[2] / "tgbot"
TRANSLATING = frozenset({"gettext", "ngettext", "pgettext", "npgettext", "_"})


def translating_calls(folder: Path) -> list[str]:
    """Every call of a gettext function (as a name or an attribute) in a folder's modules."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in TRANSLATING:
                    found.append(f"{path.relative_to(TGBOT.parent)}:{node.lineno} {name}")
    return found


def test_the_telegram_edge_calls_no_gettext() -> None:
    assert translating_calls(TGBOT / "telegram") == []


def test_the_scan_finds_the_calls_in_rendering() -> None:
    """The scan sees calls where they are (it cannot pass by finding nothing anywhere)."""
    calls = translating_calls(TGBOT / "rendering")
    assert any(c.startswith("tgbot/rendering/replies.py") for c in calls)
    assert any(c.endswith(" ngettext") for c in calls)


def test_the_wiring_makes_no_text() -> None:
    """The top-level modules (bootstrap, run, config, cli, ...) neither translate nor mark
    a msgid: the bot's profile texts are rendering's too (tgbot/rendering/profile.py)."""
    marking = TRANSLATING | {"N_", "NC_"}
    found = [
        f"{path.name}:{node.lineno}"
        for path in sorted(TGBOT.glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and (getattr(node.func, "attr", None) or getattr(node.func, "id", "")) in marking
    ]
    assert len(list(TGBOT.glob("*.py"))) >= 5  # the folder was found
    assert found == []
