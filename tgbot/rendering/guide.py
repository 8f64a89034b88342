"""What the bot says about itself: /help, the menus, /start and the rules (/rules)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..engine import (
    Variant,
)
from .i18n import Translator
from .texts import variant_name


@dataclass(frozen=True, slots=True)
class CommandLine:
    """A command as /help and the menus list it: its name and what it does (msgids)."""

    name: str
    menu: str  # the menu's short description
    help: str | None = None  # its /help line; None: listed in the menu only


def help_text(t: Translator, group: Sequence[CommandLine], private: Sequence[CommandLine]) -> str:
    """What the bot does and its commands, each once per kind of chat (from the table)."""

    def section(title: str, lines: Sequence[CommandLine]) -> str:
        listed = [f"/{c.name}: {t.gettext(c.help)}" for c in lines if c.help is not None]
        return "\n".join([title, *listed])

    return "\n\n".join(
        [
            t.gettext("🎲 Coup: a card game of bluffing for 2–6 players."),
            section(t.gettext("In a group:"), group),
            section(t.gettext("In private:"), private),
            # The variants' line under the last paragraph: /help stays four paragraphs.
            # Sent in groups as well as in private: no "here".
            t.gettext(
                "Your cards and your buttons come to your private chat with me; the group sees "
                "the table. Too few players? The game's creator can add AI players (🤖) in the "
                "lobby."
            )
            + "\n"
            + t.gettext(
                "🃏 Variants (Inquisitor, Reformation): a group's admins choose one in "
                "/settings, and /rules explains it."
            )
            + "\n"
            + shuffle_help(t),
        ]
    )


def shuffle_help(t: Translator) -> str:
    """/help's line on the shuffle anyone can check (service/fairness.py); /rules points
    here, having no room for it in one message."""
    return t.gettext(
        "🔐 A shuffle anyone can check: when a game starts the group sees a code, the SHA-256 "
        'of the text "<game>:<seed>"; the seed comes in the final message, and /replay '
        "shows how to check both."
    )


def menu_entries(t: Translator, lines: Sequence[CommandLine]) -> list[tuple[str, str]]:
    """A command menu: each command's name and its short description."""
    return [(c.name, t.gettext(c.menu)) for c in lines]


def rules_text(t: Translator, variant: Variant = Variant.BASE) -> str:
    """The rules, complete against the user's rules text (docs/seed-rules.ka.txt), told from
    the variant's deck: with the Inquisitor, the Ambassador appears nowhere but in the
    note that he is left out."""
    inquisitor = variant.inquisitor
    deck = (
        t.gettext(
            "The deck has 15 cards, 5 characters with 3 cards each: Duke, Assassin, Captain, "
            "Inquisitor and Contessa (the Ambassador is not used in this variant)."
        )
        if inquisitor
        else t.gettext(
            "The deck has 15 cards, 5 characters with 3 cards each: Duke, Assassin, Captain, "
            "Ambassador and Contessa."
        )
    )
    actions = [
        t.gettext(
            "On your turn, choose one action:\n"
            "💰 Income: take 1 coin from the treasury. No one can block or challenge it.\n"
            "🤝 Foreign Aid: take 2 coins from the treasury. Any other player can block it "
            "with the Duke.\n"
            "💥 Coup: pay 7 coins into the treasury; the player you choose turns a card face "
            "up. No one can block or challenge it. With 10 or more coins you must stage a "
            "Coup.\n"
            "👑 Tax (Duke): take 3 coins from the treasury. It cannot be blocked.\n"
            "🗡 Assassinate (Assassin): pay 3 coins; the player you choose turns a card face "
            "up. Only the target can block it, with the Contessa; a blocked assassination "
            "does not give the 3 coins back."
        )
    ]
    if inquisitor:
        actions += [
            t.gettext(
                "🏴 Steal (Captain): take 2 coins from a player (1 if they have only 1). Only "
                "the target can block it, with a Captain or an Inquisitor."
            ),
            t.gettext(
                "🔄 Exchange (Inquisitor): draw 1 card from the deck; from it and your own "
                "cards keep as many as you had, and put the other one back. It cannot be "
                "blocked."
            ),
            t.gettext(
                "🔍 Examine (Inquisitor): the player you choose shows you one of their cards "
                "(they choose which; only you see it). Then you let them keep it, or make them "
                "put it into the deck and draw a new one. It cannot be blocked."
            ),
        ]
    else:
        actions += [
            t.gettext(
                "🏴 Steal (Captain): take 2 coins from a player (1 if they have only 1). Only "
                "the target can block it, with a Captain or an Ambassador."
            ),
            t.gettext(
                "🔄 Exchange (Ambassador): draw 2 cards from the deck, choose among them and "
                "your own cards which to keep (as many as you had) and put the rest back. It "
                "cannot be blocked."
            ),
        ]
    return "\n\n".join(
        [
            t.gettext("📜 Coup: the rules"),
            deck
            + " "
            + t.gettext(
                "Everyone is dealt 2 cards, to keep secret, and 2 coins (in a 2-player game "
                "the first player gets 1). The other cards stay in the deck, the other coins "
                "in the treasury. Keep your cards to the end: the last player with a card "
                "left wins."
            ),
            "\n".join(actions),
            t.gettext(
                "Anyone may claim any character: bluffing is allowed. Every claim, an action "
                "or a counteraction (a block), can be challenged by any player; only the first "
                "challenge or block counts. If it was a bluff, the bluffer turns a card face up "
                "and the action or block fails (an Assassin caught bluffing gets the 3 coins "
                "back). If the claim was true, the player shows the card, puts it back into the "
                "deck and draws a new one, the challenger turns a card face up, and the action "
                "or block goes ahead. A blocked action fails unless someone challenges the block "
                "successfully. Beware: the target of an assassination can lose both cards in one "
                "turn, by wrongly challenging the Assassin or by a Contessa bluff that is caught."
            ),
            t.gettext(
                "Whoever loses a card chooses which one to turn face up; face-up cards stay "
                "in view of everyone. A player with both cards face up is out of the game, "
                "and their coins go back to the treasury."
            ),
            timeouts(t, variant),
        ]
    )


def timeouts(t: Translator, variant: Variant) -> str:
    """The rules' paragraph on time limits; Reformation tells the forced Coup's target in
    its own paragraph (the next player the Coup may target: of the other side while the
    table is divided)."""
    if variant.inquisitor and variant.reformation:
        return t.gettext(
            "⏳ Every decision has a time limit (/settings). If your time runs out on your "
            "turn, you take Income; a claim or block left unanswered counts as a pass; the card "
            "to turn face up, or to show when examined, is picked at random; an exchange keeps "
            "your cards, and an examined card stays with its owner. Let your turn run out too "
            "many times in a row (the skipped-turns limit, /settings) and you are removed from "
            "the game."
        )
    if variant.reformation:
        return t.gettext(
            "⏳ Every decision has a time limit (/settings). If your time runs out on your "
            "turn, you take Income; a claim or block left unanswered counts as a pass; the card "
            "to turn face up is picked at random, and an exchange keeps your cards. Let your "
            "turn run out too many times in a row (the skipped-turns limit, /settings) and you "
            "are removed from the game."
        )
    if variant.inquisitor:
        return t.gettext(
            "⏳ Every decision has a time limit (/settings). If your time runs out on your "
            "turn, you take Income (with 10 or more coins, you stage a Coup against the next "
            "player); a claim or block left unanswered counts as a pass; the card to turn "
            "face up, or to show when examined, is picked at random; an exchange keeps "
            "your cards, and an examined card stays with its owner. Let your turn run out "
            "too many times in a row (the skipped-turns limit, /settings) and you are "
            "removed from the game."
        )
    return t.gettext(
        "⏳ Every decision has a time limit (/settings). If your time runs out on your "
        "turn, you take Income (with 10 or more coins, you stage a Coup against the next "
        "player); a claim or block left unanswered counts as a pass; the card to turn "
        "face up is picked at random, and an exchange keeps your cards. Let your turn "
        "run out too many times in a row (the skipped-turns limit, /settings) and you "
        "are removed from the game."
    )


def variant_rules_text(t: Translator, variant: Variant) -> str:
    """What Reformation changes in the rules (empty otherwise: the Inquisitor's deck and
    actions are in the rules themselves)."""
    parts = []
    if variant.reformation:
        sides = (
            t.gettext(  # Examine exists only with the Inquisitor
                "⚖️ Reformation: every player is on a side, Loyalists 🔵 or Reformists 🔴, "
                "alternating around the table. While both sides are in the game, you cannot "
                "stage a Coup against, assassinate, steal from or examine a player of your "
                "side, nor block their Foreign Aid."
            )
            if variant.inquisitor
            else t.gettext(
                "⚖️ Reformation: every player is on a side, Loyalists 🔵 or Reformists 🔴, "
                "alternating around the table. While both sides are in the game, you cannot "
                "stage a Coup against, assassinate or steal from a player of your side, nor "
                "block their Foreign Aid."
            )
        )
        sides += " " + t.gettext(
            "But you may challenge any player, your own side too. Once everyone left is on one "
            "side, these limits are gone."
        )
        parts.append(
            sides
            + "\n"
            + t.gettext(
                "🔀 Conversion: pay 1 coin to change your own side, or 2 coins to change "
                "another player's. The coins go into the Reserve 🐷 (empty at the start), not the "
                "treasury. No one "
                "can block or challenge it.\n"
                "🐷 Embezzlement: say you have no face-down Duke and take every coin in the "
                "Reserve. "
                "It cannot be blocked, but anyone can challenge it: if you do have a Duke, you "
                "turn a card face up and take nothing from the Reserve; if not, you show all "
                "your face-down cards, put them into the deck and draw as many new ones, the "
                "challenger turns a "
                "card face up, and you still take the Reserve. An empty Reserve cannot be "
                "embezzled.\n"
                "With 10 or more coins you may not convert or embezzle: you must stage a Coup "
                "(if your time runs out, against the next player you may target)."
            )
        )
    return "\n\n".join(parts)


def rules_messages(t: Translator, variant: Variant) -> list[str]:
    """The rules of a game of this variant as the messages /rules sends: the rules (told
    from the variant's deck), then what Reformation changes as a message of its own, so
    that each stays a few phone screens, well under Telegram's limit."""
    pointer = "\n" + t.gettext("🔐 How to check the shuffle: /help")
    if variant is Variant.BASE:
        return [rules_text(t) + pointer]
    tail = variant_rules_text(t, variant)
    # Named first: the Inquisitor's changes are in the list, Reformation's in the next message.
    if variant.inquisitor and tail:
        head = t.gettext(
            "🃏 This game's variant: {variant} (the Inquisitor's changes are in the list, "
            "Reformation's in the next message)."
        )
    elif tail:
        head = t.gettext("🃏 This game's variant: {variant} (its changes are in the next message).")
    else:
        head = t.gettext(
            "🃏 This game's variant: {variant} (what it changes: the deck, Steal, Exchange "
            "and Examine)."
        )
    first = head.format(variant=variant_name(t, variant)) + "\n\n" + rules_text(t, variant)
    return [first, tail + pointer] if tail else [first + pointer]


def rules_for(t: Translator, variant: Variant) -> str:
    """The rules of a game of this variant as one text (its messages one after another)."""
    return "\n\n".join(rules_messages(t, variant))


def variants_list_text(t: Translator) -> str:
    """The short list of variants a group can choose (private /rules, outside a game)."""
    return t.gettext(
        "🃏 Variants (a group's admins choose one in /settings; /rules in the group explains "
        "it):\n"
        "🔍 Inquisitor: the Inquisitor replaces the Ambassador; he exchanges 1 card, examines "
        "another player's card and blocks Steal.\n"
        "⚖️ Reformation: Loyalists and Reformists, who cannot attack their own side; "
        "Conversion and Embezzlement of the Reserve.\n"
        "Reformation + Inquisitor: both at once."
    )


def start_text(t: Translator) -> str:
    """The reply to /start in private."""
    return t.gettext(
        "👋 Hello! Now I can send you your cards. Add me to a group and say /newgame to play."
    )
