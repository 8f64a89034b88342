"""Every module of tgbot imports only what ARCHITECTURE.md's rooms table says its room may.

The rules are read from the table itself (its "may import" column), so the document and
this test cannot drift: a backticked `room` or `room/module` in a row's cell is allowed to
that row's room, "the standard library only" also forbids third-party packages, "nothing
of ours" allows no other room, "everything" is not checked, and "they import only `a` and
`b`" restricts the single modules the cell names from another room (rendering's leaves of
the service). A room may always import itself. Imports are read with `ast` (absolute and
relative, at any depth, type-only ones too), each resolved to the module it names.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TGBOT = ROOT / "tgbot"
DOC = ROOT / "ARCHITECTURE.md"
TOP = "top level"


@dataclass(frozen=True)
class Rule:
    """What the modules of one room (or one named module) may import."""

    allowed: frozenset[str]  # dotted prefixes under tgbot
    stdlib_only: bool = False  # no third-party package either
    everything: bool = False


def module_of(path: Path) -> str:
    """The dotted name of a tgbot source file."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    """Whether a dotted name is a module or package of tgbot (not a name inside one)."""
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or path.is_dir()


def room_of(module: str) -> str:
    """A module's room: its folder under tgbot, or the top-level module itself."""
    parts = module.split(".")
    return ".".join(parts[:2])


def ours(name: str) -> bool:
    """Whether a dotted name is in tgbot."""
    return name == "tgbot" or name.startswith("tgbot.")


def statements(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every statement, at any depth (an import is one; expressions need no walk)."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            yield from statements(getattr(node, field, []))


def imports(path: Path, source: str | None = None) -> list[tuple[int, str]]:
    """Each (line, module) a file imports: tgbot modules dotted, others by top-level name."""
    package = module_of(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    tree = ast.parse(source if source is not None else path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    for node in statements(tree.body):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                stem = ".".join([*base, *([node.module] if node.module else [])])
            else:
                stem = str(node.module)
            if not ours(stem):
                found.append((node.lineno, stem))
                continue
            for alias in node.names:  # `from ..service import callbacks` imports a module
                name = f"{stem}.{alias.name}"
                found.append((node.lineno, name if is_module(name) else stem))
    return found


def _names(text: str) -> frozenset[str]:
    """The tgbot modules or rooms a piece of a cell names in backticks (`service/outcomes`)."""
    named = (f"tgbot.{n.strip('/').replace('/', '.')}" for n in re.findall(r"`([\w/]+)`", text))
    return frozenset(n for n in named if is_module(n))


def rules_from_doc(text: str) -> dict[str, Rule]:
    """The rooms table's "may import" column, by room ("tgbot.engine", or "top level")
    and by single module for a restriction such as rendering's leaves of the service."""
    section = text.split("## The rooms", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]
    rules: dict[str, Rule] = {}
    for row in rows:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        assert len(cells) == 3, f"a rooms row that is not three cells: {row[:60]}"
        folder, _job, may = cells
        room = TOP if folder == TOP else f"tgbot.{folder.strip('`/')}"
        assert room == TOP or is_module(room), f"the table names no room of tgbot: {folder}"
        own, _, only = may.partition("import only")
        if may == "everything":
            rules[room] = Rule(frozenset(), everything=True)
        elif "standard library only" in may:
            rules[room] = Rule(frozenset(), stdlib_only=True)
        elif may == "nothing of ours":
            rules[room] = Rule(frozenset())
        else:
            allowed = _names(own)
            assert allowed, f"no room named in {room}'s cell: {may[:60]}"
            rules[room] = Rule(allowed)
            if only:  # the single modules of other rooms it names import only these
                for leaf in allowed:
                    if is_module(leaf) and room_of(leaf) != leaf:
                        rules[leaf] = Rule(_names(only))
    return rules


@cache
def doc_rules() -> dict[str, Rule]:
    """The rules of ARCHITECTURE.md as it stands."""
    return rules_from_doc(DOC.read_text(encoding="utf-8"))


def rule_for(module: str, rules: dict[str, Rule]) -> tuple[str, Rule]:
    """The rule a module keeps: its own (a named leaf), its room's, or the top level's."""
    if module in rules:
        return module, rules[module]
    room = room_of(module)
    is_top = module == "tgbot" or (ROOT / "tgbot" / f"{room.split('.')[1]}.py").is_file()
    key = TOP if is_top else room
    assert key in rules, f"{module}: its room {key} is not in ARCHITECTURE.md's table"
    return key, rules[key]


def breaks(
    path: Path, imported: list[tuple[int, str]], rules: dict[str, Rule] | None = None
) -> list[tuple[str, str, int]]:
    """The imports of a file (`imports(path)`) that its rule (ARCHITECTURE.md's unless
    `rules` are given) does not allow: (importer, imported, line)."""
    module = module_of(path)
    key, rule = rule_for(module, doc_rules() if rules is None else rules)
    if rule.everything:
        return []
    own = {module} if key == module else {key}
    found = []
    for line, name in imported:
        if ours(name):
            ok = any(name == p or name.startswith(p + ".") for p in rule.allowed | own)
        else:
            top = name.split(".")[0]
            ok = not rule.stdlib_only or top in sys.stdlib_module_names
        if not ok:
            found.append((module, name, line))
    return found


@cache
def scan() -> tuple[list[tuple[str, str, int]], set[tuple[str, str]]]:
    """Every break in tgbot today, and every import from one room into another."""
    found, edges = [], set()
    for path in sorted(TGBOT.rglob("*.py")):
        imported = imports(path)
        found += breaks(path, imported)
        edges |= {(room_of(module_of(path)), room_of(n)) for _, n in imported}
    return found, edges


def test_every_module_imports_what_its_room_may() -> None:
    found, _ = scan()
    assert not found, "imports that ARCHITECTURE.md's rooms table does not allow:\n" + "\n".join(
        f"  {importer} imports {imported} (line {line})" for importer, imported, line in found
    )


def test_the_scan_sees_the_imports_between_rooms() -> None:
    _, edges = scan()
    assert {
        ("tgbot.telegram", "tgbot.service"),
        ("tgbot.service", "tgbot.storage"),
        ("tgbot.rendering", "tgbot.engine"),
        ("tgbot.ai", "tgbot.engine"),
    } <= edges


def test_the_table_is_read_whole() -> None:
    rules = doc_rules()
    rooms = {f"tgbot.{p.name}" for p in TGBOT.iterdir() if p.is_dir() and p.name[0] != "_"}
    assert rooms | {TOP} <= rules.keys()
    assert rules["tgbot.engine"].stdlib_only and rules[TOP].everything
    assert rules["tgbot.storage"] == Rule(frozenset())


def test_a_forged_import_is_caught() -> None:
    engine = TGBOT / "engine" / "game.py"
    forged = "from ..storage import keys\nimport redis\nfrom tgbot.engine import cards\n"
    assert breaks(engine, imports(engine, forged)) == [
        ("tgbot.engine.game", "tgbot.storage.keys", 1),
        ("tgbot.engine.game", "redis", 2),
    ]
    storage = TGBOT / "storage" / "keys.py"
    late = "def f() -> None:\n    from ..service import records\n"
    assert breaks(storage, imports(storage, late)) == [
        ("tgbot.storage.keys", "tgbot.service.records", 2)
    ]
    assert breaks(storage, imports(storage, "import redis\nfrom . import plan\n")) == []


def test_a_leaf_keeps_its_own_rule() -> None:
    rules = rules_from_doc(
        "## The rooms\n\n| folder | job | may import |\n|---|---|---|\n"
        "| `ai/` | a seat | `engine`, and `contract/callbacks`; they import only `engine` |\n"
    )
    assert rules["tgbot.ai"].allowed == {"tgbot.engine", "tgbot.contract.callbacks"}
    leaf, ai = TGBOT / "contract" / "callbacks.py", TGBOT / "ai" / "player.py"
    forged = "from ..service import core\nfrom ..engine import codes\n"
    assert breaks(leaf, imports(leaf, forged), rules) == [
        ("tgbot.contract.callbacks", "tgbot.service.core", 1)
    ]
    forged = "from ..contract import callbacks\nfrom ..service.core import ServiceCore\n"
    assert breaks(ai, imports(ai, forged), rules) == [("tgbot.ai.player", "tgbot.service.core", 2)]


# The edges that people's updates and pages reach: they call the service's rooms by name
# and never its store (the sender, in telegram/, delivers from the store by design).
EDGES = [
    TGBOT / "telegram" / name for name in ("handlers.py", "commands.py", "answers.py")
] + sorted((TGBOT / "webapp").glob("*.py"))


def store_uses(source: str) -> list[int]:
    """The lines where code reaches an object's `store`."""
    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and node.attr == "store"
    )


def test_the_edges_reach_no_store() -> None:
    assert len(EDGES) >= 5 and all(path.exists() for path in EDGES)
    assert store_uses("x = service().store.app\ny = self.pages.hit(1)\n") == [1]
    found = {path.name: lines for path in EDGES if (lines := store_uses(path.read_text()))}
    assert found == {}
