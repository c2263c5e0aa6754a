"""Registers the toy HighCard game as ``high_card_test`` for the play/replay tests
only (the real registry and the conformance suite never see it)."""

from __future__ import annotations

import pytest

from spyenvs import registry
from tests.core.toy_game import HighCard

TOY_ID = "high_card_test"


@pytest.fixture
def toy_env_id(monkeypatch):
    monkeypatch.setitem(registry._ENV_MODULES, TOY_ID, "tests.play.toy_env")
    monkeypatch.setitem(registry._INFOS, TOY_ID, HighCard.info)
    return TOY_ID
