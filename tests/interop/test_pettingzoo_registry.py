"""PettingZoo's registry: after ``import spyenvs`` every env is made by
``pettingzoo.make("aec", "spyenvs/<Name>-v0", **config)``, the same env and
options as ``spyenvs.make``."""

import numpy as np
import pettingzoo
import pytest

import spyenvs

pytestmark = pytest.mark.skipif(not hasattr(pettingzoo, "register"), reason="PettingZoo < 1.27 has no registry")

EXPECTED = {
    "the_agents_v0": "spyenvs/the_agents-v0",
    "unrest_v0": "spyenvs/unrest-v0",
    "spy_games_v0": "spyenvs/spy_games-v0",
    "specter_ops_v0": "spyenvs/specter_ops-v0",
}


def test_every_env_has_a_registry_id():
    assert spyenvs.PETTINGZOO_IDS == EXPECTED
    assert set(EXPECTED) == set(spyenvs.ENV_IDS)
    for pz_id in EXPECTED.values():
        assert pz_id in pettingzoo.aec_registry


@pytest.mark.parametrize("env_id", spyenvs.ENV_IDS)
def test_registry_env_is_the_spyenvs_env(env_id):
    config = dict(spyenvs.make_game(env_id).TEST_CONFIGS[-1])
    ours = spyenvs.make(env_id, max_steps=50, **config)
    theirs = pettingzoo.make("aec", EXPECTED[env_id], max_steps=50, **config)
    assert type(theirs) is type(ours)
    assert theirs.game.config == ours.game.config
    assert theirs.possible_agents == ours.possible_agents
    assert theirs.max_steps == 50
    for env in (ours, theirs):
        env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(30):
        a = ours.agent_selection
        assert theirs.agent_selection == a
        o1, o2 = ours.observe(a), theirs.observe(a)
        assert np.array_equal(o1["observation"], o2["observation"])
        assert np.array_equal(o1["action_mask"], o2["action_mask"])
        if ours.terminations[a] or ours.truncations[a]:
            break
        action = int(rng.choice(np.flatnonzero(o1["action_mask"])))
        ours.step(action)
        theirs.step(action)


def test_unversioned_id_resolves_and_bad_options_say_what_is_allowed():
    env = pettingzoo.make("aec", "spyenvs/unrest")
    assert env.game.env_id == "unrest_v0"
    with pytest.raises(ValueError, match="allowed"):
        pettingzoo.make("aec", "spyenvs/the_agents-v0", num_players=9)
