"""Hostile webhook input: wrong secrets, broken or huge bodies change nothing."""

from __future__ import annotations

from tests.telegram_sim.harness import SECRET, TgUser, running_bot


async def test_wrong_or_missing_secret_is_403(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        user = TgUser(7, "Mallory")
        update = h.message_update(user, -55, "/newgame")
        assert (await h.post(update, secret="wrong")).status_code == 403
        assert (await h.post(update, secret=None)).status_code == 403
        assert (await h.post(update, secret=SECRET + "x")).status_code == 403
        assert await h.record_of_chat(-55) is None
        assert h.sim.messages(-55) == []


async def test_malformed_and_oversized_bodies_are_refused(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
        for body in (b"{not json", b"[1, 2, 3]", b'{"no_update_id": 1}', b'{"update_id": "x"}'):
            response = await h.http.post(h.url, content=body, headers=headers)
            assert response.status_code == 400, body
        huge = b'{"update_id": 1, "pad": "' + b"x" * (2 << 20) + b'"}'
        response = await h.http.post(h.url, content=huge, headers=headers)
        assert response.status_code == 413
        assert h.sim.calls_to(-55) == []
        assert [c.method for c in h.sim.calls if c.method == "sendMessage"] == []


async def test_an_update_telegram_sent_but_we_cannot_read_is_dropped(
    redis_server_url: str,
) -> None:
    # With the right secret it came from Telegram: refusing it would only bring it back.
    async with running_bot(redis_server_url) as h:
        unreadable = {"update_id": 77, "message": {"message_id": 1, "chat": "not a chat"}}
        response = await h.post(unreadable)
        assert response.status_code == 200
        assert [c for c in h.sim.calls if c.method == "sendMessage"] == []
        user = TgUser(7, "Nino")
        assert (await h.post(h.message_update(user, user.id, "/start"))).status_code == 200
        await h.until(lambda: bool(h.sim.messages(user.id)))


async def test_health_endpoint_answers(redis_server_url: str) -> None:
    async with running_bot(redis_server_url) as h:
        response = await h.http.get(h.url.replace("/telegram", "/healthz"))
        assert response.status_code == 200 and response.json() == {"ok": True}
