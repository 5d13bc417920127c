"""3 · Output and loss: softmax, cross-entropy and p - y on the current sentence and model.

Sections (ui/sections/output/), top to bottom: what to look at and the contents; 1 where the
labels come from; 2 one step written out (and, on the notes model, the notes' own example);
3 the whole sentence, sum vs mean; 4 a padded batch; 5 teacher forcing vs free generation;
6 one gradient step on the output layer; 7 the hand exercise.
"""
from ui import session
from ui.sections import output
from ui.sections.output.steps import by_step, by_step_below, fixed
from ui.widgets import StepParts

cur = session.current()
if output.intro(cur):  # a tagger predicts tags, not next tokens: the page says so and stops
    steps = StepParts()  # one step fragment: a step move reruns ...
    steps.here(by_step, cur)  # ... the step slider to the whole sentence ...
    fixed(cur)  # (a padded batch and free generation do not depend on the step)
    steps.draw(by_step_below, cur)  # ... and the gradient step
    output.by_hand()
