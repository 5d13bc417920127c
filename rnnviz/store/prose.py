"""Explanatory prose lives in prose/<lang>/<page>.md, apart from code, so it can be translated.

A file holds sections, each opened by a line `<!-- key -->`; `section(page, key, **numbers)`
fills {placeholders} with the current sentence's numbers. Pure (no streamlit): the app reads it
through ui.i18n.prose, which picks the learner's language and falls back to English.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from rnnviz.formatting import plurals

PROSE_ROOT = Path(__file__).resolve().parents[2] / "prose"
PROSE_DIR = PROSE_ROOT / "en"  # the English source (kept for callers of the old name)
_MARK = re.compile(r"^<!--\s*([\w-]+)\s*-->\s*$", re.M)
# A line break inside a Chinese sentence: Markdown would show it as a space ("侧边栏 选中").
_CJK = "\u2018\u2019\u201c\u201d\u2026\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
_CJK_BREAK = re.compile(f"(?<=[{_CJK}])\n(?=[{_CJK}])")


@functools.lru_cache(maxsize=None)
def sections(page: str, lang: str = "en") -> dict[str, str]:
    """key -> text of prose/<lang>/<page>.md ({} if that language has no such file)."""
    path = PROSE_ROOT / lang / f"{page}.md"
    if not path.exists():
        return {}
    parts = _MARK.split(path.read_text(encoding="utf-8"))
    join = (lambda x: x) if lang == "en" else (lambda x: _CJK_BREAK.sub("", x))
    return {parts[i]: join(parts[i + 1].strip()) for i in range(1, len(parts) - 1, 2)}


def section(page: str, key: str, lang: str = "en", **values) -> str:
    """The section's text with {name} filled from values (missing keys raise: a test catches them).

    A section missing in `lang` is taken from English."""
    text = sections(page, lang).get(key)
    if text is None:
        text = sections(page, "en")[key]
    return plurals(text, values).format(**values)
