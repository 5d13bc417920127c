"""Page 7 sections: Word2Vec (window, one pair, training, what it learned, beside E) and
subwords (BPE merges, a word split at merge k, four tokenizers compared)."""
from .intro import intro, look_here, toc
from .pair import one_pair, pair_exercise
from .subwords import compare, current_tokenizer, merges, merges_and_split, split, subword_table
from .training import beside_e, checkpoints, kept_run, pairs, settings, source, train
from .window import window

__all__ = ["intro", "look_here", "toc", "window", "source", "pairs", "settings", "one_pair",
           "pair_exercise", "train", "kept_run", "checkpoints", "beside_e", "merges_and_split", "merges",
           "split", "compare", "current_tokenizer", "subword_table"]
