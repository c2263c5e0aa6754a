"""The installed product matches what the README and `spyenvs --help` say: the
CLI is the only top of the import graph, the help and list texts are whole, the
rules specifications ship, and the README's example and links work (the guides' code:
tests/docs/test_snippets.py)."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import numpy as np

import spyenvs
from spyenvs.cli import build_parser, main, rules_file

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CODE_DIRS = ("spyenvs", "agents", "experiments")


def python_files():
    for d in CODE_DIRS:
        yield from sorted((ROOT / d).rglob("*.py"))


def imported_modules(path: Path) -> set[str]:
    """Absolute names of everything ``path`` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(ROOT).with_suffix("")
    package = ["spyenvs", *rel.parts[1:-1]] if rel.parts[0] != "spyenvs" else list(rel.parts[:-1])
    if rel.parts[0] != "spyenvs":  # agents/, experiments/ install as spyenvs.agents, spyenvs.experiments
        package = ["spyenvs", rel.parts[0], *rel.parts[1:-1]]
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package[: len(package) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)
    return names


def test_nothing_below_the_cli_imports_it():
    """Issue 12 §5: the CLI calls down into the trainers, never the other way."""
    offenders = [str(p.relative_to(ROOT)) for p in python_files()
                 if p != ROOT / "spyenvs" / "cli.py" and "spyenvs.cli" in imported_modules(p)]
    assert offenders == []


def test_the_trainers_share_the_cli_argument_lists():
    import argparse

    from spyenvs.tools.arguments import add_eval_arguments, add_train_arguments, parse_key_values

    train = argparse.ArgumentParser()
    add_train_arguments(train)
    args = train.parse_args(["unrest_v0", "--opt", "ppo.n_steps=64", "--timesteps", "100"])
    assert parse_key_values(args.opt, "--opt") == {"ppo.n_steps": 64} and args.timesteps == 100
    ev = argparse.ArgumentParser()
    add_eval_arguments(ev)
    assert ev.parse_args(["unrest_v0", "random", "heuristic"]).games == 100
    assert parse_key_values(["a=true", "b=x", "c=[1, 2]", "d=null"]) == {"a": True, "b": "x", "c": [1, 2], "d": None}


def test_train_seed_and_players_reach_the_loaded_config():
    import argparse

    from spyenvs.experiments.config import default_config_path
    from spyenvs.experiments.train_selfplay import load_config
    from spyenvs.tools.arguments import add_train_arguments, train_overrides

    train = argparse.ArgumentParser()
    add_train_arguments(train)
    args = train.parse_args(["the_agents_v0", "--seed", "2", "--players", "3"])
    cfg = load_config(default_config_path("the_agents_v0"), "the_agents_v0", train_overrides(args))
    assert cfg.seed == 2 and cfg.game["num_players"] == 3
    unset = train.parse_args(["the_agents_v0"])
    assert "seed" not in train_overrides(unset)  # the config's own seed stands


def test_help_description_is_a_whole_sentence(capsys):
    description = build_parser().description
    assert description.endswith(".") and "train" in description and "eval" in description
    try:
        main(["--help"])
    except SystemExit as exc:
        assert exc.code == 0
    assert description.split()[-1] in capsys.readouterr().out


def test_list_names_each_env_rules_file_and_it_ships(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for env_id in spyenvs.ENV_IDS:
        path = rules_file(env_id)
        assert f"{env_id}: " in out and f"rules: {path}" in out
        text = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(r"\bC\d+", text), f"{path} has no C-numbered completions"
    assert (ROOT / "docs" / "rules" / "specter_ops_map.json").is_file()


def test_readme_links_point_to_files_that_exist():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if not re.match(r"[a-z]+://", link)]
    assert "docs/rules/specter_ops.md" in local and "docs/getting_started.md" in local
    for link in local:
        assert (ROOT / link).exists(), f"README links to missing {link}"


def test_the_cli_reference_documents_set_and_the_readme_layout_view_example_runs():
    cli_page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "--set KEY=VALUE" in cli_page and "--full-map" in cli_page
    usage = README.split("## Usage", 1)[1]
    code = usage.split("```python", 1)[1].split("```", 1)[0]
    assert 'layout.view(obs["observation"], "board")' in code
    scope: dict = {}
    exec(compile(code, "README.md usage", "exec"), scope)  # noqa: S102 - the README's own example
    board = scope["board"]
    assert board.ndim == 3 and board.shape[1:] == (32, 23) and np.all((board >= 0) & (board <= 1))


def test_code_comments_point_to_readme_sections_that_exist():
    headings = {h.strip().lower() for h in re.findall(r"^#+ (.+)$", README, flags=re.M)}
    for path in python_files():
        for section in re.findall(r"README's (\w[\w -]*?) section", path.read_text(encoding="utf-8")):
            assert any(section.lower() in h for h in headings), f"{path.name} cites README section {section!r}"


def test_py_typed_ships_in_the_wheel():
    assert (ROOT / "spyenvs" / "py.typed").is_file()
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    data = setuptools["package-data"]
    assert "py.typed" in data.get("spyenvs", []) + data.get("*", [])
    assert "spyenvs" in setuptools["packages"]
