"""Ratings, stats, the claim tracker, the bluff summary and replays, as text."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from babel.numbers import format_decimal

from ..contract import callbacks
from ..engine import Character
from ..engine import events as ev
from .forms import ordinal
from .i18n import Translator
from .texts import Names, character_name, describe, told

MAX_TEXT = 4096  # Telegram's limit for one message
TABLE_LINE_MAX = 160  # the claim tracker's line on the table is cut at this length
CLAIMS_PER_PLAYER = 2  # the table names each player's most claimed characters only
CONSERVATIVE_SIGMAS = 3  # openskill's ordinal: mu - 3 sigma


def conservative(mu: float, sigma: float) -> float:
    """The rating a board ranks by: a few standard deviations below the estimate."""
    return mu - CONSERVATIVE_SIGMAS * sigma


def _number(t: Translator, x: float) -> str:
    # The reader's decimal mark: Georgian writes "12,4", English "12.4".
    return format_decimal(x, "0.0", locale=t.language)


def replay_button(t: Translator, game_id: str) -> list[list[dict[str, str]]]:
    """The keyboard under the bluff summary: one button that sends the replay privately."""
    return [[{"text": t.gettext("📜 Replay"), "data": callbacks.replay(game_id)}]]


# ---- /stats and /top -----------------------------------------------------------------


def stats_text(t: Translator, counts: Mapping[str, int], rating: tuple[float, float] | None) -> str:
    """A person's rating, games, wins, and claims with how many were bluffs."""
    played = counts.get("played", 0)
    if not played:
        return t.gettext("📊 No finished games yet. Play one with /newgame in a group!")
    won = counts.get("won", 0)
    lines = []
    if rating is not None:
        mu, sigma = rating
        lines.append(
            t.gettext("⭐ Rating {rating} (estimate {mu} ± {sigma})").format(
                rating=_number(t, conservative(mu, sigma)),
                mu=_number(t, mu),
                sigma=_number(t, sigma),
            )
        )
    lines += [
        t.ngettext("📊 {n} game played", "📊 {n} games played", played).format(n=played),
        t.ngettext("🏆 {n} win ({percent}%)", "🏆 {n} wins ({percent}%)", won).format(
            n=won, percent=round(100 * won / played)
        ),
    ]
    claimed = sorted(
        ((Character(k.split(":", 1)[1]), n) for k, n in counts.items() if k.startswith("claim:")),
        key=lambda x: -x[1],
    )
    if claimed:
        lines.append(t.gettext("🎭 What you claimed (and how often it was a bluff):"))
        for character, n in claimed:
            bluffs = counts.get(f"bluff:{character.value}", 0)
            if n == 1:  # "1 claim, 0 of them bluffs" reads wrong: say whether it was one
                once = (
                    t.gettext("{character}: claimed once, a bluff")
                    if bluffs
                    else t.gettext("{character}: claimed once, not a bluff")
                )
                lines.append(once.format(character=character_name(t, character)))
                continue
            if not bluffs:  # "0 bluffs (0%)" reads like a figure missing: say it in words
                never = (
                    t.gettext("{character}: claimed twice, never a bluff")
                    if n == 2  # English says "twice", not "2 times"
                    else t.ngettext(
                        "{character}: claimed {n} time, never a bluff",
                        "{character}: claimed {n} times, never a bluff",
                        n,
                    )
                )
                lines.append(never.format(character=character_name(t, character), n=n))
                continue
            lines.append(
                t.ngettext(
                    "{character}: claimed {n} time, bluffed {bluffs} ({percent}%)",
                    "{character}: claimed {n} times, bluffed {bluffs} ({percent}%)",
                    n,
                ).format(
                    character=character_name(t, character),
                    n=n,
                    bluffs=bluffs,
                    percent=round(100 * bluffs / n),
                )
            )
    return "\n".join(lines)


def top_text(
    t: Translator,
    people: Sequence[tuple[str, float, float, int]],
    ai: Sequence[tuple[str, float, float, int]],
    every_group: bool = False,
) -> str:
    """A board: people by conservative rating with games played; AI players apart."""
    if not people and not ai:
        if every_group:
            return t.gettext("🏆 No rated games in any group yet (a game counts with 2+ people).")
        return t.gettext("🏆 No rated games in this group yet (a game counts with 2+ people).")
    if every_group:
        lines = [t.gettext("🏆 Best players of all groups (rating, games):")]
    else:
        lines = [t.gettext("🏆 Best players of this group (rating, games):")]

    def rows(entries: Sequence[tuple[str, float, float, int]]) -> None:
        for i, (name, mu, sigma, games) in enumerate(entries, 1):
            lines.append(
                t.ngettext(
                    "{place}. {name}: {rating} ({games} game)",
                    "{place}. {name}: {rating} ({games} games)",
                    games,
                ).format(
                    place=i, name=name, rating=_number(t, conservative(mu, sigma)), games=games
                )
            )

    rows(people)
    if ai:
        lines += ["", t.gettext("🤖 AI players:")]
        rows(ai)
    lines += [
        "",
        t.gettext(
            "The rating is the estimate minus three times its uncertainty, so one lucky game "
            "does not put you on top."
        ),
    ]
    return "\n".join(lines)


# ---- the public claim tracker -----------------------------------------------------------


def _claim_entries(
    t: Translator,
    claims: Mapping[str, Mapping[str, int]],
    names: Names,
    living: Collection[int] | None = None,
    most: int | None = None,
) -> list[str]:
    """Each player's claims, most claimed first: only `living` players (if given), each
    with at most `most` characters (if given)."""
    entries = []
    for player_id, name in names.items():
        mine = claims.get(str(player_id), {})
        if not mine or (living is not None and player_id not in living):
            continue
        ranked = sorted(mine.items(), key=lambda x: -x[1])[:most]
        # TRANSLATORS: the claim tracker: a character claimed {n} times ("Duke ×2").
        times = t.gettext("{character} ×{n}")
        listing = ", ".join(
            times.format(character=character_name(t, Character(c)), n=n)
            if n > 1
            else character_name(t, Character(c))
            for c, n in ranked
        )
        entries.append(f"{name}: {listing}")
    return entries


def claim_lines(t: Translator, claims: Mapping[str, Mapping[str, int]], names: Names) -> list[str]:
    """Who has claimed which character in this game, one line per player, or the one line
    that nobody has yet (the Mini App's list, under its own title)."""
    entries = _claim_entries(t, claims, names)
    return entries or [t.gettext("🗣 Nobody has claimed a character in this game yet.")]


def claims_text(t: Translator, claims: Mapping[str, Mapping[str, int]], names: Names) -> str:
    """/claims: who has claimed which character in this game (public information only)."""
    entries = _claim_entries(t, claims, names)
    if not entries:
        return t.gettext("🗣 Nobody has claimed a character in this game yet.")
    return "\n".join([t.gettext("🗣 Claimed in this game:"), *entries])


def claims_line(
    t: Translator,
    claims: Mapping[str, Mapping[str, int]],
    names: Names,
    living: Collection[int] | None = None,
) -> str:
    """The claim tracker as one line for the table ("" when it is empty): the players
    still in (`living`, if given), each with their two most claimed characters, cut at
    TABLE_LINE_MAX characters (/claims has it all)."""
    entries = _claim_entries(t, claims, names, living, CLAIMS_PER_PLAYER)
    if not entries:
        return ""
    line = t.gettext("🗣 Claimed so far — {list}").format(list="; ".join(entries))
    return line if len(line) <= TABLE_LINE_MAX else line[: TABLE_LINE_MAX - 1] + "…"


# ---- the end of a game -----------------------------------------------------------------


def bluff_summary(
    t: Translator, claims: Iterable[tuple[int, Character, int, bool]], names: Names
) -> str:
    """Who claimed what and on which turn, and whether it was true (✅) or a bluff (❌)."""
    by_player: dict[int, list[str]] = {}
    for player, character, turn, true in claims:
        mark = "✅" if true else "❌"
        by_player.setdefault(player, []).append(
            # TRANSLATORS: {turn} is the turn's number as an ordinal, written as the
            # "ordinal of" entries say.
            t.gettext("{mark} {character} (turn {turn})").format(
                mark=mark, character=character_name(t, character), turn=ordinal(t, turn)
            )
        )
    if not by_player:
        return t.gettext("🎭 Nobody claimed a character in this game.")
    lines = [t.gettext("🎭 Claims revealed (✅ true, ❌ bluff):")]
    for player, name in names.items():
        if player in by_player:
            lines.append(f"{name}: " + ", ".join(by_player[player]))
    text = "\n".join(lines)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


# ---- replays -----------------------------------------------------------------------------


def split_messages(lines: Sequence[str], limit: int = MAX_TEXT) -> list[str]:
    """Join lines into as few messages of at most `limit` characters as they fit in."""
    messages: list[str] = []
    current = ""
    for line in lines:
        while len(line) > limit:  # one very long line: cut it (never happens with our texts)
            if current:
                messages.append(current)
                current = ""
            messages.append(line[:limit])
            line = line[limit:]
        if current and len(current) + 1 + len(line) > limit:
            messages.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current:
        messages.append(current)
    return messages


def public_log(
    t: Translator, steps: Sequence[Sequence[ev.Event]], names: Names, header: str
) -> list[str]:
    """The group's view of a whole game, one line per public event."""
    lines = [header]
    for events in steps:
        lines += [
            line
            for e in told(events)
            if e.recipient is None
            and not isinstance(e, ev.ResponsePassed)
            and (line := describe(e, t, names))
        ]
    return lines


def private_log(
    t: Translator, steps: Sequence[Sequence[ev.Event]], names: Names, viewer: int
) -> list[str]:
    """What only `viewer` saw: their cards, draws and exchanges."""
    lines = [t.gettext("🔒 Your private view:")]
    for events in steps:
        lines += [
            line
            for e in events
            if e.recipient == viewer and (line := describe(e, t, names, viewer))
        ]
    return lines


def replay_header(t: Translator, game_id: str, started: str) -> str:
    """The first line of a replay."""
    return t.gettext("📜 Replay of game {game} ({date}), public log:").format(
        game=game_id, date=started
    )


def does_not_replay_text(t: Translator) -> str:
    """What a person reads when a record does not rebuild the game it recorded."""
    return t.gettext(
        "⚠️ The record of this game no longer replays to the same result, so I will not "
        "show it. The problem has been logged."
    )


# ---- the shuffle anyone can check (service/fairness.py) -------------------------------


def shuffle_sealed(t: Translator, commitment: str) -> str:
    """The start's line: the commitment to the seed (its SHA-256), before any card moves."""
    return t.gettext("🔐 Shuffle sealed: {code}").format(code=commitment)


def shuffle_revealed(t: Translator, game_id: str, seed: int) -> str:
    """The end's line: the seed the 🔐 line sealed, and where to read how to check it."""
    return t.gettext("🔑 Shuffle seed: {seed} (game {game}; /replay shows how to check it)").format(
        seed=seed, game=game_id
    )


def shuffle_check(t: Translator, game_id: str, seed: int, commitment: str) -> str:
    """/replay's paragraph on the shuffle: the seed, the commitment and how to check both."""
    return t.gettext(
        "🔐 Checking the shuffle: the code shown at the start, {code}, must be the SHA-256 of "
        "the text {text} (for instance: echo -n '{text}' | sha256sum). The seed {seed} "
        "deals the seats, who starts and every card; this replay is rebuilt from it, so the "
        "cards it deals must be the cards that were dealt."
    ).format(code=commitment, text=f"{game_id}:{seed}", seed=seed)
