"""Every character and every action has its row in every table that needs one, and every
such table is named in ARCHITECTURE.md's checklist ("Adding a card, an action or a
command"), so that the checklist stays the whole list.

A table is a module-level dict of tgbot (or a dict of such dicts) whose keys are all
characters or all actions, with at least two of them; its name is `room/module.NAME` as
the checklist writes it. The same table re-exported elsewhere counts once.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

from tgbot.ai.player import KEEP_VALUE
from tgbot.engine import Action, Character
from tgbot.engine.cards import RULE_SETS
from tgbot.engine.codes import ACTION_CODES, CHARACTER_CODES
from tgbot.engine.effects import _RESOLVE
from tgbot.rendering.action_words import ACTION_WORDS
from tgbot.rendering.forms import ACTION_FORMS, CHARACTER_FORMS, Case
from tgbot.rendering.i18n import Catalogs
from tgbot.rendering.names import CHARACTER_NAMES

ROOT = Path(__file__).resolve().parents[1]
TGBOT = ROOT / "tgbot"
SECTION = "## Adding a card, an action or a command"


def _checklist() -> set[str]:
    text = (ROOT / "ARCHITECTURE.md").read_text()
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"`([a-z_]+/[a-z_]+)\.([A-Za-z_]+)`", section)
    return {
        f"{module}.{name}"
        for module, name in named
        if name != "py" and (TGBOT / f"{module}.py").exists()
    }


def _is_table(value: Any) -> bool:
    keys = list(value) if isinstance(value, dict) else []
    return len(keys) >= 2 and (
        all(isinstance(k, Action) for k in keys) or all(isinstance(k, Character) for k in keys)
    )


def _tables() -> dict[int, list[str]]:
    """Every table of tgbot by identity, with the names it goes by."""
    found: dict[int, list[str]] = {}
    for path in sorted(TGBOT.rglob("*.py")):
        relative = path.relative_to(TGBOT).with_suffix("")
        if relative.name in ("__main__", "__init__"):
            continue
        module = importlib.import_module("tgbot." + ".".join(relative.parts))
        for name, value in vars(module).items():
            if not isinstance(value, dict):
                continue
            nested = all(isinstance(v, dict) for v in value.values())
            if _is_table(value) or (nested and any(_is_table(v) for v in value.values())):
                found.setdefault(id(value), []).append(f"{relative.as_posix()}.{name}")
    return found


def test_every_table_keyed_by_character_or_action_is_on_the_checklist() -> None:
    named = _checklist()
    tables = _tables()
    assert len(tables) >= 8, tables  # the search finds the tables it is meant to
    missing = [names for names in tables.values() if not set(names) & named]
    assert not missing, f"tables not on ARCHITECTURE.md's checklist: {missing}"
    # And what the checklist names is there (a renamed table would leave it behind).
    stale = []
    for entry in sorted(named):
        module, _, name = entry.rpartition(".")
        if not hasattr(importlib.import_module("tgbot." + module.replace("/", ".")), name):
            stale.append(entry)
    assert not stale, f"the checklist names what is not there: {stale}"


def test_every_character_has_its_rows() -> None:
    css = (TGBOT / "webapp" / "static" / "app.css").read_text()
    for character in Character:
        assert any(character in rules.characters for rules in RULE_SETS.values()), character
        for table in (
            CHARACTER_CODES,
            CHARACTER_NAMES,
            CHARACTER_FORMS[Case.INSTRUMENTAL],
            CHARACTER_FORMS[Case.GENITIVE],
            KEEP_VALUE,
        ):
            assert character in table, character
        assert f".c-{character.value} " in css, character
    assert len(set(CHARACTER_CODES.values())) == len(CHARACTER_CODES)


def test_every_action_has_its_rows() -> None:
    for action in Action:
        specs = [rules.actions[action] for rules in RULE_SETS.values() if action in rules.actions]
        assert specs, action
        for table in (ACTION_CODES, ACTION_WORDS, ACTION_FORMS[Case.GENITIVE]):
            assert action in table, action
        assert action in _RESOLVE or action is Action.CONVERT, action
        if specs[0].blockers:  # a block can stop it: "the … fails" needs its subject
            assert action in ACTION_FORMS[Case.SUBJECT], action
    assert len(set(ACTION_CODES.values())) == len(ACTION_CODES)


def test_every_row_of_words_is_translated() -> None:
    catalogs = Catalogs(ROOT / "locales")
    ka, en = catalogs.get("ka"), catalogs.get("en")
    for action, words in ACTION_WORDS.items():
        lines = [words.button, words.mine, words.at_me, words.theirs]
        for line in (line for line in lines if line is not None):
            assert line(ka) != line(en), (action, line(en))
        assert ka.gettext(words.name) != words.name, action
