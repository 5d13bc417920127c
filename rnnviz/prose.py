"""Explanatory prose lives in prose/<page>.md, apart from code, so it can be translated.

A file holds sections, each opened by a line `<!-- key -->`; `section(page, key, **numbers)`
fills {placeholders} with the current sentence's numbers.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

PROSE_DIR = Path(__file__).resolve().parents[1] / "prose"
_MARK = re.compile(r"^<!--\s*([\w-]+)\s*-->\s*$", re.M)


@functools.lru_cache(maxsize=None)
def sections(page: str) -> dict[str, str]:
    text = (PROSE_DIR / f"{page}.md").read_text(encoding="utf-8")
    parts = _MARK.split(text)
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def section(page: str, key: str, **values) -> str:
    """The section's text with {name} filled from values (missing keys raise: a test catches them)."""
    return sections(page)[key].format(**values)
