"""A simulated Telegram Bot API server: enough of Telegram for the bot's real HTTP client.

It assigns message ids, keeps every chat's messages with their keyboards, applies edits
(of a message's text, `editMessageText`, or of its buttons alone, `editMessageReplyMarkup`),
answers callbacks, records every call per chat, and can be told to fail like Telegram
(403 Forbidden, 400 "message is not modified" or "message can't be edited", 429 with
retry_after). Like Telegram it can hold groups to a flood limit that counts edits too
(`group_flood_per_minute`), and answer for a basic group that became a supergroup with
`migrate_to_chat_id` (`migrated`; `migrate` also makes the supergroup as Telegram does:
its own message ids from 1, none of the old group's messages). It can take a call at once
and answer it only after the client's read timeout (`slow_answers`: the bot cannot know the
outcome; `slow_share`: a share of every answer, at random), lose an answer after the call
took effect (`lose_next`: a 502 from a proxy, say), and finds the copies of a keyboard
that more than one message shows (`duplicate_keyboards`) or was sent with (`copies`).
`deleteMessage` deletes one of the bot's messages (`deleted` keeps them, for tests).
Like Telegram it accepts a Mini App's `web_app` button only in a private chat (a group's
gets 400 BUTTON_TYPE_INVALID), and keeps the menu button `setChatMenuButton` sets
(`menu_buttons`: per chat, None for the default of every chat).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

BOT_ID = 700000001
BOT_USERNAME = "coup_test_bot"


@dataclass
class SimMessage:
    """One message as a chat shows it now."""

    chat_id: int
    message_id: int
    text: str
    keyboard: list[list[dict[str, Any]]] | None
    thread_id: int | None = None
    edits: int = 0
    editable: bool = True  # False: Telegram refuses edits ("message can't be edited")
    entities: list[dict[str, Any]] = field(default_factory=list)
    sent_keyboard: list[list[dict[str, Any]]] | None = None  # the buttons it was sent with

    def moments(self) -> list[int]:
        """The unix times of its `date_time` entities (deadlines shown as moments)."""
        return [int(e["unix_time"]) for e in self.entities if e["type"] == "date_time"]

    def buttons(self) -> list[dict[str, Any]]:
        """All inline buttons, row by row."""
        return [b for row in self.keyboard or [] for b in row]

    def button(self, text_part: str) -> dict[str, Any]:
        """The button whose text contains `text_part`."""
        found = [b for b in self.buttons() if text_part in b["text"]]
        assert found, f"no button with {text_part!r} in {[b['text'] for b in self.buttons()]}"
        return found[0]


@dataclass
class Call:
    """One Bot API request."""

    method: str
    params: dict[str, Any]
    at: float
    status: int
    via_webhook: bool = False  # named in a webhook response body, not requested by the bot


@dataclass
class Failure:
    """A failure to answer with, the next `times` matching calls."""

    method: str
    chat_id: int | None
    status: int
    description: str
    retry_after: int | None
    times: int


@dataclass
class TelegramSim:
    """State of the simulated Telegram."""

    chats: dict[int, list[SimMessage]] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    callback_answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    admins: set[tuple[int, int]] = field(default_factory=set)
    failures: list[Failure] = field(default_factory=list)
    blocked: set[int] = field(default_factory=set)  # users who blocked the bot
    pending_updates: list[dict[str, Any]] = field(default_factory=list)  # for getUpdates
    webhook_url: str = ""
    menu_buttons: dict[int | None, dict[str, Any]] = field(default_factory=dict)
    valid_token: str | None = None  # when set, any other token gets 401 Unauthorized
    # Messages and edits a group may get in any 60 s; more are answered 429 with retry_after.
    group_flood_per_minute: int | None = None
    migrated: dict[int, int] = field(default_factory=dict)  # basic group -> its supergroup
    deleted: list[SimMessage] = field(default_factory=list)  # by deleteMessage, oldest first
    delays: dict[tuple[str, int], float] = field(default_factory=dict)  # see delay()
    slow_calls: int = 0  # calls that were (or are being) answered slowly
    late: list[Call] = field(default_factory=list)  # those answered late (slow_share, ...)
    # (method, chat) -> [how many more such calls to answer late, how many seconds late]
    late_answers: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    # (method, chat) -> how many more such calls to take and then answer with a 502
    lost_answers: dict[tuple[str, int], int] = field(default_factory=dict)
    lose_with_buttons: set[tuple[str, int]] = field(default_factory=set)  # see lose_next
    lost_calls: int = 0  # calls that took effect and whose answer was lost
    # A share of all answers (getUpdates' aside) given this many seconds late: see slow_share.
    slow_fraction: float = 0.0
    slow_seconds: float = 0.0
    _slow_rng: random.Random = field(default_factory=lambda: random.Random(0))
    _written: dict[int, list[float]] = field(default_factory=dict)  # group -> times written
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1))
    # Supergroups number their own messages (basic groups and private chats share one count).
    _chat_ids: dict[int, itertools.count] = field(default_factory=dict)

    # ---- test helpers -------------------------------------------------------------

    def fail_next(
        self,
        method: str,
        status: int,
        description: str,
        chat_id: int | None = None,
        retry_after: int | None = None,
        times: int = 1,
    ) -> None:
        """Make the next `times` calls of `method` (to `chat_id`) fail like Telegram."""
        self.failures.append(Failure(method, chat_id, status, description, retry_after, times))

    def migrate(self, old: int, new: int) -> None:
        """Make basic group `old` the supergroup `new`, as Telegram does: the old group keeps
        its messages, buttons and all, and answers every call with migrate_to_chat_id (no
        one edits them any more); the supergroup has none of them and numbers its own
        messages from 1, the first being the service message that says where it came
        from, so an id of the old group names another message there, or none."""
        self.migrated[old] = new
        ids = self._chat_ids.setdefault(new, itertools.count(1))
        note = SimMessage(new, next(ids), f"[upgraded from {old}]", None, editable=False)
        self.chats.setdefault(new, []).append(note)

    def delay(self, method: str, chat_id: int, seconds: float) -> None:
        """Answer every call of `method` to `chat_id` only after `seconds` (a slow Telegram);
        the call takes effect, and is recorded, when the answer goes out."""
        self.delays[(method, chat_id)] = seconds

    def slow_answers(self, method: str, chat_id: int, seconds: float, times: int = 1) -> None:
        """Take the next `times` calls of `method` to `chat_id` at once (each takes effect,
        and is recorded) but answer them only `seconds` later: past the client's read
        timeout, the bot cannot know that the call went through."""
        self.late_answers[(method, chat_id)] = [times, seconds]

    def slow_share(self, fraction: float, seconds: float, seed: int = 0) -> None:
        """Answer `fraction` of all calls (chosen at random, seeded; getUpdates aside) only
        `seconds` after taking them: a Telegram that is slow now and then."""
        self.slow_fraction, self.slow_seconds = fraction, seconds
        self._slow_rng = random.Random(seed)

    def lose_next(
        self, method: str, chat_id: int, times: int = 1, with_buttons: bool = False
    ) -> None:
        """Take the next `times` calls of `method` to `chat_id` (each takes effect, and is
        recorded) and answer them with a 502: the bot cannot know that they went through.
        `with_buttons`: only calls that carry buttons count (a prompt, not the hand)."""
        self.lost_answers[(method, chat_id)] = times
        if with_buttons:
            self.lose_with_buttons.add((method, chat_id))

    def _late(self, method: str, chat_id: int | None) -> float:
        """How late to answer this call (0: at once)."""
        late = self.late_answers.get((method, chat_id or 0))
        if late and late[0] > 0:
            late[0] -= 1
            return late[1]
        chosen = method != "getUpdates" and self._slow_rng.random() < self.slow_fraction
        if self.slow_fraction and chosen:
            return self.slow_seconds
        return 0.0

    def _lost(self, method: str, chat_id: int | None, buttons: bool = False) -> bool:
        """Whether this call's answer is lost (see lose_next)."""
        left = self.lost_answers.get((method, chat_id or 0), 0)
        if left <= 0:
            return False
        if (method, chat_id or 0) in self.lose_with_buttons and not buttons:
            return False
        self.lost_answers[(method, chat_id or 0)] = left - 1
        self.lost_calls += 1
        return True

    def duplicate_keyboards(self, chat_id: int | None = None) -> list[SimMessage]:
        """Messages (in a chat, or anywhere) that show a keyboard an older message of the
        same chat still shows: a second live copy of the same buttons."""
        found = []
        for chat in [chat_id] if chat_id is not None else list(self.chats):
            live: set[str] = set()
            for message in self.messages(chat):
                if not message.keyboard:
                    continue
                key = json.dumps(message.keyboard, sort_keys=True)
                if key in live:
                    found.append(message)
                live.add(key)
        return found

    def copies(self, chat_id: int | None = None) -> list[list[SimMessage]]:
        """Messages (in a chat, or anywhere) sent with the same buttons as another of their
        chat, grouped, oldest first: copies of one message that the bot sent again."""
        found = []
        for chat in [chat_id] if chat_id is not None else list(self.chats):
            sent: dict[str, list[SimMessage]] = {}
            for message in self.messages(chat):
                if message.sent_keyboard:
                    key = json.dumps(message.sent_keyboard, sort_keys=True)
                    sent.setdefault(key, []).append(message)
            found += [group for group in sent.values() if len(group) > 1]
        return found

    def messages(self, chat_id: int) -> list[SimMessage]:
        """Every message a chat holds, oldest first."""
        return self.chats.get(chat_id, [])

    def last(self, chat_id: int) -> SimMessage:
        """The newest message in a chat."""
        return self.messages(chat_id)[-1]

    def with_buttons(self, chat_id: int) -> list[SimMessage]:
        """Messages in a chat that still show buttons."""
        return [m for m in self.messages(chat_id) if m.keyboard]

    def calls_to(self, chat_id: int, method: str | None = None) -> list[Call]:
        """Calls that concerned a chat."""
        return [
            c
            for c in self.calls
            if _chat_of(c.params) == chat_id and (method is None or c.method == method)
        ]

    def text_of(self, chat_id: int) -> str:
        """All text a chat shows, joined."""
        return "\n".join(m.text for m in self.messages(chat_id))

    def webhook_reply(self, body: dict[str, Any]) -> None:
        """Run the method a webhook response names, as Telegram does (its result is dropped)."""
        params = {k: v for k, v in body.items() if k != "method"}
        status, _ = self.handle(str(body["method"]), params)
        self.calls.append(Call(str(body["method"]), params, time.monotonic(), status, True))

    # ---- the API ------------------------------------------------------------------

    def handle(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        chat_id = _chat_of(params)
        for failure in self.failures:
            if failure.method == method and failure.chat_id in (None, chat_id) and failure.times:
                failure.times -= 1
                status, body = _error(failure.status, failure.description)
                if failure.retry_after is not None:
                    body["parameters"] = {"retry_after": failure.retry_after}
                return status, body
        writes = method in (
            "sendMessage",
            "editMessageText",
            "editMessageReplyMarkup",
            "deleteMessage",
        )
        if writes and chat_id in self.blocked:
            return _error(403, "Forbidden: bot was blocked by the user")
        if writes and chat_id is not None and chat_id in self.migrated:
            status, body = _error(400, "Bad Request: group chat was upgraded to a supergroup chat")
            body["parameters"] = {"migrate_to_chat_id": self.migrated[chat_id]}
            return status, body
        if writes and chat_id is not None and chat_id < 0 and self.group_flood_per_minute:
            now = time.monotonic()
            recent = [t for t in self._written.get(chat_id, []) if t > now - 60]
            self._written[chat_id] = recent
            if len(recent) >= self.group_flood_per_minute:
                retry_after = max(1, math.ceil(recent[0] + 60 - now))
                status, body = _error(429, f"Too Many Requests: retry after {retry_after}")
                body["parameters"] = {"retry_after": retry_after}
                return status, body
            recent.append(now)  # counted even when refused below, as Telegram may
        if writes and chat_id is not None and chat_id < 0 and _has_web_app(params):
            # Telegram: "web_app buttons can be used in private chats only".
            return _error(400, "Bad Request: BUTTON_TYPE_INVALID")
        handler = getattr(self, f"_{method}", None)
        if handler is None:
            return _error(404, "Not Found")
        return handler(params)

    def flood_refusals(self, chat_id: int) -> list[Call]:
        """Calls to a chat that were answered 429."""
        return [c for c in self.calls_to(chat_id) if c.status == 429]

    def _getMe(self, _: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return 200, {
            "ok": True,
            "result": {
                "id": BOT_ID,
                "is_bot": True,
                "first_name": "Coup",
                "username": BOT_USERNAME,
                "can_join_groups": True,
                "can_read_all_group_messages": False,
                "supports_inline_queries": False,
            },
        }

    def _getUpdates(self, p: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        offset = int(p.get("offset") or 0)
        self.pending_updates = [u for u in self.pending_updates if u["update_id"] >= offset]
        return 200, {"ok": True, "result": list(self.pending_updates)}

    def _ok(self, _: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return 200, {"ok": True, "result": True}

    _setMyCommands = _setMyDescription = _setMyShortDescription = _ok

    def _setWebhook(self, p: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.webhook_url = str(p.get("url", ""))
        return self._ok(p)

    def _setChatMenuButton(self, p: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        raw = p.get("menu_button") or {"type": "default"}
        button = json.loads(raw) if isinstance(raw, str) else dict(raw)
        if button.get("type") == "web_app" and not str(
            (button.get("web_app") or {}).get("url", "")
        ).startswith("https://"):
            return _error(400, "Bad Request: BUTTON_URL_INVALID")  # Mini Apps are https only
        self.menu_buttons[_chat_of(p)] = button
        return self._ok(p)

    def _deleteWebhook(self, p: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.webhook_url = ""
        return self._ok(p)

    def _getWebhookInfo(self, _: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        info = {"url": self.webhook_url, "has_custom_certificate": False}
        info["pending_update_count"] = len(self.pending_updates)
        return 200, {"ok": True, "result": info}

    def _sendMessage(self, p: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        chat_id = int(p["chat_id"])
        text = str(p.get("text", ""))
        if not text.strip():
            return _error(400, "Bad Request: message text is empty")
        if len(text) > 4096:
            return _error(400, "Bad Request: message is too long")
        entities, problem = _entities(p, text)
        if problem:
            return _error(400, f"Bad Request: can't parse entities: {problem}")
        if problem := _bad_buttons(p):
            return _error(400, f"Bad Request: {problem}")
        thread = int(p["message_thread_id"]) if p.get("message_thread_id") else None
        ids = self._chat_ids.get(chat_id, self._ids)
        keyboard = _keyboard(p)
        message = SimMessage(
            chat_id, next(ids), text, keyboard, thread, entities=entities, sent_keyboard=keyboard
        )
        self.chats.setdefault(chat_id, []).append(message)
        return 200, {"ok": True, "result": _message_json(message)}

    def _to_edit(self, p: dict[str, Any]) -> SimMessage | tuple[int, dict[str, Any]]:
        """The message an edit names, or Telegram's refusal when it cannot be edited."""
        chat_id, message_id = int(p["chat_id"]), int(p["message_id"])
        found = [m for m in self.messages(chat_id) if m.message_id == message_id]
        if not found:
            return _error(400, "Bad Request: message to edit not found")
        if not found[0].editable:
            return _error(400, "Bad Request: message can't be edited")
        return found[0]

    def _editMessageText(self, p: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        message = self._to_edit(p)
        if isinstance(message, tuple):
            return message
        keyboard = _keyboard(p)
        entities, problem = _entities(p, str(p.get("text", "")))
        if problem:
            return _error(400, f"Bad Request: can't parse entities: {problem}")
        if problem := _bad_buttons(p):
            return _error(400, f"Bad Request: {problem}")
        if (
            message.text == p.get("text")
            and message.keyboard == keyboard
            and message.entities == entities
        ):
            return _error(400, NOT_MODIFIED)
        message.text = str(p.get("text"))
        message.keyboard = keyboard
        message.entities = entities
        message.edits += 1
        return 200, {"ok": True, "result": _message_json(message)}

    def _editMessageReplyMarkup(self, p: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        message = self._to_edit(p)
        if isinstance(message, tuple):
            return message
        if problem := _bad_buttons(p):
            return _error(400, f"Bad Request: {problem}")
        keyboard = _keyboard(p)
        if message.keyboard == keyboard:
            return _error(400, NOT_MODIFIED)
        message.keyboard = keyboard
        message.edits += 1
        return 200, {"ok": True, "result": _message_json(message)}

    def _deleteMessage(self, p: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        chat_id, message_id = int(p["chat_id"]), int(p["message_id"])
        found = [m for m in self.messages(chat_id) if m.message_id == message_id]
        if not found:
            return _error(400, "Bad Request: message to delete not found")
        if not found[0].editable:  # (a service message, in the simulation)
            return _error(400, "Bad Request: message can't be deleted")
        self.chats[chat_id].remove(found[0])
        self.deleted.append(found[0])
        return 200, {"ok": True, "result": True}

    def _answerCallbackQuery(self, p: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.callback_answers[str(p["callback_query_id"])] = p
        return 200, {"ok": True, "result": True}

    def _getChatMember(self, p: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        chat_id, user_id = int(p["chat_id"]), int(p["user_id"])
        status = "administrator" if (chat_id, user_id) in self.admins else "member"
        user = {"id": user_id, "is_bot": False, "first_name": f"user{user_id}"}
        result: dict[str, Any] = {"status": status, "user": user}
        if status == "administrator":
            result.update(
                can_be_edited=False,
                is_anonymous=False,
                can_manage_chat=True,
                can_delete_messages=True,
                can_manage_video_chats=True,
                can_restrict_members=True,
                can_promote_members=False,
                can_change_info=True,
                can_invite_users=True,
                can_post_stories=False,
                can_edit_stories=False,
                can_delete_stories=False,
            )
        return 200, {"ok": True, "result": result}


NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)


def _error(status: int, description: str) -> tuple[int, dict[str, Any]]:
    """An error answer shaped like the Bot API's."""
    return status, {"ok": False, "error_code": status, "description": description}


def _chat_of(params: dict[str, Any]) -> int | None:
    raw = params.get("chat_id")
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


_ENTITY_TYPES = {
    "mention", "hashtag", "cashtag", "bot_command", "url", "email", "phone_number", "bold",
    "italic", "underline", "strikethrough", "spoiler", "blockquote", "expandable_blockquote",
    "code", "pre", "text_link", "text_mention", "custom_emoji", "date_time",
}  # fmt: skip
# Bot API "date-time entity formatting": relative, or weekday? date? time?
_DATE_TIME_FORMAT = re.compile(r"r|w?[dD]?[tT]?")
BUTTON_STYLES = ("primary", "success", "danger")


def _entities(params: dict[str, Any], text: str) -> tuple[list[dict[str, Any]], str]:
    """The message entities a call carries, checked as Telegram checks them: each inside
    the text (offsets in UTF-16 code units), a `date_time` one with a positive
    `unix_time` and a valid `date_time_format`; and what is wrong, if anything."""
    raw = params.get("entities")
    if not raw:
        return [], ""
    found = json.loads(raw) if isinstance(raw, str) else raw
    size = len(text.encode("utf-16-le")) // 2
    checked = []
    for e in found:
        kind, offset, length = e.get("type"), e.get("offset"), e.get("length")
        if kind not in _ENTITY_TYPES:
            return [], f"unsupported entity type {kind!r}"
        if not isinstance(offset, int) or not isinstance(length, int):
            return [], "entity offset and length must be integers"
        if offset < 0 or length <= 0 or offset + length > size:
            return [], f"entity {kind} at {offset}+{length} is outside the text ({size})"
        if kind == "date_time":
            unix = e.get("unix_time")
            if not isinstance(unix, int) or isinstance(unix, bool) or unix <= 0:
                return [], "date_time entity needs a positive integer unix_time"
            form = e.get("date_time_format", "")
            if not isinstance(form, str) or not _DATE_TIME_FORMAT.fullmatch(form):
                return [], f"invalid date_time_format {form!r}"
        checked.append(dict(e))
    return checked, ""


def _bad_buttons(params: dict[str, Any]) -> str:
    """What is wrong with the buttons' styles, as Telegram says it ("" when nothing)."""
    for row in _keyboard(params) or []:
        for b in row:
            if "style" in b and b["style"] not in BUTTON_STYLES:
                return f"invalid button style {b['style']!r}"
    return ""


def _has_web_app(params: dict[str, Any]) -> bool:
    """Whether a call's inline keyboard holds a Mini App (`web_app`) button."""
    return any("web_app" in b for row in _keyboard(params) or [] for b in row)


def _keyboard(params: dict[str, Any]) -> list[list[dict[str, Any]]] | None:
    raw = params.get("reply_markup")
    if not raw:
        return None
    markup = json.loads(raw) if isinstance(raw, str) else raw
    rows = markup.get("inline_keyboard") or []
    return [[dict(b) for b in row] for row in rows] or None


def _message_json(m: SimMessage) -> dict[str, Any]:
    chat_type = "private" if m.chat_id > 0 else "supergroup"
    data: dict[str, Any] = {
        "message_id": m.message_id,
        "date": int(time.time()),
        "chat": {"id": m.chat_id, "type": chat_type},
        "from": {"id": BOT_ID, "is_bot": True, "first_name": "Coup", "username": BOT_USERNAME},
        "text": m.text,
    }
    if m.thread_id is not None:
        data["message_thread_id"] = m.thread_id
        data["is_topic_message"] = True
    if m.keyboard:
        data["reply_markup"] = {"inline_keyboard": m.keyboard}
    if m.entities:
        data["entities"] = m.entities
    return data


def build_sim_app(sim: TelegramSim) -> Starlette:
    """The HTTP face of the simulation: /bot<token>/<method>."""

    async def endpoint(request: Request) -> JSONResponse:
        method = request.path_params["method"]
        if sim.valid_token is not None and request.path_params["token"] != sim.valid_token:
            status, body = _error(401, "Unauthorized")
            sim.calls.append(Call(method, {}, time.monotonic(), status))
            return JSONResponse(body, status_code=status)
        if request.headers.get("content-type", "").startswith("application/json"):
            params = await request.json()
        else:  # python-telegram-bot posts url-encoded fields when there is no file
            params = dict(parse_qsl((await request.body()).decode(), keep_blank_values=True))
        delay = sim.delays.get((method, _chat_of(params) or 0))
        if delay:
            sim.slow_calls += 1
            await asyncio.sleep(delay)
        status, body = sim.handle(method, params)
        if method == "getUpdates" and not body.get("result"):
            await asyncio.sleep(0.2)  # a short long-poll, so the bot does not spin
        call = Call(method, params, time.monotonic(), status)
        sim.calls.append(call)
        buttons = bool(params.get("reply_markup"))
        if sim._lost(method, _chat_of(params), buttons):  # taken: its answer never comes
            return JSONResponse({"ok": False, "error_code": 502, "description": "Bad Gateway"}, 502)
        late = sim._late(method, _chat_of(params))
        if late:
            sim.slow_calls += 1
            sim.late.append(call)
            await asyncio.sleep(late)  # taken already: the answer is what comes late
        return JSONResponse(body, status_code=status)

    return Starlette(routes=[Route("/bot{token}/{method}", endpoint, methods=["GET", "POST"])])
