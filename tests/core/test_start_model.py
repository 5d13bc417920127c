"""Issue 25: which built-in a session opens in each language and moves to for a sentence."""
from rnnviz.store.catalog import BUILTINS, START_MODEL, model_for_text, ordered_for, start_model, text_lang


def test_start_model_per_language():
    assert start_model("zh") == "zh" and start_model("en") == START_MODEL
    assert start_model("fr") == START_MODEL


def test_text_lang():
    assert text_lang("我喜欢猫。") == "zh"
    assert text_lang("I like 猫") == "zh"
    assert text_lang("I like cats") == "en"
    assert text_lang("123 !?") is None and text_lang("") is None


def test_model_for_text_moves_only_across_scripts():
    assert model_for_text("subword", "我喜欢猫") == "zh"
    assert model_for_text("default", "我喜欢猫") == "zh"
    assert model_for_text("zh", "I like cats") == START_MODEL
    assert model_for_text("zh", "我喜欢猫") is None
    assert model_for_text("subword", "I like cats") is None
    assert model_for_text("own:mine", "我喜欢猫") is None  # an own model is never swapped
    assert model_for_text("zh", "42") is None


def test_chinese_models_first_in_zh():
    keys = list(BUILTINS) + ["own:x"]
    zh = ordered_for(keys, "zh")
    assert zh[:3] == ["zh", "zh_lstm", "zh_gru"] and zh[-1] == "own:x" and sorted(zh) == sorted(keys)
    assert ordered_for(keys, "en")[-4:-1] == ["zh", "zh_lstm", "zh_gru"]  # English keeps the catalogue's order
