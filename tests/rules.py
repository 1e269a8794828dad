"""Helpers shared by the rules tests of every game."""
from __future__ import annotations

import copy
from typing import Any, Mapping

import pytest

from companion.games import Game, RuleError


def expect_refused(game: Game, state: Any, event: Mapping[str, Any], cls: type[RuleError], rule: str) -> RuleError:
    """Apply `event`, expect exactly `cls` naming `rule`, and check the state is untouched."""
    snapshot = copy.deepcopy(state)
    with pytest.raises(cls) as info:
        game.apply(state, event)
    assert type(info.value) is cls
    assert info.value.rule == rule, info.value
    assert f"(rule {rule})" in str(info.value)
    assert state == snapshot
    return info.value
