"""Helpers of the Mini App's browser tests: initData signed as Telegram signs it, a stub
`window.Telegram.WebApp` served in place of Telegram's script, Telegram-like themes, and
the layout checks run in the page."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js"
CHROMIUM = "/usr/bin/chromium"
VIEWPORT = {"width": 390, "height": 844}
ARTEFACTS = Path(__file__).resolve().parents[1] / "artefacts"

# Telegram's own theme parameters (as its Android app sends them), light and dark.
THEMES: dict[str, dict[str, str]] = {
    "light": {
        "bg_color": "#ffffff",
        "text_color": "#000000",
        "hint_color": "#707579",
        "link_color": "#3390ec",
        "button_color": "#3390ec",
        "button_text_color": "#ffffff",
        "secondary_bg_color": "#f4f4f5",
        "section_bg_color": "#ffffff",
        "accent_text_color": "#3390ec",
        "destructive_text_color": "#df3f40",
    },
    "dark": {
        "bg_color": "#212121",
        "text_color": "#ffffff",
        "hint_color": "#aaaaaa",
        "link_color": "#8774e1",
        "button_color": "#8774e1",
        "button_text_color": "#ffffff",
        "secondary_bg_color": "#0f0f0f",
        "section_bg_color": "#2c2c2c",
        "accent_text_color": "#8774e1",
        "destructive_text_color": "#ff595a",
    },
}


def chromium_or_skip() -> str:
    """The Chromium to drive; skipped (with the reason) only outside CI when none exists."""
    found = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser tests: .ci/run installs Debian's chromium")
        pytest.skip("no chromium binary (apt-get install chromium); CI installs it")
    return found


def playwright_or_skip() -> Any:
    """Playwright's asyncio API (the test extra); in CI its absence is a failure."""
    if os.environ.get("CI"):
        import playwright.async_api

        return playwright.async_api
    return pytest.importorskip("playwright.async_api")


def signed_init_data(
    token: str, user: dict[str, Any], start_param: str | None, auth_date: int | None = None
) -> str:
    """initData as Telegram signs it: secret = HMAC_SHA256(key="WebAppData", msg=token),
    hash = HMAC_SHA256(secret, the sorted "key=value" lines joined by newlines)."""
    fields = {
        "query_id": "AAHtest",
        "user": json.dumps(user, ensure_ascii=False, separators=(",", ":")),
        "auth_date": str(auth_date if auth_date is not None else int(time.time())),
    }
    if start_param is not None:
        fields["start_param"] = start_param
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)


STUB = """
(function () {
  var cfg = __CONFIG__;
  var handlers = {};
  var seen = (window.__tg = { haptics: [], backVisible: false, ready: 0, expanded: 0 });
  function paint() {
    var root = document.documentElement.style;
    Object.keys(cfg.theme).forEach(function (k) {
      root.setProperty("--tg-theme-" + k.replace(/_/g, "-"), cfg.theme[k]);
    });
  }
  function fire(name) {
    (handlers[name] || []).forEach(function (f) { f(); });
  }
  var app = {
    initData: cfg.initData,
    initDataUnsafe: cfg.unsafe,
    colorScheme: cfg.scheme,
    themeParams: cfg.theme,
    platform: "tdesktop",
    version: "8.0",
    ready: function () { seen.ready++; },
    expand: function () { seen.expanded++; },
    close: function () { seen.closed = true; },
    onEvent: function (name, f) { (handlers[name] = handlers[name] || []).push(f); },
    offEvent: function () {},
    HapticFeedback: {
      notificationOccurred: function (kind) { seen.haptics.push(kind); },
      impactOccurred: function () {},
      selectionChanged: function () {},
    },
    BackButton: {
      isVisible: false,
      show: function () { this.isVisible = seen.backVisible = true; },
      hide: function () { this.isVisible = seen.backVisible = false; },
      onClick: function (f) { (handlers.back = handlers.back || []).push(f); },
      offClick: function () {},
    },
  };
  window.Telegram = { WebApp: app };
  paint();
  // What Telegram does when the user switches the theme, and presses Back.
  window.__theme = function (scheme, theme) {
    cfg.scheme = app.colorScheme = scheme;
    cfg.theme = app.themeParams = theme;
    paint();
    fire("themeChanged");
  };
  window.__back = function () { fire("back"); };
})();
"""


def stub_script(init_data: str, user: dict[str, Any], start_param: str | None, scheme: str) -> str:
    """Telegram's script as the tests serve it: a WebApp object carrying `init_data`."""
    unsafe: dict[str, Any] = {"user": user, "auth_date": 0}
    if start_param is not None:
        unsafe["start_param"] = start_param
    config = {"initData": init_data, "unsafe": unsafe, "scheme": scheme, "theme": THEMES[scheme]}
    return STUB.replace("__CONFIG__", json.dumps(config))


# Run in the page: what overflows its box, and what button is lower than 44 px.
LAYOUT_PROBLEMS = """
() => {
  const bad = [];
  const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
    (e.className && typeof e.className === "string" ? "." + e.className.split(" ").join(".") : "");
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > width) {
    bad.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " > " + width);
  }
  for (const e of document.querySelectorAll("main *")) {
    const style = getComputedStyle(e);
    if (!e.getClientRects().length || style.visibility === "hidden") continue;
    const r = e.getBoundingClientRect();
    if (r.left < -0.5 || r.right > width + 0.5) bad.push(name(e) + " leaves the screen");
    if (style.display !== "inline" && style.overflowX === "visible" &&
        e.scrollWidth > e.clientWidth + 1) {
      bad.push(name(e) + " overflows: " + e.scrollWidth + " > " + e.clientWidth);
    }
    const p = e.parentElement;
    if (p && p.tagName !== "MAIN" && style.position !== "fixed") {
      const q = p.getBoundingClientRect();
      if (r.left < q.left - 0.5 || r.right > q.right + 0.5) {
        bad.push(name(e) + " sticks out of " + name(p));
      }
    }
    if (e.tagName === "BUTTON" && r.height < 44) bad.push(name(e) + " is " + r.height + " px high");
  }
  return bad;
}
"""
