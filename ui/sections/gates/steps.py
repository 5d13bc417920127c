"""Page 8's step fragment (ui/widgets.step_view): the model choice (LSTM / GRU), the step slider
and the gates over the sentence they drive; the long-range task below does not depend on them."""
from __future__ import annotations

from ... import session
from .sentence import over_sentence
from .step import step_section


def by_step(cur: session.Current, runs: dict) -> None:
    run = step_section(cur, runs)
    over_sentence(run)
