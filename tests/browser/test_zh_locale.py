"""Issue 25: a first visit from a zh-CN browser (no model, no lang in the link) opens page 1 in
中文 on the Chinese model and its Chinese sentence."""
from __future__ import annotations

from rnnviz.store.catalog import BUILTINS
from tests.browser.conftest import exceptions_on, wait_ready, watch


def test_a_zh_cn_browser_opens_the_chinese_model(server, browser):
    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, locale="zh-CN")
    try:
        pg = watch(ctx.new_page())
        pg.goto(f"{server}/embedding")
        pg.wait_for_selector('[data-testid="stSidebar"] textarea', timeout=90_000)
        wait_ready(pg)
        assert not exceptions_on(pg)
        assert "model=zh" in pg.url and "lang=zh" in pg.url, pg.url
        box = pg.locator('[data-testid="stSidebar"] textarea').first
        assert box.input_value() == BUILTINS["zh"].default_sentence
        codes = pg.locator('[data-testid="stSidebar"] code').all_inner_texts()
        assert codes and not any("<unk>" in c or "<0x" in c for c in codes), codes
    finally:
        ctx.close()
