"""5 · Slot filling: why context matters. A per-word FNN, Elman, Jordan and bidirectional RNN
taggers, and note 004's flattened FNN: their own taggers and data (the sidebar's model plays no
part here; the sidebar's sentence is one of the choices)."""
from ui import session
from ui.sections import slots

cur = session.current()
setup = slots.setup(cur.lang)  # taggers, data and presets: one switch for the language
slots.intro(setup)
slots.toc()

sentence, tagged = slots.choose(cur, setup)
acc = slots.heldout_accuracy(setup)
slots.look(tagged, (acc["fnn"], acc["bi"]))
slots.grid(tagged)
slots.form(tagged, setup)

slots.pair(setup)
slots.heldout(setup)
slots.right_context(setup, acc)
slots.flat_fnn(setup, sentence)

slots.jordan_risk(setup, sentence, next(iter(tagged.values())).tokens)
slots.retrain(setup)
slots.by_hand()
