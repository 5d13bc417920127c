"""Link values: only values bound to number widgets are checked for overflow; text parameters
("?glossary_q=infinity") are words and stay (issue 22, R9)."""
from __future__ import annotations

import ast

from rnnviz.serve.links import TEXT_PARAMS, overflowing, overflowing_params
from tests.conftest import ROOT


def bound_text_widget_keys() -> tuple[set[str], list[str]]:
    """Keys of text_input / text_area calls in ui/, pages/ and app.py that bind to the URL
    (bind=... or **BIND), and the places whose key is not a plain string."""
    keys, unknown = set(), []
    files = [*(ROOT / "ui").rglob("*.py"), *(ROOT / "pages").rglob("*.py"), ROOT / "app.py"]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("text_input", "text_area")):
                continue
            if not any(k.arg in ("bind", None) for k in node.keywords):
                continue
            key = [k.value for k in node.keywords if k.arg == "key"]
            if key and isinstance(key[0], ast.Constant):
                keys.add(key[0].value)
            else:
                unknown.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return keys, unknown


def test_every_url_bound_text_widget_is_a_text_param():
    keys, unknown = bound_text_widget_keys()
    assert not unknown, unknown
    assert "glossary_q" in keys and "text" in keys
    assert keys <= TEXT_PARAMS, keys - TEXT_PARAMS


def test_text_params_are_never_checked_as_numbers():
    params = {"glossary_q": ["infinity"], "text": ["1e309"], "emb_order_a": ["-Infinity"],
              "train_steps": ["1e309"], "train_H": ["-inf"], "train_d": ["7"], "hid_wx": ["NaN"]}
    assert overflowing_params(params) == ["train_steps", "train_H"]
    assert overflowing(["infinity"]) and overflowing(["1e309"]) and not overflowing(["nan", "x"])


def test_parse_cell_reads_a_cell_and_says_what_is_wrong():
    from rnnviz.serve.links import parse_cell
    box = ((1, 9), (1, 9))
    assert parse_cell("6,2", box) == ([6, 2], None)
    assert parse_cell(" 6 ，2 ", box) == ([6, 2], None)  # spaces and a full-width comma
    assert parse_cell("3", ((1, 16), (1, 9)), least=1) == ([3], None)  # unit=k alone
    assert parse_cell("3,4", ((1, 16), (1, 9)), least=1) == ([3, 4], None)
    for bad in ("", "6", "6,2,1", "six,2", "6.5,2", "1e3,2", "6;2", "9999999999,2"):
        values, problem = parse_cell(bad, box)
        assert values is None and problem["kind"] == "format", bad
    values, problem = parse_cell("99,0", box)
    assert values == [9, 1] and problem == {"kind": "range", "value": "99,0", "fixed": "9,1"}
    values, problem = parse_cell("-3,2", box)
    assert values == [1, 2] and problem["kind"] == "range"
    long = "1," + "2" * 300
    assert parse_cell(long, box)[1]["kind"] == "format" and len(parse_cell(long, box)[1]["value"]) <= 41


def test_share_url_keeps_a_cell_readable_and_round_trips():
    from urllib.parse import parse_qs, urlparse

    from rnnviz.serve.links import share_url
    url = share_url("http://x/bptt", {"cell": ["6,2"], "text": ["Hello, world & more"]})
    assert "cell=6,2" in url
    assert parse_qs(urlparse(url).query) == {"cell": ["6,2"], "text": ["Hello, world & more"]}
