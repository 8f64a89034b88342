"""Case forms of the fixed words (characters, actions), one per grammatical slot.

Georgian declines the names of characters and actions ("with the Duke" is an instrumental,
"the Duke's block" a genitive), so a sentence cannot just insert the nominative name. Each
form here is its own catalogue entry, with a context that says where it goes; a sentence
that needs one names its placeholder after the case (``{character_ins}``,
``{character_gen}``, ``{action_gen}``), so the translator writes the whole sentence around
the right form. English fills each form as its own sentences need it (Duke, Duke's).
Names of people are never declined: they stay nominative.
"""

from __future__ import annotations

from enum import Enum

from ..contract.languages import NC_
from ..engine import Action, Character
from .i18n import Translator
from .names import action_name


class Case(Enum):
    """The grammatical slots a fixed word can fill in a sentence."""

    INSTRUMENTAL = "ins"  # "blocks with the Duke"
    GENITIVE = "gen"  # "the Duke's block"
    SUBJECT = "subj"  # "the assassination fails" (English needs a noun, not the button's verb)


CHARACTER_FORMS: dict[Case, dict[Character, tuple[str, str]]] = {
    Case.INSTRUMENTAL: {
        Character.DUKE: NC_("character, instrumental: blocks with the …", "Duke"),
        Character.ASSASSIN: NC_("character, instrumental: blocks with the …", "Assassin"),
        Character.CAPTAIN: NC_("character, instrumental: blocks with the …", "Captain"),
        Character.AMBASSADOR: NC_("character, instrumental: blocks with the …", "Ambassador"),
        Character.CONTESSA: NC_("character, instrumental: blocks with the …", "Contessa"),
        Character.INQUISITOR: NC_("character, instrumental: blocks with the …", "Inquisitor"),
    },
    Case.GENITIVE: {
        Character.DUKE: NC_("character, genitive: the …'s block", "Duke"),
        Character.ASSASSIN: NC_("character, genitive: the …'s block", "Assassin"),
        Character.CAPTAIN: NC_("character, genitive: the …'s block", "Captain"),
        Character.AMBASSADOR: NC_("character, genitive: the …'s block", "Ambassador"),
        Character.CONTESSA: NC_("character, genitive: the …'s block", "Contessa"),
        Character.INQUISITOR: NC_("character, genitive: the …'s block", "Inquisitor"),
    },
}

ACTION_FORMS: dict[Case, dict[Action, tuple[str, str]]] = {
    Case.GENITIVE: {
        Action.INCOME: NC_("action, genitive: the target of the …", "Income"),
        Action.FOREIGN_AID: NC_("action, genitive: the target of the …", "Foreign Aid"),
        Action.COUP: NC_("action, genitive: the target of the …", "Coup"),
        Action.TAX: NC_("action, genitive: the target of the …", "Tax"),
        Action.ASSASSINATE: NC_("action, genitive: the target of the …", "Assassinate"),
        Action.STEAL: NC_("action, genitive: the target of the …", "Steal"),
        Action.EXCHANGE: NC_("action, genitive: the target of the …", "Exchange"),
        Action.EXAMINE: NC_("action, genitive: the target of the …", "Examine"),
        Action.CONVERT: NC_("action, genitive: the target of the …", "Conversion"),
        Action.EMBEZZLE: NC_("action, genitive: the target of the …", "Embezzlement"),
    },
    # Only the actions a block can stop.
    Case.SUBJECT: {
        Action.FOREIGN_AID: NC_("action, as the subject: the … fails", "Foreign Aid"),
        Action.ASSASSINATE: NC_("action, as the subject: the … fails", "Assassinate"),
        Action.STEAL: NC_("action, as the subject: the … fails", "Steal"),
    },
}


def character_in(t: Translator, character: Character, case: Case) -> str:
    """A character's name in a case, as the reader's language declines it."""
    context, message = CHARACTER_FORMS[case][character]
    return t.pgettext(context, message)


def action_in(t: Translator, action: Action, case: Case) -> str:
    """An action's name in a case, as the reader's language declines it."""
    forms = ACTION_FORMS[case]
    if action not in forms:  # a case kept for a few actions: the plain name for the others
        return action_name(t, action)
    context, message = forms[action]
    return t.pgettext(context, message)


def ordinal(t: Translator, n: int) -> str:
    """A number as an ordinal ("the 21st turn"), in the written form the language takes.

    Georgian writes three: 1 has its own; a number said in one word (2 to 20, the scores
    40, 60 and 80, the hundreds) takes a prefix; any other a suffix (30 too, since it is
    said "twenty and ten"). The forms are the Georgian catalogue's "ordinal of" entries.
    English keeps the plain number.
    """
    if n == 1:
        form = t.pgettext("ordinal of 1", "{n}")
    elif n <= 20 or n in (40, 60, 80) or n % 100 == 0:
        form = t.pgettext("ordinal of 2-20, 40, 60, 80 and the hundreds", "{n}")
    else:
        form = t.pgettext("ordinal of any other number (21, 30, 35, 101...)", "{n}")
    return form.format(n=n)
