"""The typed training configs (spyenvs.experiments.config): a docstring per field,
a saved config loads back as the same config, and the mapping view old callers use."""

from __future__ import annotations

import ast
import dataclasses
import inspect

import pytest

pytest.importorskip("yaml")

from spyenvs.experiments import config as C  # noqa: E402

SECTIONS = [C.TrainConfig, C.PPOConfig, C.NetConfig, C.WarmStartConfig, C.CloneRegConfig, C.LeagueConfig,
            C.EvalConfig, C.RLlibConfig, C.RLlibNetConfig, C.RLlibLeagueConfig]


def test_every_field_has_a_docstring():
    tree = ast.parse(inspect.getsource(C))
    documented = set()
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for a, b in zip(cls.body, cls.body[1:]):
            if isinstance(a, ast.AnnAssign) and isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant):
                documented.add((cls.name, a.target.id))
    for section in SECTIONS:
        for f in dataclasses.fields(section):
            owner = next(k.__name__ for k in section.__mro__ if f.name in k.__dict__.get("__annotations__", {}))
            assert (owner, f.name) in documented, f"{section.__name__}.{f.name} has no docstring"


def test_a_saved_config_loads_back_the_same():
    cfg = C.load(C.TrainConfig, None, "unrest_v0", {"ppo.n_steps": 32, "net.hidden": [16], "game.x": 1})
    assert cfg.ppo.n_steps == 32 and cfg["ppo"]["n_steps"] == 32 and cfg.game == {"x": 1}
    assert C.coerce(C.TrainConfig, C.to_dict(cfg)) == cfg
    assert C.coerce(C.TrainConfig, dict(cfg, seed=3)).seed == 3
    with pytest.raises(ValueError, match="'seed' must be an integer"):
        C.coerce(C.TrainConfig, dict(cfg, seed="3"))


def test_rllib_ppo_is_open_and_the_rest_is_typed():
    cfg = C.load(C.RLlibConfig, None, "unrest_v0", {"ppo.anything": 1, "rollout_fragment_length": 50})
    assert cfg.ppo["anything"] == 1 and cfg.ppo["lr"] == 3.0e-4 and cfg.eval.every == 10
    with pytest.raises(ValueError, match="unknown training option 'net.arch'"):
        C.load(C.RLlibConfig, None, "unrest_v0", {"net.arch": "mlp"})
    with pytest.raises(ValueError, match="'iterations' must be an integer"):
        C.load(C.RLlibConfig, None, "unrest_v0", {"iterations": 1.5})
