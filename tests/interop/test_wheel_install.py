"""``pip install`` of the built wheel leaves only ``spyenvs`` importable: the
repository's agents/, experiments/ and configs/ install as spyenvs.agents,
spyenvs.experiments and spyenvs.configs, and the training configs ship inside it.

Builds a wheel from a copy of the package sources, installs it with ``--no-deps``
into a fresh venv that gets its dependencies (numpy, gymnasium, pettingzoo, pyyaml
and theirs) from this environment through a folder of links to exactly those
distributions, then runs the ``spyenvs`` command from outside the checkout.
Offline and about 15-30 s; needs setuptools in this environment (the ``dev``
extra has it)."""

import importlib.metadata as md
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "spyenvs", "agents", "experiments", "configs")
ROOTS = ("numpy", "gymnasium", "pettingzoo", "pyyaml")


def _closure(names):
    """Installed distributions needed by ``names``, their requirements included
    (markers that select extras are skipped)."""
    todo, seen = list(names), {}
    while todo:
        name = re.split(r"[ ;<>=!~\[(]", todo.pop(), maxsplit=1)[0].lower().replace("_", "-")
        if not name or name in seen:
            continue
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        seen[name] = dist
        for req in dist.requires or []:
            if "extra ==" not in req:
                todo.append(req)
    return seen


def _link_dependencies(target: Path) -> None:
    """Links in ``target`` to every top-level file of the dependency closure."""
    target.mkdir()
    for dist in _closure(ROOTS).values():
        tops = {Path(f).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        base = Path(dist.locate_file(""))
        for top in tops:
            src, dst = base / top, target / top
            if src.exists() and not dst.exists() and top != "__pycache__" and not top.endswith(".pth"):
                dst.symlink_to(src)


def _run(cmd, cwd, env, timeout=120):
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _can_build_wheels() -> bool:
    """setuptools >= 70.1 has bdist_wheel built in; older ones need ``wheel``."""
    try:
        import setuptools
    except ImportError:
        return False
    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    if (major, minor) >= (70, 1):
        return True
    try:
        import wheel  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    if not _can_build_wheels():
        pytest.skip("building a wheel offline needs setuptools>=70.1 (or wheel) here: pip install -e '.[dev]'")
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(path, src / name)
    build_env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")  # this environment builds
    env = {k: v for k, v in build_env.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    pip = [sys.executable, "-m", "pip"]
    _run(pip + ["wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp / "dist"), str(src)], tmp, build_env)
    (wheel,) = (tmp / "dist").glob("spyenvs-*.whl")

    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(tmp / "venv")
    python = tmp / "venv" / "bin" / "python"
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp, env).strip())
    _link_dependencies(tmp / "deps")
    (site / "zz_spyenvs_test_deps.pth").write_text(str(tmp / "deps") + "\n")
    _run(pip + ["--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)], tmp, env)
    work = tmp / "elsewhere"  # outside the checkout: nothing to import from the cwd
    work.mkdir()
    return {"python": python, "bin": python.parent, "site": site, "cwd": work, "env": env}


def test_only_spyenvs_lands_in_site_packages(installed):
    tops = {p.name for p in installed["site"].iterdir()} - {"__pycache__"}
    packages = {t for t in tops if not t.endswith((".dist-info", ".pth", ".py"))}
    assert packages == {"spyenvs"}, tops


def test_agents_and_experiments_import_only_under_spyenvs(installed):
    code = (
        "import importlib.util as u, spyenvs, spyenvs.agents, spyenvs.experiments, spyenvs.configs\n"
        "assert u.find_spec('agents') is None and u.find_spec('experiments') is None\n"
        "assert u.find_spec('configs') is None\n"
        "print(spyenvs.__file__)"
    )
    where = _run([installed["python"], "-c", code], installed["cwd"], installed["env"])
    assert str(installed["site"]) in where


def test_spyenvs_list_and_match_run_from_the_wheel(installed):
    spyenvs = str(installed["bin"] / "spyenvs")
    listing = _run([spyenvs, "list"], installed["cwd"], installed["env"])
    for env_id in ("the_agents_v0", "unrest_v0", "spy_games_v0", "specter_ops_v0"):
        assert env_id in listing
    summary = _run([spyenvs, "match", "unrest_v0", "--games", "2", "--quiet"], installed["cwd"], installed["env"])
    assert "rebel" in summary and "empire" in summary


def test_train_finds_its_shipped_config_outside_the_checkout(installed):
    code = (
        "import yaml\n"
        "from spyenvs.experiments.config import default_config_path\n"
        "for env_id in ('the_agents_v0', 'unrest_v0', 'spy_games_v0', 'specter_ops_v0'):\n"
        "    path = default_config_path(env_id)\n"
        "    assert path and 'site-packages' in path, path\n"
        "    assert isinstance(yaml.safe_load(open(path)), dict)\n"
        "    rllib = default_config_path(env_id, prefix='rllib_')\n"
        "    assert rllib and 'site-packages' in rllib, rllib\n"
        "print('ok')"
    )
    assert _run([installed["python"], "-c", code], installed["cwd"], installed["env"]).strip() == "ok"


def test_scorecard_reads_its_shipped_ladder_from_the_wheel(installed):
    """The ladders ship as package data, and a score card runs on a core install
    (the pretrained bot is numpy: no torch)."""
    spyenvs = str(installed["bin"] / "spyenvs")
    out = installed["cwd"] / "cards"
    _run([spyenvs, "scorecard", "unrest_v0", "random", "--games", "1", "--quiet", "--out", str(out)],
         installed["cwd"], installed["env"])
    code = (
        "import json, sys\n"
        "from spyenvs.agents.ladder import HERE, available\n"
        "assert 'site-packages' in HERE, HERE\n"
        "assert available() == ['specter_ops_v0', 'spy_games_v0', 'the_agents_v0', 'unrest_v0'], available()\n"
        "card = json.load(open(sys.argv[1]))\n"
        "assert card['ladder']['file'] == 'unrest_v0.json' and card['rating'] is not None\n"
        "print('ok')"
    )
    done = _run([installed["python"], "-c", code, str(out / "unrest_v0-random.json")], installed["cwd"],
                installed["env"])
    assert done.strip() == "ok"
