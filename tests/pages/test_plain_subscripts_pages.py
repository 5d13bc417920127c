"""What a learner reads on every page, in English and 中文, writes its subscripts as on paper
(hₜ, Wₕ, pₖ − yₖ) wherever they can be written so: prose, captions, labels, options, table
headers and cells, and chart titles (rnnviz.formatting.plain_subscripts leaves formulas, code and what has
no Unicode subscript, such as v_c, as they are). The pages open as a first visit does."""
from __future__ import annotations

import json

import pytest

from rnnviz.formatting import plain_subscripts

from ..apptest_helpers import no_exception
from .test_zh_scan import PAGES

TEXT = ("markdown", "caption", "info", "warning", "error", "success", "title", "header", "subheader")
WIDGETS = ("selectbox", "radio", "slider", "button", "number_input", "text_input", "checkbox", "toggle",
           "expander", "tabs", "multiselect")


def chart_words(spec: dict) -> list[str]:
    """A plotly figure's titles (figure, axes, legend, colour bars) and trace names."""
    words = [trace.get("name") for trace in spec.get("data", ())]

    def titles(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "title":
                    words.append(value.get("text") if isinstance(value, dict) else value)
                titles(value)
        elif isinstance(node, list):
            for value in node:
                titles(value)

    titles(spec.get("layout", {}))
    titles([trace.get("marker", {}) for trace in spec.get("data", ())])
    titles([trace.get("colorbar", {}) for trace in spec.get("data", ())])  # a heatmap's own
    return [w for w in words if isinstance(w, str)]


def shown_words(at) -> list[tuple[str, str]]:
    """(where, text) of everything the page shows in words."""
    out = [(kind, str(e.value)) for kind in TEXT for e in getattr(at, kind)]
    for kind in WIDGETS:
        for w in getattr(at, kind):
            out.append((kind, str(getattr(w, "label", "") or "")))
            out += [(f"{kind} option", str(o)) for o in getattr(w, "options", None) or ()]
    for df in at.dataframe:
        out += [("table header", str(c)) for c in df.value.columns]
        for col in df.value.columns:  # a column reads as one paragraph: u_o stays beside v_c
            cells = [c for c in df.value[col] if isinstance(c, str)]
            out += [("table cells", "\n".join(cells))] if cells else []
    for chart in at.get("plotly_chart"):
        out += [("chart", w) for w in chart_words(json.loads(chart.proto.spec))]
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", PAGES)
def test_subscripts_read_as_written(app, page, lang):
    at = app(page, query={"lang": lang}, model=None)
    no_exception(at)
    words = shown_words(at)
    assert len(words) > 5
    assert [(where, text) for where, text in words if plain_subscripts(text) != text] == []
