"""7 · Where embeddings come from: Word2Vec trained in front of the learner (the window, one
pair's loss and gradient step, training, neighbours, beside the RNN's E) and subwords (BPE
merge by merge, a word split at merge k, four tokenizers compared on held-out text)."""
from ui import session
from ui.sections import origins
from ui.widgets import StepParts

session.start_page()  # the language and sidebar first, also when the page runs alone (a deep link)
origins.intro()
cur = session.current()
origins.look_here(cur)
origins.toc()

# Word2Vec (note 004): an embedding matrix learned without any RNN
steps = StepParts()  # one step fragment: a move of the centre word reruns its three parts
radius, words = origins.window(cur, steps)  # the centre slider and its window: parts 1 and 2
src = origins.source(cur)
pc = origins.pairs(src, radius)
cfg = origins.settings(pc)
run = origins.kept_run()
steps.draw(origins.one_pair, words, radius, pc, cfg, run)  # the last part: one pair's SGD step
origins.pair_exercise()
origins.train(pc, cfg, src[0])
origins.checkpoints(run, words)
origins.beside_e(run, cur)

# Subwords (note 004): byte-pair encoding and three other ways to cut text
origins.merges_and_split(origins.subword_table())  # one fragment: merge k and the typed word
origins.compare()
origins.current_tokenizer(cur)
