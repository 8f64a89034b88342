"""The Mini App's first load: bytes on the wire (gzip, as a browser asks) of the page and
every asset it names, served by our own routes (`tgbot/webapp/page.py`), against a
target of 60 KB compressed for all of them together.

Telegram's own `telegram-web-app.js` is not counted: it comes from telegram.org, not from us.
"""

from __future__ import annotations

import asyncio
import platform
import re
import sys

import httpx
from starlette.applications import Starlette

from tgbot.webapp.page import page_routes

TARGET_BYTES = 60 * 1024


async def fetch(http: httpx.AsyncClient, url: str) -> tuple[int, int, str]:
    """(bytes on the wire, bytes unpacked, content-encoding) of one GET."""
    async with http.stream("GET", url, headers={"Accept-Encoding": "gzip, br"}) as response:
        raw = b"".join([chunk async for chunk in response.aiter_raw()])
        response.raise_for_status()
        encoding = response.headers.get("content-encoding", "identity")
    async with http.stream("GET", url, headers={"Accept-Encoding": "identity"}) as plain:
        body = b"".join([chunk async for chunk in plain.aiter_raw()])
    return len(raw), len(body), encoding


async def main() -> None:
    app = Starlette(routes=page_routes())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as http:
        page = await http.get("/app")
        urls = ["/app"] + [
            "/" + u for u in re.findall(r'(?:src|href)="(app/static/[^"]+)"', page.text)
        ]
        rows = [(url, *await fetch(http, url)) for url in urls]
    print(f"{platform.machine()}, CPython {sys.version.split()[0]}")
    print(f"{'address':<40} {'on the wire':>12} {'unpacked':>10}  encoding")
    for url, wire, body, encoding in rows:
        print(f"{url:<40} {wire:>12,} {body:>10,}  {encoding}")
    wire = sum(r[1] for r in rows)
    body = sum(r[2] for r in rows)
    verdict = "met" if wire <= TARGET_BYTES else "MISSED"
    print(f"{'first load, all together':<40} {wire:>12,} {body:>10,}")
    print(f"target <= {TARGET_BYTES:,} bytes compressed: {verdict} ({wire / 1024:.1f} KB)")


if __name__ == "__main__":
    asyncio.run(main())
