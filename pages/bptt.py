"""4 · BPTT and Jacobians: paths into dL/dh_t, the delta recursion, shared-weight sums, step
Jacobians and all-pairs norms, vanishing / exploding, float32's limits, gradient checking,
clipping, and the notes beside the app. J is computed once here and passed to every view."""
from ui import session
from ui.sections import bptt

bptt.intro()
cur = session.current()
J = bptt.jacobians(cur)  # (T, H, H): once per (model, sentence); no widget recomputes it
bptt.look_here(cur)
bptt.toc()
bptt.not_elman(cur)

t = bptt.step(cur)
bptt.paths(cur, t)
bptt.recursion(cur, t)
bptt.shared(cur)
bptt.notation_key(cur)
bptt.vector_chain(cur)
bptt.backward_cost(cur)

view = bptt.scale_control(cur, J)
bptt.heatmap(cur, view)
bptt.jacobian_view(cur, view, t)
bptt.chain(cur, view)

bptt.distance(cur, view)
bptt.scalar()
bptt.precision()

bptt.gradcheck_view(cur)
bptt.clipping()
bptt.notes_errata(cur)
bptt.byhand()
