"""8 · Gates: LSTM and GRU beside Elman on the learner's sentence: how far back an input still
moves the state, one gated step written out, the gates over the sentence, a long-range task
measured for the three cells, and one LSTM step by hand."""
from ui import session
from ui.sections import checkpoints, gates
from ui.sections.gates.steps import by_step
from ui.widgets import step_view

session.start_page()  # the language and sidebar first, also when the page runs alone (a deep link)
gates.intro()
cur = session.current()
runs = gates.trio(cur)  # Elman, LSTM, GRU on this sentence: traces, ||dh_s/dx_t||, horizons
if checkpoints.gates(runs):  # predict first: the reach numbers are in both sections
    gates.look_here(runs)
    gates.compare(runs)
step_view(by_step, cur, runs)  # LSTM / GRU, the step, the gates over the sentence: rerun alone
gates.unit_search(cur, runs)  # folded: page 2's search on the trio's LSTM or GRU
gates.long_range()
gates.train_one()  # in an expander: at most 18 s of training
gates.hand_exercise()
