"""An action's words, one row each: its name, its button, and its declaration as the actor,
its target and everyone else read it. Adding an action is one row here (and its case
forms in `forms.py`); the checklist is in ARCHITECTURE.md."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..contract.languages import N_
from ..engine import Action
from .i18n import Translator

Line = Callable[[Translator], str]


@dataclass(frozen=True, slots=True)
class ActionWords:
    """How one action reads. A declaration line left None is worded apart, with more
    than a name to say (`texts.variant_action_declared`: a Conversion's cost, the
    Inquisitor's Exchange)."""

    name: str  # the msgid (N_) of its name in sentences and lists
    button: Line  # its button on a turn's prompt
    mine: Line | None = None  # the actor reads it ({target})
    at_me: Line | None = None  # its target reads it ({actor})
    theirs: Line | None = None  # everyone else ({actor}, {target})


ACTION_WORDS: dict[Action, ActionWords] = {
    Action.INCOME: ActionWords(
        N_("Income"),
        lambda t: t.gettext("💰 Income"),
        mine=lambda t: t.gettext("💰 You take Income."),
        theirs=lambda t: t.gettext("💰 {actor} takes Income."),
    ),
    Action.FOREIGN_AID: ActionWords(
        N_("Foreign Aid"),
        lambda t: t.gettext("🤝 Foreign Aid"),
        mine=lambda t: t.gettext("🤝 You ask for Foreign Aid."),
        theirs=lambda t: t.gettext("🤝 {actor} asks for Foreign Aid."),
    ),
    Action.COUP: ActionWords(
        N_("Coup"),
        lambda t: t.gettext("💥 Coup"),
        mine=lambda t: t.gettext("💥 You stage a Coup against {target}."),
        at_me=lambda t: t.gettext("💥 {actor} stages a Coup against you!"),
        theirs=lambda t: t.gettext("💥 {actor} stages a Coup against {target}."),
    ),
    Action.TAX: ActionWords(
        N_("Tax"),
        lambda t: t.gettext("👑 Tax"),
        mine=lambda t: t.gettext("👑 You claim the Duke to take Tax."),
        theirs=lambda t: t.gettext("👑 {actor} claims the Duke to take Tax."),
    ),
    Action.ASSASSINATE: ActionWords(
        N_("Assassinate"),
        lambda t: t.gettext("🗡 Assassinate"),
        mine=lambda t: t.gettext(
            "🗡 You claim the Assassin and pay 3 coins to assassinate {target}."
        ),
        at_me=lambda t: t.gettext("🗡 {actor} claims the Assassin and wants to assassinate you!"),
        theirs=lambda t: t.gettext(
            "🗡 {actor} claims the Assassin and pays 3 coins to assassinate {target}."
        ),
    ),
    Action.STEAL: ActionWords(
        N_("Steal"),
        lambda t: t.gettext("🏴 Steal"),
        mine=lambda t: t.gettext("🏴 You claim the Captain to steal from {target}."),
        at_me=lambda t: t.gettext("🏴 {actor} claims the Captain and wants to steal from you!"),
        theirs=lambda t: t.gettext("🏴 {actor} claims the Captain to steal from {target}."),
    ),
    Action.EXCHANGE: ActionWords(
        N_("Exchange"),
        lambda t: t.gettext("🔄 Exchange"),
        mine=lambda t: t.gettext("🔄 You claim the Ambassador to exchange cards."),
        theirs=lambda t: t.gettext("🔄 {actor} claims the Ambassador to exchange cards."),
    ),
    Action.EXAMINE: ActionWords(
        N_("Examine"),
        lambda t: t.gettext("🔍 Examine"),
        mine=lambda t: t.gettext("🔍 You claim the Inquisitor to examine {target}."),
        at_me=lambda t: t.gettext("🔍 {actor} claims the Inquisitor and wants to examine you!"),
        theirs=lambda t: t.gettext("🔍 {actor} claims the Inquisitor to examine {target}."),
    ),
    Action.CONVERT: ActionWords(N_("Conversion"), lambda t: t.gettext("🔀 Convert")),
    Action.EMBEZZLE: ActionWords(
        N_("Embezzlement"),
        lambda t: t.gettext("🐷 Embezzle"),
        mine=lambda t: t.gettext("🐷 You say you have no Duke and want to embezzle the Reserve."),
        theirs=lambda t: t.gettext(
            "🐷 {actor} says they have no Duke and wants to embezzle the Reserve."
        ),
    ),
}


def declaration(t: Translator, action: Action, mine: bool, at_me: bool) -> str | None:
    """The line of an action's declaration for its reader (to format with {actor} and
    {target}); None when the action's row leaves it to be worded apart."""
    words = ACTION_WORDS[action]
    line = words.mine if mine else (words.at_me or words.theirs) if at_me else words.theirs
    return None if line is None else line(t)
