"""Headless Chromium for browser tests, driven by Playwright against Debian's /usr/bin/chromium."""
from __future__ import annotations

import os
import shutil
from typing import Any, Iterator

import pytest

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--disable-quic"]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


#: The browser of this run: each test module that imports the fixture gets its own session-scoped copy of it,
#: and Playwright's sync API runs once per process, so the copies share one browser.
_running: list[Any] = []


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    path = chromium_path()
    if path is None:
        message = "Debian's chromium is not installed (apt-get install -y chromium)"
        if os.environ.get("COMPANION_REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    if _running:
        yield _running[0]
        return
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
        _running.append(instance)
        try:
            yield instance
        finally:
            _running.clear()
            instance.close()
