"""Page 8's step fragment (ui/widgets.step_view): the model choice (LSTM / GRU), the step written
out and the gates over the sentence. The choice drives both; the step slider only the step written
out, a fragment of its own inside (widgets.inner_part), so a step move leaves the gates over the
sentence as drawn. The long-range task below depends on neither."""
from __future__ import annotations

from ... import session
from .sentence import over_sentence
from .step import step_section


def by_step(cur: session.Current, runs: dict) -> None:
    run = step_section(cur, runs)
    over_sentence(run)
