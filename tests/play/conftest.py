"""Registers the toy HighCard game as ``high_card_test`` for the play/replay tests
only (the real registry and the conformance suite never see it)."""

from __future__ import annotations

import pytest

from spyenvs import registry

TOY_ID = "high_card_test"


@pytest.fixture
def toy_env_id(monkeypatch):
    monkeypatch.setitem(registry._MODULES, TOY_ID, "tests.play.toy_env")
    return TOY_ID
