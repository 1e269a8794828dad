"""How often a pairing page looks for requests, an approval and the paired devices: every 1.5 s unless the config
says otherwise, on every page that has pairing pieces, for each role."""
from __future__ import annotations

import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.test_trust import pair, tablet
from web.app import create_app, shutdown


def _poll_ms(page: str) -> set[str]:
    """The poll interval the page gives its pairing pieces (on its body: one value for them all)."""
    assert re.search(r"<[^>]*data-pairing-role=[^>]*>", page), page[:2000]  # a page with pairing pieces
    body = re.findall(r"<body[^>]*>", page)
    assert len(body) == 1, page[:2000]
    return set(re.findall(r'data-pair-poll-ms="([^"]*)"', body[0])) or {"missing"}


def _pages(who: FlaskClient) -> list[str]:
    """Home, Devices and Camera as ``who`` gets them."""
    return [who.get(path).get_data(as_text=True) for path in ("/", "/devices", "/camera")]


def test_pairing_pages_look_again_every_1_5_s_by_default(app: Flask, client: FlaskClient) -> None:
    spectator = tablet(app)
    for page in _pages(client) + _pages(spectator):
        assert _poll_ms(page) == {"1500"}
    pair(app, spectator, client)
    for page in _pages(spectator):
        assert _poll_ms(page) == {"1500"}


def test_the_config_sets_how_often_pairing_pages_look(app_config: dict[str, Any]) -> None:
    application = create_app({**app_config, "PAIRING_POLL_S": 0.25})
    try:
        for who in (application.test_client(), tablet(application)):
            for page in _pages(who):
                assert _poll_ms(page) == {"250"}
    finally:
        shutdown(application)
