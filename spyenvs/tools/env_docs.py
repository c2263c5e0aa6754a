"""Env doc pages in PettingZoo's classic format, generated from the code:
``docs/envs/<env_id>.md`` for every env id.

    python -m spyenvs.tools.env_docs            # (re)write every page
    python -m spyenvs.tools.env_docs --check    # exit 1 if a page is stale

Everything on a page comes from the code: the config options (``CONFIG`` Params
and their docs), the observation layout blocks, the roles and sizes per player
count, and the action space. Decision kinds and what each action index means in
them are discovered by playing seeded random games (the default config and every
``TEST_CONFIGS`` entry) and collecting ``decision_name() -> {action:
action_label(action)}``; the seeds are fixed, so a page changes only when the game
code does. The rules file's section list is read from ``docs/rules/<game>.md``.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from pathlib import Path

import numpy as np

from ..core.config import Param
from .arguments import run_reporting_errors
from ..registry import ADAPTER_KWARGS, ENV_IDS, env_module, game_class, game_info

#: seeded random games played per config to discover decisions and labels
GAMES_DEFAULT = 6
GAMES_PER_TEST_CONFIG = 2
#: labels shown per action index before "(+N more)"
LABELS_SHOWN = 3
#: a row per action index up to this many; longer decisions are summarised in runs
MAX_ROWS = 60


def repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


def rules_name(env_id: str) -> str:
    return re.sub(r"_v\d+$", "", env_id)


def _fmt(value) -> str:
    return f"`{value!r}`"


def _md(text: str) -> str:
    """Table-cell safe text."""
    return str(text).replace("|", "\\|").replace("\n", " ")


# ------------------------------------------------------------ discovery
def _player_counts(cls) -> list[dict]:
    p: Param | None = cls.CONFIG.get("num_players")
    if p is None:
        return [{}]
    counts = p.choices if p.choices is not None else range(int(p.min), int(p.max) + 1)
    return [{"num_players": c} for c in counts]


@functools.lru_cache(maxsize=None)
def discover_actions(env_id: str) -> dict[str, dict[int, list[str]]]:
    """decision name -> {action index: the distinct labels seen}, from seeded random
    games of the default config and every TEST_CONFIGS entry (cached: the games
    are seeded, so the answer only changes with the code; do not mutate it)."""
    cls = game_class(env_id)
    plan = [({}, GAMES_DEFAULT)] + [(dict(c), GAMES_PER_TEST_CONFIG) for c in cls.TEST_CONFIGS]
    seen: dict[str, dict[int, dict[str, None]]] = {}
    for k, (config, games) in enumerate(plan):
        game = cls(**config)
        for g in range(games):
            seed = 1000 * k + g
            rng = np.random.default_rng(seed)
            game.reset(seed)
            while not game.is_over:
                legal = game.legal_actions()
                per = seen.setdefault(game.decision_name(), {})
                for a in legal:
                    per.setdefault(a, {}).setdefault(game.action_label(a), None)
                game.step(legal[int(rng.integers(len(legal)))])
    return {name: {a: list(labels) for a, labels in sorted(per.items())} for name, per in seen.items()}


def _label_cell(labels: list[str]) -> str:
    shown = ", ".join(f"`{_md(x)}`" for x in labels[:LABELS_SHOWN])
    if len(labels) > LABELS_SHOWN:
        shown += f" (+{len(labels) - LABELS_SHOWN} more)"
    return shown


def _label_pattern(label: str) -> str:
    """A label with its numbers and map cells (``K12``) replaced by #."""
    return re.sub(r"[A-Z]?\d+", "#", label)


def _action_rows(per: dict[int, list[str]]) -> list[str]:
    """One row per action index, or, for long decisions (map cells), one row per
    run of indices whose labels share a pattern."""
    if len(per) <= MAX_ROWS:
        return [f"| {a} | {_label_cell(labels)} |" for a, labels in per.items()]
    rows: list[str] = []
    run: list[int] = []

    def flush():
        first, last = run[0], run[-1]
        if first == last:
            rows.append(f"| {first} | {_label_cell(per[first])} |")
        else:
            rows.append(f"| {first}-{last} | `{_md(per[first][0])}` .. `{_md(per[last][0])}` "
                        f"({len(run)} indices seen) |")
        run.clear()

    for a, labels in per.items():
        if run and _label_pattern(labels[0]) != _label_pattern(per[run[-1]][0]):
            flush()
        run.append(a)
    flush()
    return rows


# ---------------------------------------------------------------- page
def rules_sections(env_id: str, root: Path) -> list[tuple[int, str]] | None:
    path = root / "docs" / "rules" / f"{rules_name(env_id)}.md"
    if not path.exists():
        return None
    out, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        m = re.match(r"^(#{2,3})\s+(.*\S)\s*$", line)
        if m and not fenced:
            out.append((len(m.group(1)), m.group(2)))
    return out


def render_page(env_id: str, root: Path | None = None) -> str:
    root = root or repo_root()
    cls = game_class(env_id)
    module = env_module(env_id).__name__
    info = game_info(env_id)
    name, blurb = info.title, info.summary
    default = cls()
    low, high = default.layout.bounds()
    lines: list[str] = []
    add = lines.append

    add("<!-- generated by `python -m spyenvs.tools.env_docs` from the code; do not edit -->")
    add(f"# {name} (`{env_id}`)")
    add("")
    add("| | |")
    add("|---|---|")
    add(f"| Import | `from {module} import env` |")
    add(f"| Create | `spyenvs.make(\"{env_id}\", **config)` or `pettingzoo.make(\"aec\", \"{info.pettingzoo_id}\", **config)` |")
    add(f"| OpenSpiel | `python_spyenvs_{rules_name(env_id)}` (`import spyenvs.openspiel`) |")
    add("| Agents | " + "<br>".join(
        f"{_cfg_text(c) or 'default'}: " + ", ".join(f"`{r}`" for r in cls(**c).roles) for c in _player_counts(cls)
    ) + " |")
    add(f"| Action shape | `Discrete({default.num_actions})` (default config) |")
    add(f"| Action values | `[0, {default.num_actions - 1}]`, one flat index per small decision, with a legal mask |")
    add(f"| Observation shape | `{{\"observation\": ({default.observation_size},), \"action_mask\": ({default.num_actions},)}}` (default config) |")
    add(f"| Observation values | observation float32 in `[{low.min():g}, {high.max():g}]` (per block below); action_mask int8 in `{{0, 1}}` |")
    add("")
    add("## Description")
    add("")
    add(blurb)
    doc = (cls.__doc__ or "").strip()
    if doc:
        add("")
        add(re.sub(r"\s+", " ", doc))
    add("")
    rules_link = f"../rules/{rules_name(env_id)}.md"
    sections = rules_sections(env_id, root)
    add(f"The rules file, [{rules_link.removeprefix('../')}]({rules_link}), is the authority: every rule is "
        "tagged as stated by the rulebook, taken from a public source, or a completion (C-numbers) with its "
        "reason. Its sections:")
    add("")
    if sections is None:
        add(f"- (`docs/rules/{rules_name(env_id)}.md` is not in this checkout; regenerate once it is)")
    for level, title in sections or []:
        add(("  " if level == 3 else "") + f"- {title}")
    add("")

    add("## Arguments")
    add("")
    add(f"`spyenvs.make(\"{env_id}\", ...)` takes the game's config options; a wrong value raises "
        "`ValueError` saying what is allowed.")
    add("")
    add("| option | default | allowed | rule / meaning |")
    add("|---|---|---|---|")
    for opt, p in cls.CONFIG.items():
        add(f"| `{opt}` | {_fmt(p.default)} | {_md(p.allowed())} | {_md(p.doc)} |")
    add("")
    add("The adapter's options (every env): " + ", ".join(f"`{k}`" for k in ADAPTER_KWARGS) +
        " (render mode `ansi`/`human`/`rgb_array`, truncation after `max_steps` (or PettingZoo's `max_cycles`) decisions, "
        "`illegal_action` `\"raise\"` or `\"penalize\"`, the role whose view `render()` shows).")
    add("")

    add("## Observation space")
    add("")
    add(f"`observation` is a flat float32 vector of {default.observation_size} values (default config), "
        "egocentric and built only from what the observing role may know. "
        "`env.unwrapped.game.layout` names its blocks: `layout.view(obs, name)` reshapes one.")
    add("")
    add("| block | indices | shape | bounds | meaning |")
    add("|---|---|---|---|---|")
    for b in default.layout.blocks.values():
        add(f"| `{b.name}` | {b.start}-{b.start + b.size - 1} | {b.shape} | [{b.low:g}, {b.high:g}] | {_md(b.doc)} |")
    add("")
    sizes = []
    for c in [{}] + [dict(c) for c in cls.TEST_CONFIGS]:
        g = cls(**c)
        row = f"| {_cfg_text(c) or 'default'} | {len(g.roles)} | {g.observation_size} | {g.num_actions} |"
        if row not in sizes:
            sizes.append(row)
    add("Sizes by config (blocks are added or resized with the player count and options):")
    add("")
    add("| config | roles | observation | actions |")
    add("|---|---|---|---|")
    lines.extend(sizes)
    add("")

    add("## Legal actions mask")
    add("")
    add("`action_mask` (int8, one entry per action index) marks the legal actions of the pending "
        "decision for the agent in `agent_selection`; it is all zero for the other agents and never "
        "all zero for the acting one while the game runs. An illegal action raises "
        "`IllegalActionError` naming the decision and its legal actions (or, with "
        "`illegal_action=\"penalize\"`, ends the game with -1 for the offender).")
    add("")

    add("## Action space")
    add("")
    decisions = discover_actions(env_id)
    add(f"Every move is a sequence of small decisions; `game.decision_name()` names the pending one and "
        f"the observation carries it. The decisions below, and what each action index means in them "
        f"(`game.action_label(a)`), were collected from seeded random games of the default config "
        f"({GAMES_DEFAULT} games) and of every test config ({GAMES_PER_TEST_CONFIG} each); a label that "
        "depends on the state (a card, a place) shows its first examples. Decisions that random play "
        "never reaches are not listed.")
    add("")
    for dname in sorted(decisions):
        per = decisions[dname]
        add(f"### `{dname}`")
        add("")
        add("| action | meaning |")
        add("|---|---|")
        lines.extend(_action_rows(per))
        add("")

    add("## Rewards")
    add("")
    add("Rewards are terminal: every agent gets 0 until the game ends, then the game's `outcome()`. "
        + info.rewards)
    add("")
    add("## Version history")
    add("")
    add(f"- v{env_id.rsplit('_v', 1)[-1]}: initial release.")
    add("")
    return "\n".join(lines)


def _cfg_text(config: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in config.items())


# ----------------------------------------------------------------- main
def page_path(env_id: str, root: Path) -> Path:
    return root / "docs" / "envs" / f"{env_id}.md"


def stale_pages(root: Path | None = None) -> list[str]:
    """The env ids whose page is missing or differs from what the code generates."""
    root = root or repo_root()
    out = []
    for env_id in ENV_IDS:
        path = page_path(env_id, root)
        if not path.exists() or path.read_text(encoding="utf-8") != render_page(env_id, root):
            out.append(env_id)
    return out


def write_pages(root: Path | None = None) -> list[Path]:
    root = root or repo_root()
    written = []
    for env_id in ENV_IDS:
        path = page_path(env_id, root)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_page(env_id, root), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spyenvs.tools.env_docs", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a page is stale instead of writing")
    parser.add_argument("--root", type=Path, default=None, help="repository root (default: this checkout)")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_pages(args.root)
        if stale:
            print("stale env pages: " + ", ".join(stale) + "; regenerate: python -m spyenvs.tools.env_docs")
            return 1
        print("env pages up to date")
        return 0
    for path in write_pages(args.root):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(run_reporting_errors(main, "env_docs"))
