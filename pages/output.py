"""3 · Output and loss: softmax, cross-entropy and p - y on the current sentence and model.

Sections (ui/sections/output/), top to bottom: what to look at and the contents; 1 where the
labels come from; 2 one step written out (and, on the notes model, the notes' own example);
3 the whole sentence, sum vs mean; 4 a padded batch; 5 teacher forcing vs free generation;
6 one gradient step on the output layer; 7 the hand exercise.
"""
from ui import session
from ui.sections import output
from ui.sections.output.steps import draw

cur = session.current()
if output.intro(cur):  # a tagger predicts tags, not next tokens: the page says so and stops
    draw(cur)  # what to look at, 1 labels, 2 the step, 3 the sentence, 4 batch, 5 generation, 6 gradient step
    output.by_hand()
