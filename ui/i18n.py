"""The learner's language for every string: t(key, **values) and prose(page, key, **values).

Strings live in locales/<lang>.toml (the app shell) and locales/<lang>/<page>.toml (one file per
page, so pages are written and translated apart) under flat dotted keys ("bptt.title");
values fill Python str.format placeholders ("{T} tokens"). Longer explanations live in
prose/<lang>/<page>.md (read by rnnviz.prose). A key missing in a language falls back to English,
so a half-translated catalogue still shows every string. The language is the sidebar's
`lang` widget, bound to the URL (?lang=zh); English by default.
"""
from __future__ import annotations

import functools
import re
import tomllib
from pathlib import Path

from rnnviz.formatting import plain_subscripts, plurals
from rnnviz.store import prose as _prose

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


def catalogue_files(lang: str) -> list[Path]:
    """locales/<lang>.toml and every locales/<lang>/*.toml, in a fixed order."""
    files = [LOCALES_DIR / f"{lang}.toml"] + sorted((LOCALES_DIR / lang).glob("*.toml"))
    return [p for p in files if p.exists()]


@functools.lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    """Every string of one language ({} if it has no file). A key defined twice is a bug."""
    merged: dict[str, str] = {}
    for path in catalogue_files(lang):
        with path.open("rb") as f:
            part = flatten(tomllib.load(f))
        twice = merged.keys() & part.keys()
        if twice:
            raise ValueError(f"{path.name} defines keys already defined: {sorted(twice)[:5]}")
        merged |= part
    return merged


def languages() -> list[str]:
    """The languages with a catalogue, English first (the folder is read once per process: t()
    asks on every call)."""
    return list(_languages_in(LOCALES_DIR))


@functools.lru_cache(maxsize=None)
def _languages_in(folder: Path) -> tuple[str, ...]:
    found = {p.stem for p in folder.glob("*.toml")} | {p.name for p in folder.iterdir() if p.is_dir()}
    return (DEFAULT_LANG, *sorted(x for x in found if x != DEFAULT_LANG))


def lang_from_locale(locale: str | None) -> str:
    """The interface language for a browser locale ("zh-CN", "zh_TW", "en-US"): its first part
    when a catalogue exists for it, English otherwise. Pure."""
    base = str(locale or "").replace("_", "-").split("-")[0].strip().lower()
    return base if base in languages() else DEFAULT_LANG


def first_visit_lang() -> str:
    """Before any widget: the language the sidebar's switch starts on. The link's ?lang= when it
    names a language, else the browser's (st.context.locale) on the first visit; once the
    switch exists, its value."""
    import streamlit as st
    if "lang" not in st.session_state:
        asked = st.query_params.get("lang")
        if asked not in languages():
            asked = lang_from_locale(getattr(st.context, "locale", None))
            if "lang" in st.query_params:
                del st.query_params["lang"]  # a link's unknown language: the sidebar says nothing
        st.session_state["lang"] = asked  # the bound switch shows it (and keeps it in the URL)
    return current_lang()


def current_lang() -> str:
    """The session's language (the sidebar's `lang` widget), English when unset or unknown."""
    try:
        import streamlit as st
        lang = st.session_state.get("lang", DEFAULT_LANG)
    except Exception:  # no Streamlit session (plain Python, core tests): English
        return DEFAULT_LANG
    return lang if lang in languages() else DEFAULT_LANG


def same_label(label: str, names) -> str | None:
    """The one of `names` (labels in the learner's language) that says what `label` says in any
    language: `label` itself, or the catalogue string with the same key. None when none does."""
    names = list(names)
    if label in names:
        return label
    alike = {label, plain_subscripts(label)}  # a link written before labels read hₜ, not h_t
    for lang in languages():
        for key, value in catalogue(lang).items():
            if value in alike:
                try:
                    mine = t(key)
                except (KeyError, IndexError, ValueError):
                    continue
                if mine in names:
                    return mine
    return None


def has(key: str) -> bool:
    """Whether the English catalogue defines `key` (models added later may have no entry yet)."""
    return key in catalogue(DEFAULT_LANG)


def error_text(err: Exception) -> str:
    """An InputError in the learner's language: its catalogue key ("errors.<key>") when it has
    one, else its English message."""
    key = getattr(err, "key", "")
    if key and has(f"errors.{key}"):
        try:
            return t(f"errors.{key}", **getattr(err, "values", {}))
        except (KeyError, IndexError, ValueError):
            pass
    return str(err)


# rnnviz.formatting.vector ends a shortened row with "… (32 in all)]" (English: the core knows
# no language); shown in another language, that tail is said in it (key fmt.in_all).
_IN_ALL = re.compile(r"… \((\d+) in all\)\]")


def counted(text, lang: str):
    """`text` with every "… (n in all)]" tail of a shortened vector in `lang`; anything that is
    not a string, and any English text, comes back unchanged. Pure."""
    if lang == DEFAULT_LANG or not isinstance(text, str) or " in all)]" not in text:
        return text
    return _IN_ALL.sub(lambda m: "… (" + text_for(lang, "fmt.in_all", n=m.group(1)) + ")]", text)


def counted_frame(df, lang: str | None = None):
    """A table's string cells with counted(): the vector columns of a dataframe."""
    lang = lang or current_lang()
    if lang == DEFAULT_LANG:
        return df
    out = None
    for j, dtype in enumerate(df.dtypes):
        if dtype.kind in "biufcmM":  # numbers: no text
            continue
        cells = df.iloc[:, j].tolist()
        if not any(isinstance(v, str) and " in all)]" in v for v in cells):
            continue
        if out is None:  # (pandas' apply, or one object array of the text columns, was a quarter
            out = df.copy(deep=False)  # of a page-1 step move in 中文: plain lists per column)
        out.isetitem(j, [counted(v, lang) for v in cells])
    return df if out is None else out


def text_for(lang: str, key: str, **values) -> str:
    """The string `key` in `lang` (English if missing there), placeholders filled. Pure."""
    raw = catalogue(lang).get(key)
    if raw is None:
        raw = catalogue(DEFAULT_LANG)[key]  # a key missing in English is a bug: KeyError
    if lang != DEFAULT_LANG:
        values = {k: counted(v, lang) for k, v in values.items()}
    return plurals(raw, values).format(**values)  # a format string: a literal brace is {{ }}


def t(key: str, **values) -> str:
    """The string `key` in the learner's language, with {placeholders} filled from values."""
    return text_for(current_lang(), key, **values)


def prose(page: str, key: str, **values) -> str:
    """The prose section `key` of prose/<lang>/<page>.md in the learner's language (English if
    missing), with {placeholders} filled. Markdown: escape user text before passing it."""
    lang = current_lang()
    if lang != DEFAULT_LANG:
        values = {k: counted(v, lang) for k, v in values.items()}
    return _prose.section(page, key, lang, **values)
