"""Mini App initData checked as Telegram documents it (HMAC-SHA256 keyed by
HMAC("WebAppData", bot token), every field but `hash`, sorted), computed here by hand."""

from __future__ import annotations

import hashlib
import hmac
import json
from urllib.parse import parse_qsl, urlencode

import pytest

from tgbot.webapp.auth import AuthError, sign, validate

TOKEN = "123456:TEST-token"
NOW = 1_700_000_000


def telegram_signed(fields: dict[str, str], token: str = TOKEN) -> str:
    """initData signed exactly as Telegram's documentation says, without our code."""
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})


def fields(user_id: int = 42, auth_date: int = NOW, **more: str) -> dict[str, str]:
    user = {"id": user_id, "first_name": "Nino", "last_name": "B", "language_code": "en"}
    return {
        "query_id": "AAH",
        "user": json.dumps(user),
        "auth_date": str(auth_date),
        **more,
    }


def test_valid_init_data_names_its_user() -> None:
    user = validate(telegram_signed(fields(start_param="abc123")), TOKEN, 86400, NOW + 5)
    assert (user.id, user.name, user.language_code, user.start_param) == (
        42,
        "Nino B",
        "en",
        "abc123",
    )
    assert sign(fields(), TOKEN) == telegram_signed(fields())  # what the tests' pages send


def test_a_tampered_field_or_hash_is_refused() -> None:
    good = dict(parse_qsl(telegram_signed(fields())))
    other_user = {**good, "user": json.dumps({"id": 43, "first_name": "Eve"})}
    with pytest.raises(AuthError, match="bad signature"):
        validate(urlencode(other_user), TOKEN, 86400, NOW)
    flipped = {**good, "hash": good["hash"][:-1] + ("0" if good["hash"][-1] != "0" else "1")}
    with pytest.raises(AuthError, match="bad signature"):
        validate(urlencode(flipped), TOKEN, 86400, NOW)
    unsigned = {k: v for k, v in good.items() if k != "hash"}
    with pytest.raises(AuthError):
        validate(urlencode(unsigned), TOKEN, 86400, NOW)
    with pytest.raises(AuthError):
        validate("", TOKEN, 86400, NOW)


def test_another_bots_token_is_refused() -> None:
    with pytest.raises(AuthError, match="bad signature"):
        validate(telegram_signed(fields(), "654321:OTHER"), TOKEN, 86400, NOW)


def test_expired_init_data_is_refused() -> None:
    old = telegram_signed(fields(auth_date=NOW - 86401))
    with pytest.raises(AuthError, match="expired"):
        validate(old, TOKEN, 86400, NOW)
    assert validate(old, TOKEN, 2 * 86400, NOW).id == 42


def test_signed_data_without_a_user_is_refused() -> None:
    no_user = {k: v for k, v in fields().items() if k != "user"}
    with pytest.raises(AuthError, match="no user"):
        validate(telegram_signed(no_user), TOKEN, 86400, NOW)
    with pytest.raises(AuthError, match="no user"):
        validate(telegram_signed(fields(user="{}")), TOKEN, 86400, NOW)


def test_a_deeply_nested_signed_user_is_refused_not_a_crash() -> None:
    """Only Telegram (or the token's holder) can sign it, but it must be a 401, not a 500."""
    nested = '{"id": 42, "x": ' + "[" * 1200 + "]" * 1200 + "}"
    with pytest.raises(AuthError, match="no user"):
        validate(telegram_signed(fields(user=nested)), TOKEN, 86400, NOW)
