"""Telegram Mini App initData, checked as Telegram documents it.

https://core.telegram.org/bots/webapps#validating-data-received-via-the-mini-app:
secret = HMAC_SHA256(key="WebAppData", msg=bot_token); the data-check-string is every
received field but `hash`, sorted by key, as `key=value` joined by "\\n"; the hash is the
hex HMAC_SHA256(key=secret, msg=data-check-string). `auth_date` must be recent.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

MAX_INIT_DATA_CHARS = 8192  # Telegram's initData is far shorter; more is no initData


class AuthError(Exception):
    """initData that must not be trusted; its message is a short reason for the 401."""


@dataclass(frozen=True, slots=True)
class AppUser:
    """Who opened the Mini App, as Telegram signed it."""

    id: int
    name: str
    language_code: str | None
    start_param: str | None = None
    auth_date: int = 0  # when Telegram signed it (epoch seconds)


def secret_key(bot_token: str) -> bytes:
    """The key initData is signed with: HMAC_SHA256(key="WebAppData", msg=bot_token)."""
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def data_check_string(fields: dict[str, str]) -> str:
    """Every field but `hash`, sorted by key, as `key=value` lines."""
    return "\n".join(f"{k}={v}" for k, v in sorted(fields.items()) if k != "hash")


def sign(fields: dict[str, str], bot_token: str) -> str:
    """initData carrying `fields` signed with `bot_token` (what Telegram gives a page;
    tests and the page's stub use it)."""
    digest = hmac.new(
        secret_key(bot_token), data_check_string(fields).encode(), hashlib.sha256
    ).hexdigest()
    return urlencode({**fields, "hash": digest})


def validate(init_data: str, bot_token: str, max_age_s: int, now: float) -> AppUser:
    """The user initData names, if Telegram signed it for this bot no more than
    `max_age_s` seconds before `now`; AuthError (with a short reason) otherwise."""
    if not init_data or len(init_data) > MAX_INIT_DATA_CHARS:
        raise AuthError("no init data")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise AuthError("malformed init data") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise AuthError("malformed init data")  # a field twice: which one was signed?
    given = fields.get("hash", "")
    expected = hmac.new(
        secret_key(bot_token), data_check_string(fields).encode(), hashlib.sha256
    ).hexdigest()
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise AuthError("bad signature")
    try:
        auth_date = int(fields.get("auth_date", ""))
    except ValueError:
        raise AuthError("no auth date") from None
    if now - auth_date > max_age_s:
        raise AuthError("expired")
    try:
        user = json.loads(fields["user"])
        user_id = user["id"]
    except (KeyError, ValueError, TypeError, RecursionError):
        raise AuthError("no user") from None
    if type(user_id) is not int or not isinstance(user, dict):
        raise AuthError("no user")
    first, last = user.get("first_name"), user.get("last_name")
    name = " ".join(str(p) for p in (first, last) if isinstance(p, str) and p) or str(user_id)
    lang = user.get("language_code")
    return AppUser(
        user_id,
        name,
        lang if isinstance(lang, str) else None,
        fields.get("start_param") or None,
        auth_date,
    )
