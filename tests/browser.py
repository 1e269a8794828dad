"""Headless Chromium for browser tests, driven by Playwright against Debian's /usr/bin/chromium.

Test modules import the `browser` fixture. pytest then holds one fixture per importing module, but Playwright's
sync API runs one event loop per thread: so every module's fixture shares one Chromium, started by the first
and closed with the last.
"""
from __future__ import annotations

import os
import shutil
from typing import Any, Iterator

import pytest

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--disable-quic"]

_shared: dict[str, Any] = {"users": 0}  # the running Playwright and Chromium, and how many fixtures use them


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    path = chromium_path()
    if path is None:
        message = "Debian's chromium is not installed (apt-get install -y chromium)"
        if os.environ.get("COMPANION_REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    if not _shared["users"]:
        from playwright.sync_api import sync_playwright

        _shared["playwright"] = sync_playwright().start()
        _shared["browser"] = _shared["playwright"].chromium.launch(executable_path=path, args=CHROMIUM_ARGS,
                                                                   headless=True)
    _shared["users"] += 1
    try:
        yield _shared["browser"]
    finally:
        _shared["users"] -= 1
        if not _shared["users"]:
            _shared.pop("browser").close()
            _shared.pop("playwright").stop()
