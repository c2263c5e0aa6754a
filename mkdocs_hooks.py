"""MkDocs hooks (mkdocs.yml's ``hooks``), two adjustments the site needs and the
repository's files should not carry:

* the API reference sees the package as it installs: pyproject's package-dir installs
  the repository's agents/, experiments/ and configs/ as spyenvs.agents,
  spyenvs.experiments and spyenvs.configs, a mapping mkdocstrings' loader (griffe)
  does not follow, so the build lays that package out as symlinks in a scratch folder
  and points the loader there;
* the docstrings' Sphinx roles (``:class:`Game```, ``:func:`make```) become links to
  the API reference (:class:`SphinxRoles`, a griffe extension), so the strict build
  fails on one that does not resolve;
* the rules files' adjacent completion tags (``[C15][C44]``) stay text: Python-Markdown
  reads them as a reference link, which the strict build would report as unresolved.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
from pathlib import Path

from griffe import Extension
from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parent
#: top-level folders that install inside the spyenvs package (pyproject's package-dir)
INSTALLED_INSIDE = ("agents", "experiments", "configs")
#: a completion tag followed by another: "[C15][C44]"
ADJACENT_TAG = re.compile(r"\](?=\[C\d+\])")
_tree: Path | None = None


@event_priority(100)  # before mkdocstrings reads its handlers' options
def on_config(config):
    global _tree
    _tree = Path(tempfile.mkdtemp(prefix="spyenvs-api-"))
    package = _tree / "spyenvs"
    package.mkdir()
    for entry in (ROOT / "spyenvs").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for name in INSTALLED_INSIDE:
        (package / name).symlink_to(ROOT / name)
    python = config.plugins["mkdocstrings"].config.handlers.setdefault("python", {})
    python["paths"] = [str(_tree)]
    return config


def on_shutdown():
    if _tree is not None:
        shutil.rmtree(_tree, ignore_errors=True)


def on_page_markdown(markdown, page, **_):
    if page.file.src_uri.startswith("rules/"):
        return ADJACENT_TAG.sub("]\\\\", markdown)
    return markdown


#: ``:class:`spyenvs.core.game.Game``` and the like; ``~`` (show the last name only) allowed
ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):`~?([\w.]+)(?:\(\))?`")
log = logging.getLogger("mkdocs.hooks.sphinx_roles")  # under "mkdocs": a strict build counts its warnings


class SphinxRoles(Extension):
    """Each Sphinx role in a docstring of the package as a link to the object it names
    (plain code where the site does not document that object); a role naming nothing
    in the package is a warning, which fails the strict build."""

    def on_package(self, *, pkg, loader, **_):
        for obj in _documented(pkg):
            if obj.docstring is not None:
                obj.docstring.value = ROLE.sub(lambda m, o=obj: _link(o, m.group(1), loader), obj.docstring.value)


def _documented(obj):
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _documented(member)


def _link(obj, name: str, loader) -> str:
    path = _full_name(obj, name)
    if path.split(".", 1)[0] != obj.package.name:
        return f"`{name}`"  # another library's object: not checked here
    try:
        loader.modules_collection.get_member(path)
    except (KeyError, ValueError, AttributeError):
        log.warning(f"{obj.path}: the docstring names {name!r}, which is nothing in {obj.package.name}")
        return f"`{name}`"
    return f'<autoref identifier="{path}" optional><code>{name}</code></autoref>'


def _full_name(obj, name: str) -> str:
    """``name`` as the object it means from where ``obj`` is documented: a member of
    the scope it is named in, or of an enclosing one, or a full path."""
    scope = obj if obj.is_module or obj.is_class else obj.parent
    head = name.split(".", 1)[0]
    while scope is not None:
        if head in scope.members:
            member = scope.members[head]
            return (member.target_path if member.is_alias else member.path) + name[len(head):]
        scope = scope.parent
    return name
