"""9 · Attention: a short path back. The learner's sentence through an RNN that also attends
over its own past hidden states: the weights, the gradient paths from L_T back to h_1 (the
recurrence against the one-hop attention path), the same over T = 10 ... 200 beside page 8,
the long-range task, what it costs, and one attention step by hand."""
from ui import session
from ui.sections import attention

session.start_page()  # the language and sidebar first, also when the page runs alone (a deep link)
attention.intro()
cur = session.current()
run = attention.read(cur)  # the current model if it has attention, else its twin
split = attention.paths_split(run)  # dL_T/dh_1 in parts: once, for the look-here line and the section
attention.look_here(run, split)
attention.weights(run)
attention.paths(run, split)
attention.lengths(run)
attention.long_range()
attention.cost(run)
attention.hand_exercise()
