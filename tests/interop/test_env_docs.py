"""The env doc pages (docs/envs/<env_id>.md) are generated from the code by
``python -m spyenvs.tools.env_docs``; this fails when a page is stale."""

from pathlib import Path

import spyenvs
from spyenvs.registry import game_class
from spyenvs.tools import env_docs

ROOT = Path(__file__).resolve().parents[2]
REGENERATE = "python -m spyenvs.tools.env_docs"


def test_env_pages_are_up_to_date():
    stale = env_docs.stale_pages(ROOT)
    assert not stale, f"stale env doc pages {stale}: regenerate them with `{REGENERATE}` and commit docs/envs/"


def test_pages_document_every_option_block_and_decision():
    for env_id in spyenvs.ENV_IDS:
        page = env_docs.render_page(env_id, ROOT)
        cls = game_class(env_id)
        game = cls()
        for option in cls.CONFIG:
            assert f"| `{option}` |" in page
        for block in game.layout.blocks.values():
            assert f"| `{block.name}` | {block.start}-{block.start + block.size - 1} |" in page
        game.reset(0)
        assert f"### `{game.decision_name()}`" in page  # the first decision of a game
        assert f"`Discrete({game.num_actions})`" in page
        assert f"../rules/{env_docs.rules_name(env_id)}.md" in page


def test_action_discovery_is_deterministic():
    first = env_docs.discover_actions.__wrapped__("unrest_v0")
    assert first == env_docs.discover_actions.__wrapped__("unrest_v0")
    assert first == env_docs.discover_actions("unrest_v0")


def test_rules_section_list_comes_from_the_rules_file(tmp_path):
    rules = tmp_path / "docs" / "rules"
    rules.mkdir(parents=True)
    (rules / "unrest.md").write_text("# Title\n\n## 1. Sources\n\n### 1.1 Detail\n\n```\n## not a heading\n```\n")
    page = env_docs.render_page("unrest_v0", tmp_path)
    assert "- 1. Sources\n  - 1.1 Detail\n" in page
    assert "not a heading" not in page


def test_check_mode_reports_stale_pages_with_the_regenerate_command(tmp_path, capsys):
    assert env_docs.main(["--check", "--root", str(tmp_path)]) == 1
    assert REGENERATE in capsys.readouterr().out
    assert env_docs.main(["--root", str(tmp_path)]) == 0
    assert env_docs.main(["--check", "--root", str(tmp_path)]) == 0


def test_readme_env_table_links_the_pages():
    readme = (ROOT / "README.md").read_text()
    for env_id in spyenvs.ENV_IDS:
        assert f"[`{env_id}`](docs/envs/{env_id}.md)" in readme
