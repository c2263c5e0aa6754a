"""The fenced code blocks of a markdown page, and what the page says about running
each: a block runs as written, or the HTML comment on the line before it says

* ``<!-- snippet: skip (WHY) -->``: not run, and why (an install, an interactive
  program, a fragment of a file that another test runs whole);
* ``<!-- snippet: smaller "OLD" -> "NEW" ... -->`` (or ``'OLD' -> 'NEW'``): run with
  those sizes swapped in (fewer steps, games or simulations), so that the suite stays fast.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

FENCE = re.compile(r"^(?P<indent>[ ]*)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ ]*$", re.M | re.S)
TAG = re.compile(r"^\s*<!-- snippet: (?P<kind>skip|smaller)\b(?P<rest>.*?)-->\s*$")
#: one swap of a smaller tag: "OLD" -> "NEW", or with single quotes where the text holds double ones
SWAP = re.compile(r'"([^"]*)" -> "([^"]*)"|\'([^\']*)\' -> \'([^\']*)\'')
RUNNABLE = {"python": "python", "bash": "bash", "sh": "bash"}


@dataclass
class Block:
    page: str
    line: int
    lang: str
    code: str
    skip: str | None = None  # why it is not run
    swaps: list[tuple[str, str]] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def runner(self) -> str | None:
        return None if self.skip is not None else RUNNABLE.get(self.lang)

    def code_to_run(self) -> str:
        code = self.code
        for old, new in self.swaps:
            if old not in code:
                raise AssertionError(f"{self.where}: its smaller tag swaps {old!r}, which the block lacks")
            code = code.replace(old, new)
        return code


def indented_code(path: Path) -> list[int]:
    """Lines that open an indented (four-space) code block outside fences and lists:
    such a block can carry no tag, so the pages that run use fences."""
    out, fenced, prev = [], False, ""
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and prev == "" and line.startswith("    ") and line.strip() \
                and not line.lstrip().startswith(("-", "*", "|")) and not line.lstrip()[:1].isdigit():
            out.append(n)
        prev = line.strip() if not fenced else "x"
    return out


def blocks(path: Path, root: Path) -> list[Block]:
    """Every fenced block of the page at ``path``, with its tag."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        block = Block(str(path.relative_to(root)), line, m.group("lang"), textwrap.dedent(m.group("body")))
        tag = TAG.match(before)
        if tag and tag.group("kind") == "skip":
            block.skip = tag.group("rest").strip().removeprefix("(").removesuffix(")").strip()
        elif tag:
            block.swaps = [(m[0] or m[2], m[1] or m[3]) for m in SWAP.findall(tag.group("rest"))]
        out.append(block)
    return out
