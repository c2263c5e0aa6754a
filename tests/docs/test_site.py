"""The documentation site builds strict (mkdocs.yml): a broken link, a page missing
from the nav or the disk, an unknown anchor, or a docstring role that names nothing
fails the build. Needs the `docs` extra."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")
pytest.importorskip("mkdocstrings")

ROOT = Path(__file__).resolve().parents[2]


def test_the_site_builds_strict_with_no_warning(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")  # Material's notice about its successor, not ours
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "WARNING" not in out, out
    assert (tmp_path / "site" / "api" / "policies" / "index.html").is_file()
