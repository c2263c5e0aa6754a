"""docs/add_a_game.md followed for the toy game: a package holding ``INFO`` and an
``env`` module, filed by the registry the way its ``GAME_PACKAGES`` line files a real
game, is then an env like the others (make, make_game, game_info,
the conformance checks through the public env path)."""

from __future__ import annotations

import sys

import pytest

from spyenvs import registry
from spyenvs.core.info import GameInfo
from tests.conformance import checks

from .toy_game import HighCard

INIT = '''from tests.core.toy_game import HighCard

INFO = HighCard.info
'''
ENV = '''from spyenvs.core.envfactory import env_functions
from tests.core.toy_game import HighCard

GAME = HighCard
env, raw_env = env_functions(GAME)
'''


@pytest.fixture
def toy_package(tmp_path, monkeypatch):
    package = tmp_path / "high_card_package"
    package.mkdir()
    (package / "__init__.py").write_text(INIT)
    (package / "env.py").write_text(ENV)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_INFOS", dict(registry._INFOS))
    monkeypatch.setattr(registry, "_ENV_MODULES", dict(registry._ENV_MODULES))
    yield "high_card_package"
    for name in ("high_card_package", "high_card_package.env"):
        sys.modules.pop(name, None)


def test_a_game_package_plus_its_registry_line_is_an_env(toy_package):
    info = registry._add_game(toy_package)
    assert info is HighCard.info and HighCard.env_id == info.env_id == "high_card_test"
    assert registry.game_info("high_card_test").title == "High Card"
    assert registry.game_class("high_card_test") is HighCard
    env = registry.make("high_card_test", num_players=3)
    env.reset(seed=1)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert isinstance(registry.make_game("high_card_test"), HighCard)
    assert registry.game_info("high_card_test").heuristic is None  # the agents tests register one by hand
    for config in HighCard.TEST_CONFIGS:
        checks.run_api_test(registry.game_class("high_card_test"), config)


def test_a_package_without_a_game_info_is_refused(toy_package, tmp_path):
    (tmp_path / toy_package / "__init__.py").write_text("INFO = {'env_id': 'high_card_test'}\n")
    with pytest.raises(TypeError, match="must be a spyenvs.core.info.GameInfo"):
        registry._add_game(toy_package)


def test_unknown_env_id_names_the_registered_ones():
    with pytest.raises(ValueError, match="unknown env id 'no_such_game_v0'; available: specter_ops_v0"):
        registry.game_info("no_such_game_v0")


def test_game_info_refuses_an_unknown_net_input():
    with pytest.raises(ValueError, match="net_input must be one of cell_board, card_table or None"):
        GameInfo(env_id="x_v0", title="X", summary="", rewards="", pettingzoo_id="spyenvs/x-v0", net_input="graph")


def test_game_info_holds_the_pettingzoo_id_to_pettingzoos_style():
    with pytest.raises(ValueError, match="pettingzoo_id must be 'spyenvs/x-v0'"):
        GameInfo(env_id="x_v0", title="X", summary="", rewards="", pettingzoo_id="spyenvs/X-v0")
