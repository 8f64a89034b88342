"""GET /app: the Mini App's page and its assets, served by the webhook app with a strict
Content-Security-Policy, gzipped, and cached by their hash."""

from __future__ import annotations

import gzip
import re
from html.parser import HTMLParser

import httpx

from tests.telegram_sim.harness import running_bot

DIRECTIVES = {
    "default-src": "'self'",
    "script-src": "'self' https://telegram.org",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "connect-src": "'self'",
}


class Tags(HTMLParser):
    """Every tag of a page with its attributes, and the text inside its scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.script_text = ""
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.script_text += data.strip()


def policy(header: str) -> dict[str, str]:
    rules = {}
    for part in header.split(";"):
        name, _, sources = part.strip().partition(" ")
        rules[name] = sources
    return rules


async def test_the_page_and_its_assets_come_from_the_bot_under_a_strict_policy(
    redis_server_url: str,
) -> None:
    async with running_bot(redis_server_url) as h:
        base = h.url.removesuffix("/telegram")
        async with httpx.AsyncClient(base_url=base) as http:
            page = await http.get("/app", headers={"Accept-Encoding": "identity"})
            assert page.status_code == 200
            assert page.headers["content-type"].startswith("text/html")
            rules = policy(page.headers["content-security-policy"])
            for directive, sources in DIRECTIVES.items():
                assert rules[directive] == sources, (directive, rules)
            assert "'unsafe-inline'" not in page.headers["content-security-policy"]
            assert page.headers["x-content-type-options"] == "nosniff"

            html = Tags()
            html.feed(page.text)
            # No inline script or style: the policy would refuse them.
            assert html.script_text == ""
            assert not [t for t, _ in html.tags if t == "style"]
            assert not [
                a for _, a in html.tags if "style" in a or any(k.startswith("on") for k in a)
            ]
            scripts = [str(a["src"]) for t, a in html.tags if t == "script"]
            styles = [str(a["href"]) for t, a in html.tags if t == "link"]
            assert scripts[0] == "https://telegram.org/js/telegram-web-app.js"
            own = scripts[1:] + styles
            assert len(own) == 2 and all(
                re.fullmatch(r"app/static/app\.\w+\?v=\w+", u) for u in own
            )

            for url in own:
                async with http.stream(
                    "GET", "/" + url, headers={"Accept-Encoding": "gzip"}
                ) as asset:
                    raw = b"".join([chunk async for chunk in asset.aiter_raw()])
                assert asset.status_code == 200
                assert asset.headers["content-encoding"] == "gzip"
                assert "immutable" in asset.headers["cache-control"]
                assert "content-security-policy" in asset.headers
                plain = await http.get("/" + url, headers={"Accept-Encoding": "identity"})
                assert "content-encoding" not in plain.headers
                assert gzip.decompress(raw) == plain.content and len(raw) < len(plain.content)
                again = await http.get("/" + url, headers={"If-None-Match": asset.headers["etag"]})
                assert again.status_code == 304
                # An old hash is not cached for a year: it is not this file.
                stale = await http.get("/" + url.split("?")[0] + "?v=0123")
                assert "immutable" not in stale.headers["cache-control"]

            again = await http.get("/app", headers={"If-None-Match": page.headers["etag"]})
            assert again.status_code == 304
            assert (await http.get("/app/static/secret.py")).status_code == 404
            assert (await http.get("/app/static/..%2Fpage.py")).status_code == 404
            slash = await http.get("/app/")
            assert slash.status_code == 308 and slash.headers["location"] == "../app"
