"""Rendering reads the engine and five leaves of the service, and those leaves stay leaves
(ARCHITECTURE.md, the rooms table): button data is parsed outside rendering, and the
settings and callback tables, a step's outcome and the plan's operations can be read by
rendering (which writes a step's plan from its outcome) without pulling the service in."""

from __future__ import annotations

import ast
from pathlib import Path

TGBOT = Path(__file__).resolve().parents[1] / "tgbot"
LEAVES = {
    "tgbot.service.outcomes",
    "tgbot.service.callbacks",
    "tgbot.service.settings",
    "tgbot.service.plan",
    "tgbot.service.steps",
}


def imported(path: Path) -> set[str]:
    """The tgbot modules a module imports (relative imports resolved)."""
    package = ["tgbot", *path.relative_to(TGBOT).parent.parts]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            stem = ".".join([*base, *([node.module] if node.module else [])])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tgbot"):
            stem = str(node.module)
        else:
            continue
        for alias in node.names:  # `from ..service import callbacks` imports a module
            name = f"{stem}.{alias.name}"
            found.add(name if is_module(name) else stem)
    return found


def is_module(name: str) -> bool:
    """Whether a dotted name is a module of tgbot (not a name inside one)."""
    path = TGBOT.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or path.is_dir()


def test_rendering_imports_the_engine_and_the_services_leaves_only() -> None:
    allowed = ("tgbot.engine", "tgbot.rendering")
    for path in sorted((TGBOT / "rendering").glob("*.py")):
        for module in imported(path):
            assert module.startswith(allowed) or module in LEAVES, (path.name, module)


def test_the_leaves_import_the_engine_and_the_catalogues_only() -> None:
    for leaf in LEAVES:
        path = TGBOT / "service" / (leaf.rsplit(".", 1)[1] + ".py")
        for module in imported(path):
            assert module.startswith("tgbot.engine") or module == "tgbot.rendering.i18n", (
                path.name,
                module,
            )


def test_the_scan_sees_imports() -> None:
    found = imported(TGBOT / "service" / "play.py")
    assert {"tgbot.rendering.prompting", "tgbot.service.callbacks"} <= found
    assert "tgbot.storage.commit" in found
