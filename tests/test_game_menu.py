"""A game page's menu offers what the game uses: the Camera page (the castle's camera) from Diego Drachenzahn's menu
only. Drachensachen, Drachen Wurf and Dračí hrad, played without a camera, offered it all the same."""
from __future__ import annotations

import re
from typing import Any

import pytest

from companion.games import GAMES

#: The menu's part of a game page: from its dialog to the page's data.
MENU = re.compile(r'<div class="overlay" id="menu".*?</div>\s*</div>', re.S)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_only_diego_s_menu_offers_the_camera(client: Any, game_id: str) -> None:
    players = ["Ada", "Ben", "Cleo"]
    created = client.post("/api/sessions", json={"game": game_id, "players": players})
    assert created.status_code == 201, created.get_json()
    page = client.get(f"/play/{created.get_json()['id']}")
    assert page.status_code == 200
    menu = MENU.search(page.get_data(as_text=True))
    assert menu is not None, "no menu on the page"
    assert ('href="/camera"' in menu.group(0)) == (game_id == "diego-drachenzahn"), menu.group(0)
    assert 'href="/devices"' in menu.group(0)
