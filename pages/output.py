"""3 · Output and loss: softmax, cross-entropy and p - y on the current sentence and model.

Sections (ui/sections/output/), top to bottom: what to look at and the contents; 1 where the
labels come from; 2 one step written out (and, on the notes model, the notes' own example);
3 the whole sentence, sum vs mean; 4 a padded batch; 5 teacher forcing vs free generation;
6 one gradient step on the output layer; 7 the hand exercise.
"""
from ui import session
from ui.sections import checkpoints, output

cur = session.current()
if output.intro(cur):  # a tagger predicts tags, not next tokens: the page says so and stops
    t1, k = output.labels_and_step(cur)  # what to look at, 1 · labels, 2 · the step
    output.notes_example(cur)  # the notes model: the notes' own p_t, L and p - y
    output.one_step(cur, t1, k)
    if checkpoints.output(cur):  # predict first: which step has the largest loss
        output.whole_sentence(cur, t1, k)
    output.padded_batch(cur)
    output.generation(cur)
    output.gradient_step(cur, t1, k)
    output.by_hand()
