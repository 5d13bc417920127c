"""The learner's language for every string: t(key, **values) and prose(page, key, **values).

Strings live in locales/<lang>.toml under flat dotted keys ("bptt.title", "sidebar.model");
values fill Python str.format placeholders ("{T} tokens"). Longer explanations live in
prose/<lang>/<page>.md (read by rnnviz.prose). A key missing in a language falls back to English,
so a half-translated catalogue still shows every string. The language is the sidebar's
`lang` widget, bound to the URL (?lang=zh); English by default.
"""
from __future__ import annotations

import functools
import tomllib
from pathlib import Path

from rnnviz import prose as _prose

LOCALES_DIR = Path(__file__).resolve().parents[1] / "locales"
DEFAULT_LANG = "en"
LANG_NAMES = {"en": "English", "zh": "中文"}  # how each language names itself in the switch


def flatten(table: dict, prefix: str = "") -> dict[str, str]:
    """{"a": {"b": "x"}} -> {"a.b": "x"}: TOML dotted keys read back as flat keys."""
    flat = {}
    for k, v in table.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            flat |= flatten(v, name + ".")
        else:
            flat[name] = str(v)
    return flat


@functools.lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    """Every string of one language ({} if there is no locales/<lang>.toml)."""
    path = LOCALES_DIR / f"{lang}.toml"
    if not path.exists():
        return {}
    with path.open("rb") as f:
        return flatten(tomllib.load(f))


def languages() -> list[str]:
    """The languages with a catalogue, English first."""
    found = sorted(p.stem for p in LOCALES_DIR.glob("*.toml"))
    return [DEFAULT_LANG] + [x for x in found if x != DEFAULT_LANG]


def current_lang() -> str:
    """The session's language (the sidebar's `lang` widget), English when unset or unknown."""
    try:
        import streamlit as st
        lang = st.session_state.get("lang", DEFAULT_LANG)
    except Exception:  # no Streamlit session (plain Python, core tests): English
        return DEFAULT_LANG
    return lang if lang in languages() else DEFAULT_LANG


def text_for(lang: str, key: str, **values) -> str:
    """The string `key` in `lang` (English if missing there), placeholders filled. Pure."""
    raw = catalogue(lang).get(key)
    if raw is None:
        raw = catalogue(DEFAULT_LANG)[key]  # a key missing in English is a bug: KeyError
    return raw.format(**values)  # every string is a format string: a literal brace is {{ }}


def t(key: str, **values) -> str:
    """The string `key` in the learner's language, with {placeholders} filled from values."""
    return text_for(current_lang(), key, **values)


def prose(page: str, key: str, **values) -> str:
    """The prose section `key` of prose/<lang>/<page>.md in the learner's language (English if
    missing), with {placeholders} filled. Markdown: escape user text before passing it."""
    return _prose.section(page, key, current_lang(), **values)
