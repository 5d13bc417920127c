"""Issue 25: the zh text uses the notes' terms, one word per idea, and full-width punctuation."""
from __future__ import annotations

import re
from pathlib import Path

from rnnviz.explain.notes.notation import NOTE_002_KEY
from ui.i18n import catalogue

ROOT = Path(__file__).resolve().parents[2]
ZH_FILES = [ROOT / "locales/zh.toml", *sorted((ROOT / "locales/zh").glob("*.toml")),
            *sorted((ROOT / "prose/zh").glob("*.md"))]
# (word not to use, the notes' word)
REPLACED = (("笔记", "讲义"), ("词元", "token"), ("热图", "热力图"), ("槽填充", "槽位填充"),
            ("实际下限", "精度地板"), ("所有步对", "任意两步"), ("课程式训练", "课程学习"), ("色带", "阴影区域"))


def zh_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in ZH_FILES)


def test_the_notes_terms():
    text = zh_text()
    for old, new in REPLACED:
        assert old not in text, (old, new)
    assert not re.search("(?<!沿)时间反向传播", text)
    for term in ("槽位填充", "沿时间反向传播", "精度地板", "讲义"):
        assert term in text, term
    assert text.count("词嵌入") >= 1 and "**词嵌入**（embedding）" in text


def test_notation_meanings_follow_the_core_and_are_translated():
    en, zh = catalogue("en"), catalogue("zh")
    for i, row in enumerate(NOTE_002_KEY):
        assert en[f"bptt.meaning.{i}"] == row[3]
        assert re.search("[\u4e00-\u9fff]", zh[f"bptt.meaning.{i}"])


def test_full_width_punctuation_between_chinese_characters():
    """No half-width comma, colon, semicolon, question or exclamation mark right after a Han
    character and before another (a Chinese sentence's punctuation is full width)."""
    bad = []
    for key, value in catalogue("zh").items():
        for m in re.finditer("[\u4e00-\u9fff][,;:?!][\u4e00-\u9fff]", value):
            bad.append((key, m.group(0)))
    assert not bad, bad[:10]


def test_zh_prose_has_no_line_break_inside_a_sentence():
    """A line break between two Chinese characters would show as a stray space."""
    from rnnviz.store.prose import sections
    for path in sorted((ROOT / "prose/zh").glob("*.md")):
        for key, text in sections(path.stem, "zh").items():
            assert not re.search("[\u4e00-\u9fff，。；：、）]\n[\u4e00-\u9fff（“]", text), (path.stem, key)
