"""Keeping the bot token and the webhook secret out of every log line, at every level.

python-telegram-bot logs its base URL (which holds the token) and every call's parameters
(setWebhook's hold the secret) at DEBUG, and httpx logs request URLs at INFO; both go
through the root logger's handlers. uvicorn, though, installs handlers of its own when it
starts (dictConfig on "uvicorn" and "uvicorn.access", which do not propagate), after we set
up logging. So the redaction runs twice over: as a filter on every handler the root logger
has, and in the log record factory, which makes every record, for every logger and every
handler, including those added later.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import quote

REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 6  # shorter strings would redact ordinary words

_secrets: list[str] = []  # longest first, so that a secret's parts do not go first
_factory_installed = False


def _contains_secret(text: str) -> bool:
    return any(s in text for s in _secrets)


def _redacted(text: str) -> str:
    for s in _secrets:
        text = text.replace(s, REDACTED)
    return text


def _scrub(value: Any) -> Any:
    """The value itself if neither its str() nor its repr() holds a secret, else redacted text."""
    if value is None or isinstance(value, int | float):
        return value
    try:
        shown = value if isinstance(value, str) else str(value)
        if _contains_secret(shown):
            return _redacted(shown)
        if not isinstance(value, str) and _contains_secret(represented := repr(value)):
            return _redacted(represented)
    except Exception:  # a broken __str__ is the handler's business, not ours
        return value
    return value


def redact_record(record: logging.LogRecord) -> None:
    """Take every secret out of a record's message, arguments, traceback and stack."""
    if not _secrets:
        return
    record.msg = _scrub(record.msg)
    if isinstance(record.args, dict):
        record.args = {k: _scrub(v) for k, v in record.args.items()}
    elif record.args:
        # Argument by argument, keeping the tuple's shape: uvicorn's access formatter
        # unpacks it.
        record.args = tuple(_scrub(a) for a in record.args)
    if record.exc_info and not record.exc_text:
        text = logging.Formatter().formatException(record.exc_info)
        if _contains_secret(text):
            record.exc_text = _redacted(text)  # formatters use exc_text when it is set
    if record.exc_text:
        record.exc_text = _redacted(record.exc_text)
    if record.stack_info:
        record.stack_info = _redacted(record.stack_info)


class RedactingFilter(logging.Filter):
    """A handler filter that redacts each record it lets through (it lets all through)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact the record in place; never drop it."""
        redact_record(record)
        return True


def redact_secrets(*secrets: str) -> None:
    """Keep these strings (and their URL-encoded forms) out of every log record from now on."""
    global _factory_installed
    forms = set(_secrets)
    for secret in secrets:
        if secret and len(secret) >= MIN_SECRET_LENGTH:
            forms.update({secret, quote(secret, safe="")})
            # A token's part after the colon is the secret part; the bot id before it is
            # public, and the colon may reach a log URL-encoded.
            _, _, tail = secret.partition(":")
            if len(tail) >= MIN_SECRET_LENGTH:
                forms.add(tail)
    _secrets[:] = sorted(forms, key=len, reverse=True)
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
    if not _factory_installed:
        make_record = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = make_record(*args, **kwargs)
            redact_record(record)
            return record

        logging.setLogRecordFactory(factory)
        _factory_installed = True
