"""5 · Slot filling: why context matters. A per-word FNN, Elman, Jordan and bidirectional RNN
taggers, and note 004's flattened FNN: their own taggers and data (the sidebar's model plays no
part here; the sidebar's sentence is one of the choices).

The sections that show the chosen sentence are one fragment in parts (ui/widgets.StepParts):
choosing another sentence redraws them, not the sections about the taggers' held-out scores."""
from ui import session
from ui.sections import slots
from ui.widgets import StepParts

cur = session.current()
setup = slots.setup(cur.lang)  # taggers, data and presets: one switch for the language
slots.intro(setup)
slots.toc()

acc = slots.heldout_accuracy(setup)
sentence = StepParts()
sentence.here(slots.sentence_parts, cur, setup, acc)  # the sentence, what to look at, the grid, the forms

slots.pair(setup)
slots.heldout(setup)
slots.right_context(setup, acc)
slots.flat_fnn(setup)
sentence.here(slots.reach, setup)  # the two FNNs' reach on the sentence
slots.shifted(setup)

sentence.draw(slots.jordan_part, setup)  # Jordan's forced tag on the sentence (its own slider)
slots.retrain(setup)
slots.by_hand()
