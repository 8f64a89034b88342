"""Issue 18 in Telegram: the variant setting, the new buttons, the table, /rules per variant."""

from __future__ import annotations

import random

from tests.bot.play import GROUP, answers, open_and_start, open_lobby, play_to_end, players
from tests.telegram_sim.harness import Harness, TgUser, running_bot
from tgbot.engine import Action, Allegiance, Character, DecisionKind, Variant, view_of
from tgbot.engine import events as ev
from tgbot.rendering import guide, prompting, tabletop, ui
from tgbot.rendering.texts import character_name, describe, variant_name


async def choose_variant(
    h: Harness, admin: TgUser, variant: Variant, group: int = GROUP, lang: str = "ka"
) -> None:
    """An admin opens /settings and presses the variant button until it shows `variant`."""
    h.sim.admins.add((group, admin.id))
    await h.say(admin, group, "/settings")
    t = h.catalogs.get(lang)
    wanted = t.gettext("🃏 Variant: {value}").format(value=variant_name(t, variant))
    for _ in range(len(Variant)):
        if h.has_button(group, wanted):
            return
        await h.press_text(admin, group, "🃏 ")
    assert h.has_button(group, wanted), wanted


def texts_sent(h: Harness, chat_id: int, since: int = 0) -> list[str]:
    """Every text the bot sent or edited into a chat (from call number `since` on)."""
    return [
        str(c.params.get("text", ""))
        for c in h.sim.calls[since:]
        if c.method in ("sendMessage", "editMessageText") and int(c.params["chat_id"]) == chat_id
    ]


def mover(h: Harness, users: list[TgUser]) -> TgUser:
    """The player whose private chat shows a live prompt (it is their turn)."""
    return next(u for u in users if h.sim.with_buttons(u.id))


def answer_messages(h: Harness, group: int = GROUP) -> list:
    """The group's messages with live answer buttons (not /settings, not the lobby)."""
    return [
        m
        for m in h.sim.with_buttons(group)
        if m.buttons()[0]["callback_data"].rsplit(".", 1)[-1][:1] in "CPB"
    ]


async def pass_at_the_table(h: Harness, game_id: str, users: list[TgUser]) -> None:
    """Everyone awaited presses Pass on the group's turn message."""
    record = await h.record(game_id)
    assert record is not None
    (message,) = answer_messages(h)
    labels = {b["text"] for b in answers(message)}
    assert labels == {h.tr("⚔️ Challenge"), h.tr("✅ Pass")}  # no Block on these claims
    for pid in record.game().awaiting().players:
        user = next(u for u in users if u.id == pid)
        await h.press(
            user, GROUP, message.message_id, message.button(h.tr("✅ Pass"))["callback_data"]
        )
    await h.delivered(game_id)


async def test_admins_choose_the_variant_and_the_lobby_shows_it(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        a, b = players(2)
        # A member who is not an admin can neither open nor press the settings.
        await h.say(b, GROUP, "/settings")
        assert h.sim.last(GROUP).text == h.tr("Only group admins can change the settings.")
        await choose_variant(h, a, Variant.INQUISITOR)
        answer = await h.press_text(b, GROUP, "🃏 ")
        assert answer["text"] == h.tr("Only group admins can change the settings.")
        t = h.catalogs.get("ka")
        assert h.has_button(GROUP, t.gettext("🃏 Variant: {value}").format(value="ინკვიზიტორი"))
        game_id = await open_lobby(h, [a, b])
        lobby = h.sim.with_buttons(GROUP)[-1]
        assert tabletop.variant_line(t, Variant.INQUISITOR) in lobby.text
        assert "ინკვიზიტორი" in lobby.text
        # Changed while the lobby is open: the lobby keeps the variant it opened with.
        await h.press_text(a, GROUP, "🃏 ")
        await h.press_text(a, GROUP, h.tr("▶️ Start"))
        await h.delivered(game_id)
        record = await h.record(game_id)
        assert record is not None and record.variant == "inquisitor"
        assert record.game().variant is Variant.INQUISITOR
        assert t.gettext("🃏 The table · {variant}").format(variant="ინკვიზიტორი") in (
            h.sim.text_of(GROUP)
        )
        # The next lobby takes the new setting.
        await h.say(a, GROUP, "/cancel")
        await h.delivered(game_id)
        next_id = await open_lobby(h, [a, b])
        again = await h.record(next_id)
        assert again is not None and again.variant == "reformation"
        assert tabletop.variant_line(t, Variant.REFORMATION) in h.sim.with_buttons(GROUP)[-1].text


async def test_a_whole_game_of_each_variant_by_buttons(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        for n, variant in enumerate(
            [Variant.INQUISITOR, Variant.REFORMATION, Variant.REFORMATION_INQUISITOR]
        ):
            group = GROUP - 10 * (n + 1)
            users = players(3, first_id=5000 + 10 * n)
            await choose_variant(h, users[0], variant, group)
            game_id = await open_lobby(h, users, group)
            await h.press_text(users[0], group, h.tr("🤖 Add AI"))
            await h.press_text(users[0], group, h.tr("▶️ Start"))
            await h.delivered(game_id)
            await play_to_end(h, users, random.Random(n), group, only_humans=False)
            assert "🏆" in h.sim.text_of(group)
            await h.until(lambda users=users: not any(h.sim.with_buttons(u.id) for u in users))
            group_text = "\n".join(texts_sent(h, group))
            t = h.catalogs.get("ka")
            assert variant_name(t, variant) in group_text
            if variant.reformation:
                assert t.gettext("🔵 Loyalists · 🔴 Reformists") in group_text
                assert "🐷" in group_text
            # The whole game was played with this variant's deck (every card is shown at the end).
            ambassador = character_name(t, Character.AMBASSADOR)
            inquisitor = character_name(t, Character.INQUISITOR)
            final = h.sim.text_of(group).split(t.gettext("🃏 Everyone's cards:"))[-1]
            assert (ambassador if variant.inquisitor else inquisitor) not in final
            assert await h.record_of_chat(group) is None  # the group is free again


async def test_examine_shows_the_card_only_to_the_examiner(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        await choose_variant(h, users[0], Variant.INQUISITOR)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        actor = mover(h, users)
        await h.press_text(actor, actor.id, h.tr("🔍 Examine"))
        record = await h.record(game_id)
        assert record is not None
        seats = [p.id for p in record.game().players]
        target = next(u for u in users if u.id == seats[(seats.index(actor.id) + 1) % 3])
        third = next(u for u in users if u not in (actor, target))
        picker = h.sim.with_buttons(actor.id)[-1]
        assert "დაკითხვის" in picker.text  # the action in the genitive: "whom to examine"
        # Each target shows their coins and face-down cards after the name.
        assert {b["text"].split(" · ")[0] for b in answers(picker)} == {
            *(u.first_name for u in users if u != actor),
            h.tr("« Back"),
        }
        await h.press(
            actor, actor.id, picker.message_id, picker.button(target.first_name)["callback_data"]
        )
        await h.delivered(game_id)
        start = len(h.sim.calls)
        await pass_at_the_table(h, game_id, users)
        record = await h.record(game_id)
        assert record is not None
        game = record.game()
        if game.awaiting().kind is DecisionKind.SHOW_CARD:  # two different cards: they choose
            prompt = h.sim.with_buttons(target.id)[-1]
            assert actor.first_name in prompt.text
            labels = [b["text"] for b in answers(prompt)]
            hand = view_of(game, target.id).my_cards
            order = list(Character)
            wanted = sorted(set(hand), key=order.index)
            assert labels == ["👁 " + character_name(h.catalogs.get("ka"), c) for c in wanted]
            await h.press(
                target, target.id, prompt.message_id, answers(prompt)[-1]["callback_data"]
            )
            await h.delivered(game_id)
            record = await h.record(game_id)
            assert record is not None
            game = record.game()
        assert game.awaiting() == (DecisionKind.EXAMINE, (actor.id,), None)
        shown = view_of(game, actor.id).examined
        assert shown is not None
        assert view_of(game).examined is None and view_of(game, third.id).examined is None
        t = h.catalogs.get("ka")
        names = record.names()
        seen_line = describe(ev.ExaminedCard(actor.id, target.id, shown), t, names, actor.id)
        told_line = describe(ev.CardShownTo(target.id, actor.id, shown), t, names, target.id)
        assert seen_line and told_line
        prompt = h.sim.with_buttons(actor.id)[-1]
        assert seen_line in prompt.text
        assert {b["text"] for b in answers(prompt)} == {
            h.tr("👍 Let them keep it"),
            h.tr("🔁 Make them swap it"),
        }
        assert told_line in "\n".join(texts_sent(h, target.id, start))
        await h.press_text(actor, actor.id, h.tr("🔁 Make them swap it"))
        await h.delivered(game_id)
        # The group reads that a card was shown and swapped, never which.
        group_texts = texts_sent(h, GROUP, start)
        story = h.sim.text_of(GROUP)
        forced = describe(ev.ExamineDecided(actor.id, target.id, True), t, names)
        shown_public = describe(ev.CardShown(actor.id, target.id), t, names)
        assert forced and forced in story and shown_public and shown_public in story
        name = character_name(t, shown)
        # The table's head names the variant ("Inquisitor"), and the claim tracker's line (🗣)
        # the claimed Inquisitor: public words, not the card.
        head = t.gettext("🃏 The table · {variant}").format(
            variant=variant_name(t, Variant.INQUISITOR)
        )
        for text in group_texts:
            lines = [ln for ln in text.splitlines() if not ln.startswith("🗣") and ln != head]
            assert name not in "\n".join(lines), text
            assert seen_line not in text and told_line not in text
        # The third player never reads it either (apart from their own cards, if alike).
        record = await h.record(game_id)
        assert record is not None
        own_hand = prompting.hand_text(t, view_of(record.game(), third.id))
        for text in texts_sent(h, third.id, start):
            assert seen_line not in text and told_line not in text
            assert name not in text.replace(own_hand, ""), text
        # The actor never learns the target's new card: only the target is told.
        drawn = [line for line in texts_sent(h, target.id, start) if "🔁" in line]
        assert drawn
        for text in texts_sent(h, actor.id, start) + group_texts:
            for line in drawn:
                assert line not in text


async def test_convert_and_embezzle_by_buttons_and_the_table_shows_them(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        await choose_variant(h, users[0], Variant.REFORMATION)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        t = h.catalogs.get("ka")
        # The first table: every seat's side, the legend and an empty Reserve.
        table = h.sim.text_of(GROUP)
        assert t.gettext("🔵 Loyalists · 🔴 Reformists") in table
        assert "🐷 ყულაბა: 0" in table
        record = await h.record(game_id)
        assert record is not None
        for seat in record.game().players:
            mark = ui.ALLEGIANCE_MARKS[seat.allegiance]  # type: ignore[index]
            assert f"{mark} {record.seat(seat.id).name}" in table  # type: ignore[union-attr]
        actor = mover(h, users)
        prompt = h.sim.with_buttons(actor.id)[-1]
        side = record.game().player(actor.id).allegiance
        assert side is not None
        # Their side is under their hand: the dealt hand's message, just above the prompt.
        hand = next(m for m in h.sim.messages(actor.id) if m.text.startswith("🂠"))
        assert prompting.side_text(t, side, 0) in hand.text
        assert h.tr("🐷 Embezzle") not in {b["text"] for b in prompt.buttons()}  # Reserve 0
        await h.press_text(actor, actor.id, h.tr("🔀 Convert"))
        picker = h.sim.with_buttons(actor.id)[-1]
        labels = {b["text"] for b in answers(picker)}
        others = [u for u in users if u != actor]
        game = record.game()
        assert labels == {
            h.tr("🔀 Myself (1 coin)"),
            *(
                f"{ui.ALLEGIANCE_MARKS[game.player(u.id).allegiance]} {u.first_name}"  # type: ignore[index]
                f" · 💰{game.player(u.id).coins} · 🂠🂠"
                for u in others
            ),
            h.tr("« Back"),
        }
        await h.press_text(actor, actor.id, h.tr("🔀 Myself (1 coin)"))
        await h.delivered(game_id)
        record = await h.record(game_id)
        assert record is not None
        game = record.game()
        assert game.reserve == 1 and game.player(actor.id).coins == 1
        assert game.player(actor.id).allegiance is side.other
        assert not answer_messages(h)  # no answers to a Conversion
        names = record.names()
        story = h.sim.text_of(GROUP)
        changed = describe(ev.AllegianceChanged(actor.id, actor.id, side.other, 1), t, names)
        assert changed and changed in story
        # The closed turn's seat line marks the actor with the new side (a quiet turn: its
        # verdict is added to the newest message, last); the whole table (/board, every
        # fifth turn) shows the Reserve.
        verdict = story.rsplit("\n\n", 1)[-1]
        assert f"{ui.ALLEGIANCE_MARKS[side.other]} {actor.first_name} · 💰1" in verdict
        assert "🐷 ყულაბა: 1" not in verdict
        await h.say(actor, GROUP, "/board")
        await h.until(lambda: "🐷 ყულაბა: 1" in h.sim.last(GROUP).text)
        story = h.sim.text_of(GROUP)
        paid = t.ngettext(
            "🔀 {actor} pays {n} coin into the Reserve and changes sides.",
            "🔀 {actor} pays {n} coins into the Reserve and changes sides.",
            1,
        ).format(actor=actor.first_name, n=1)
        assert paid in story
        # The next player embezzles the Reserve; the others pass at the table.
        embezzler = mover(h, users)
        assert embezzler != actor
        await h.press_text(embezzler, embezzler.id, h.tr("🐷 Embezzle"))
        await h.delivered(game_id)
        await pass_at_the_table(h, game_id, users)
        record = await h.record(game_id)
        assert record is not None
        game = record.game()
        assert game.reserve == 0 and game.player(embezzler.id).coins == 3
        taken = t.ngettext(
            "🐷 {actor} takes {n} coin from the Reserve.",
            "🐷 {actor} takes {n} coins from the Reserve.",
            1,
        ).format(actor=embezzler.first_name, n=1)
        assert taken in h.sim.text_of(GROUP)
        assert any(s is Allegiance.LOYALIST for s in (p.allegiance for p in game.players))


RULES_POINTS = {
    ("ka", Variant.INQUISITOR): ["ინკვიზიტორი", "დაკითხვა", "დეკიდან 1 ბარათი", "ინკვიზიტორით"],
    ("ka", Variant.REFORMATION): [
        "ერთგულები",
        "რეფორმისტები",
        "მხარის შეცვლა",
        "მითვისება",
        "ყულაბ",
    ],
    ("en", Variant.INQUISITOR): ["Ambassador is not used", "Examine", "draw 1 card"],
    ("en", Variant.REFORMATION): [
        "Loyalists",
        "Reformists",
        "Conversion",
        "Embezzlement",
        "Reserve",
    ],
}


async def test_rules_explain_the_chosen_variant(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        a, b = players(2)
        b_en = TgUser(b.id, b.first_name, "en")
        for lang in ("ka", "en"):
            t = h.catalogs.get(lang)
            group = GROUP if lang == "ka" else GROUP - 1
            if lang == "en":
                h.sim.admins.add((group, a.id))
                await h.say(a, group, "/settings")
                await h.press_text(a, group, "🌐")
            await choose_variant(h, a, Variant.REFORMATION_INQUISITOR, group, lang)
            await h.say(a, group, "/rules")
            rules, changes = (m.text for m in h.sim.messages(group)[-2:])
            # The variant is named first, then come the rules (told from its deck); and
            # Reformation's changes in a message of their own (ka-review-2026-12-05, 4).
            assert rules.startswith("🃏 ") and changes.startswith("⚖️ ")
            assert guide.rules_text(t, Variant.REFORMATION_INQUISITOR) in rules
            text = rules + "\n\n" + changes
            for variant in (Variant.INQUISITOR, Variant.REFORMATION):
                for point in RULES_POINTS[lang, variant]:
                    assert point in text, (lang, point)
            assert variant_name(t, Variant.REFORMATION_INQUISITOR) in rules
            assert [rules, changes] == guide.rules_messages(t, Variant.REFORMATION_INQUISITOR)
            assert all(len(m.encode("utf-16-le")) // 2 < 3000 for m in (rules, changes))
        # In private, outside a game: the base rules and the list of variants.
        await h.say(b_en, b.id, "/language")
        await h.press_text(b_en, b.id, "🇬🇧")
        await h.say(b_en, b.id, "/rules")
        en = h.catalogs.get("en")
        rules, listing = (m.text for m in h.sim.messages(b.id)[-2:])
        private = rules + "\n\n" + listing
        assert guide.rules_text(en) in rules and guide.variants_list_text(en) == listing
        assert guide.variant_rules_text(en, Variant.REFORMATION) not in private
        # In a game: that game's variant (Inquisitor only here).
        await choose_variant(h, a, Variant.INQUISITOR, GROUP)
        game_id = await open_and_start(h, [a, b])
        await h.delivered(game_id)  # the deal and the first prompt before the reply read
        await h.say(b_en, b.id, "/rules")
        private = h.sim.last(b.id).text
        for point in RULES_POINTS["en", Variant.INQUISITOR]:
            assert point in private
        assert "Embezzlement" not in private
        await h.say(a, a.id, "/rules")
        for point in RULES_POINTS["ka", Variant.INQUISITOR]:
            assert point in h.sim.last(a.id).text


async def test_answers_in_private_to_an_examine(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        await choose_variant(h, users[0], Variant.REFORMATION_INQUISITOR)
        await h.press_text(users[0], GROUP, "🗳")  # answers: at the table -> in private
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        t = h.catalogs.get("ka")
        actor = mover(h, users)
        record = await h.record(game_id)
        assert record is not None
        game = record.game()
        rival = next(
            u for u in users if game.player(u.id).allegiance is not game.player(actor.id).allegiance
        )
        await h.press_text(actor, actor.id, h.tr("🔍 Examine"))
        picker = h.sim.with_buttons(actor.id)[-1]
        # While divided, only the other side may be examined.
        mark = ui.ALLEGIANCE_MARKS[game.player(rival.id).allegiance]  # type: ignore[index]
        assert [b["text"].split(" · ")[0] for b in answers(picker)] == [
            f"{mark} {rival.first_name}",
            h.tr("« Back"),
        ]
        await h.press(actor, actor.id, picker.message_id, picker.buttons()[0]["callback_data"])
        await h.delivered(game_id)
        assert not answer_messages(h)  # nothing to press at the table
        names = (await h.record(game_id)).names()  # type: ignore[union-attr]
        declared = ev.ActionDeclared(actor.id, Action.EXAMINE, rival.id, Character.INQUISITOR, 0)
        for u in users:
            if u == actor:
                continue
            (prompt,) = h.sim.with_buttons(u.id)
            assert {b["text"] for b in answers(prompt)} == {h.tr("⚔️ Challenge"), h.tr("✅ Pass")}
            said = describe(declared, t, names, u.id)  # the claim, as this reader reads it
            assert said and said in prompt.text
            await h.press_text(u, u.id, h.tr("✅ Pass"))
        await h.delivered(game_id)
        record = await h.record(game_id)
        assert record is not None
        assert record.game().awaiting().kind in (DecisionKind.SHOW_CARD, DecisionKind.EXAMINE)
        # Every answer prompt closed: no stale Challenge / Pass stays live.
        for u in users:
            for m in h.sim.with_buttons(u.id):
                assert h.tr("✅ Pass") not in {b["text"] for b in m.buttons()}


async def test_forged_variant_buttons_are_refused_in_words(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        users = players(3)
        await choose_variant(h, users[0], Variant.REFORMATION_INQUISITOR)
        game_id = await open_and_start(h, users)
        await h.delivered(game_id)
        actor = mover(h, users)
        record = await h.record(game_id)
        assert record is not None
        game = record.game()
        seats = [p.id for p in game.players]
        side = game.player(actor.id).allegiance
        friend = next(p.id for p in game.players if p.id != actor.id and p.allegiance is side)
        prompt = h.sim.with_buttons(actor.id)[-1]
        forged = {
            f"y{seats.index(friend)}": h.tr("That player is on your side."),  # Examine
            "z": h.tr("The Reserve is empty."),  # Embezzle with nothing in the Reserve
        }
        for code, refusal in forged.items():
            data = f"{game_id}.{record.context}.{code}"
            answer = await h.press(actor, actor.id, prompt.message_id, data)
            assert answer["text"] == refusal and answer.get("show_alert")
        after = await h.record(game_id)
        assert after is not None and after.game().version == game.version  # nothing changed
        assert h.sim.with_buttons(actor.id) == [prompt]  # the prompt stays as it was
