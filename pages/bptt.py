"""4 · BPTT and Jacobians: paths into dL/dh_t, the delta recursion, shared-weight sums, step
Jacobians and all-pairs norms, vanishing / exploding, float32's limits, gradient checking,
clipping, and the notes beside the app. J is computed once here and passed to every view."""
from ui import session
from ui.sections import bptt
from ui.sections.bptt.steps import draw

session.start_page()  # the language and sidebar first, also when the page runs alone (a deep link)
bptt.intro()
cur = session.current()
J = bptt.jacobians(cur)  # (T, H, H): once per (model, sentence); no widget recomputes it
look = bptt.look_slot()  # filled below, at the W_h scale the slider holds
bptt.toc()
bptt.not_elman(cur)

draw(cur, J, look)  # the step, its paths and recursion; shared weights ... the backward cost; the W_h scale
bptt.scalar()
bptt.precision()

bptt.gradcheck_view(cur)
bptt.clipping()
bptt.notes_errata(cur)
bptt.byhand()
