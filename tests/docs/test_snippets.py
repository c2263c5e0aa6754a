"""Every code block of the README, the getting-started page and the guides runs here,
so that the docs cannot drift from the code: python blocks in page order in one
namespace per page, shell blocks with bash, all in a scratch folder. A block that is
not run carries a skip tag that says why (tests/docs/snippets.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.docs.snippets import blocks, indented_code

ROOT = Path(__file__).resolve().parents[2]
#: the nav sections whose pages must run: the README's and these
RUN_SECTIONS = ("Getting started", "Guides")


def _nav_pages(entries) -> list[str]:
    out = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        out += _nav_pages(value) if isinstance(value, list) else [value]
    return out


def pages() -> list[Path]:
    """The README and every page under the getting-started and guides nav entries."""
    with open(ROOT / "mkdocs.yml") as f:
        nav = yaml.load(f, Loader=yaml.BaseLoader)["nav"]  # BaseLoader: the file's !!python tags stay text
    sections = [next(iter(e.values())) for e in nav if isinstance(e, dict) and next(iter(e)) in RUN_SECTIONS]
    assert len(sections) == len(RUN_SECTIONS), f"mkdocs.yml's nav lacks one of {RUN_SECTIONS}"
    docs = [ROOT / "docs" / page for s in sections for page in (_nav_pages(s) if isinstance(s, list) else [s])]
    return [ROOT / "README.md", *docs]


PAGES = pages()


def test_every_block_runs_or_says_why_not():
    untagged, no_reason = [], []
    for page in PAGES:
        for block in blocks(page, ROOT):
            if block.skip is None and block.runner is None:
                untagged.append(f"{block.where} ({block.lang or 'no language'})")
            if block.skip is not None and len(block.skip) < 10:
                no_reason.append(block.where)
    indented = [f"{page.relative_to(ROOT)}:{n}" for page in PAGES for n in indented_code(page)]
    assert not indented, f"indented code blocks (fence them, so that they run or say why not): {indented}"
    assert not untagged, f"blocks neither run nor tagged '<!-- snippet: skip (why) -->': {untagged}"
    assert not no_reason, f"skip tags without a reason: {no_reason}"


def _shell_env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")  # this venv's spyenvs
    return env


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_page_runs(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(ROOT))  # `examples.` and `tests.` import as from the repository root
    namespace: dict = {"__name__": "__docs__"}
    for block in blocks(page, ROOT):
        if block.runner == "python":
            exec(compile(block.code_to_run(), block.where, "exec"), namespace)  # noqa: S102 - the docs' own code
        elif block.runner == "bash":
            proc = subprocess.run(["bash", "-e", "-c", block.code_to_run()], cwd=tmp_path, env=_shell_env(),
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, f"{block.where} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
