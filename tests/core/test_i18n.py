"""The string catalogues: every language has the same keys and placeholders as English, every
key the code asks for exists, prose falls back to English, and t() fills placeholders."""
import re
import string
from pathlib import Path

import pytest

from rnnviz.formatting import plurals
from rnnviz.store import prose as core_prose
from ui import i18n

ROOT = Path(__file__).resolve().parents[2]


def placeholders(text: str) -> set[str]:
    text = plurals(text, {})  # {n|token|tokens} is a plural choice, not a placeholder
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_english_catalogue_reads_as_flat_dotted_keys():
    en = i18n.catalogue("en")
    assert en["train.title"] == "6 · Your own data" and en["nav.bptt"] == "4 · BPTT and Jacobians"
    assert all(isinstance(v, str) for v in en.values())


@pytest.mark.parametrize("lang", i18n.languages())
def test_every_locale_has_the_keys_and_placeholders_of_english(lang):
    en, other = i18n.catalogue("en"), i18n.catalogue(lang)
    assert set(other) == set(en), sorted(set(other) ^ set(en))
    for key, text in en.items():
        assert placeholders(other[key]) == placeholders(text), key


def test_every_string_formats_with_its_own_placeholders():
    for key, text in i18n.catalogue("en").items():
        values = {name: 1 for name in placeholders(text)}
        assert isinstance(plurals(text, values).format(**values), str), key


def test_every_key_the_ui_asks_for_exists():
    """Literal t("...") keys in ui/, app.py and pages/ (f-string keys are checked by the page tests)."""
    en = i18n.catalogue("en")
    files = list((ROOT / "ui").rglob("*.py")) + list((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
    asked = {k for f in files for k in re.findall(r'\bt\("([a-z_.]+)"', f.read_text(encoding="utf-8"))}
    assert asked and not asked - set(en), sorted(asked - set(en))


def test_missing_key_falls_back_to_english(tmp_path, monkeypatch):
    (tmp_path / "en.toml").write_text('a.b = "Hello {name}"\nc = "only English"\n', encoding="utf-8")
    (tmp_path / "xx.toml").write_text('a.b = "Salut {name}"\n', encoding="utf-8")
    monkeypatch.setattr(i18n, "LOCALES_DIR", tmp_path)
    i18n.catalogue.cache_clear()
    try:
        assert i18n.languages() == ["en", "xx"]
        assert i18n.text_for("xx", "a.b", name="Ana") == "Salut Ana"
        assert i18n.text_for("xx", "c") == "only English"
        with pytest.raises(KeyError):
            i18n.text_for("xx", "nowhere")
    finally:
        i18n.catalogue.cache_clear()


def test_t_outside_a_session_is_english():
    assert i18n.current_lang() == "en"
    assert i18n.t("links.too_large", names="x") == "Ignored in the link, too large to be a number: x."


def test_prose_lives_under_prose_lang_and_falls_back_to_english():
    assert (ROOT / "prose" / "en" / "home.md").exists() and not (ROOT / "prose" / "home.md").exists()
    en = core_prose.section("home", "sizes", V=5, d=3, H=4, K=5, params=57)
    assert "V = 5" in en and "57 parameters" in en
    assert core_prose.section("home", "sizes", "zz", V=5, d=3, H=4, K=5, params=57) == en
    assert core_prose.section("home", "sizes", V=5, d=3, H=4, K=5, params=57) == en  # old call


@pytest.mark.parametrize("lang", [x for x in i18n.languages() if x != "en"])
def test_translated_prose_has_the_sections_and_placeholders_of_english(lang):
    for path in (ROOT / "prose" / "en").glob("*.md"):
        en, other = core_prose.sections(path.stem), core_prose.sections(path.stem, lang)
        for key, text in other.items():
            assert key in en and placeholders(text) == placeholders(en[key]), (path.stem, key)


def test_every_tokenizer_and_built_in_model_has_a_name_in_the_catalogue():
    """The sidebar names the tokenizer that ran and the model: a tokenizer or model added to
    the core without its catalogue entry would crash the sidebar (KeyError)."""
    from rnnviz.store.catalog import BUILTINS, TOKENIZER_LABELS
    from ui.i18n import catalogue
    en = catalogue("en")
    assert {f"tokenizer.{k}" for k in TOKENIZER_LABELS} <= en.keys()
    assert {f"origins.tok_{k}" for k in TOKENIZER_LABELS} <= en.keys()
    assert {f"origins.why_{k}" for k in TOKENIZER_LABELS} <= en.keys()
    assert {f"models.{k}.label" for k in BUILTINS} <= en.keys()


def test_a_shortened_vector_says_how_many_in_the_learners_language():
    """rnnviz.formatting.vector's English tail "… (32 in all)]" is said in Chinese on a 中文
    page (cells and prose values), and left alone in English."""
    import numpy as np
    import pandas as pd

    from rnnviz.formatting import vector
    row = vector(np.arange(32.0), shown=3)
    assert row == "[0, 1, 2, … (32 in all)]"
    assert i18n.counted(row, "zh") == "[0, 1, 2, … (共 32 个)]"
    assert i18n.counted(row, "en") == row and i18n.counted(3.5, "zh") == 3.5
    df = i18n.counted_frame(pd.DataFrame({"E[id]": [row], "id": [7]}), "zh")
    assert list(df["E[id]"]) == ["[0, 1, 2, … (共 32 个)]"] and list(df["id"]) == [7]
    assert "in all" not in i18n.text_for("zh", "fmt.in_all", n=4)
    assert i18n.counted("[1, 2]", "zh") == "[1, 2]"


def test_the_uploader_speaks_the_learners_language():
    """Streamlit's uploader words are replaced by the catalogue's in every language but English,
    as CSS strings that cannot close the string or the style block."""
    from ui import navigation

    assert navigation.uploader_css("en") == ""
    css = navigation.UPLOADER_CSS.replace("BUTTON", navigation.css_string(i18n.text_for("zh", "uploader.button")))
    assert 'content: "上传"' in css
    assert navigation.css_string('x"; } body { display: none } </style>') == "x; } body { display: none } /style"


def test_a_label_written_before_subscripts_read_as_on_paper_still_finds_its_option():
    """Links once held labels (before codes, issue 25), and labels once wrote ∂L/∂h_t where they
    now write ∂L/∂hₜ: such a link still names the same option."""
    names = [i18n.t("widgets.trace.grad_h"), i18n.t("widgets.trace.h")]
    assert names[0] == "∂L/∂hₜ"
    assert i18n.same_label("∂L/∂h_t", names) == i18n.same_label("∂L/∂hₜ", names) == names[0]
    assert i18n.same_label("∂L/∂h_s", names) is None
