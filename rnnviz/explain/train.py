"""A learner's own training corpus and model: validate and bound the text, tokenize, build a
vocabulary, make LM tensors, build the model, and run training so that it can be stopped.

Everything a learner chooses on the training page passes through here, so every bound of
`rnnviz.limits` is checked in one place and a violation is an InputError with a message
for the learner. Nothing here knows about Streamlit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from rnnviz import limits
from rnnviz.conventions import IGNORE
from rnnviz.engine.generation import Sampling, generate
from rnnviz.engine.model import CELLS, NONLINEARITIES, RNNConfig, RNNModel, sequence_loss
from rnnviz.engine.train import TrainConfig, train
from rnnviz.errors import InputError
from rnnviz.store.model_sentence import usable_default
from rnnviz.text.corpora import lm_tensors
from rnnviz.text.tokenize import BOS, EOS, SPECIALS, Vocab, decode_upload, tokenize

MIN_VOCAB = len(SPECIALS) + 1   # the four special tokens and at least one real token
SEQ_TOKENS = limits.MAX_TRAIN_T - 1  # a training sequence is <bos> + these tokens (+ <eos> target)


@dataclass(frozen=True)
class Corpus:
    """Training sequences as token lists, with what the page should tell the learner."""

    level: str                              # "word" | "char"
    sequences: tuple[tuple[str, ...], ...]  # each at most SEQ_TOKENS tokens
    first_line: str                         # the model's default sentence later
    n_lines: int                            # non-empty lines read
    n_tokens: int                           # tokens in all sequences
    notices: tuple[str, ...] = ()
    notice_items: tuple = ()  # the notices as (catalogue key, values), for another language


def read_corpus(text: str, level: str = "word") -> Corpus:
    """Pasted or decoded text -> Corpus: one line is one sentence, long lines are cut into
    pieces of SEQ_TOKENS tokens (so nothing is lost), at most MAX_UPLOAD_LINES sequences."""
    if not isinstance(text, str):
        raise InputError("The corpus must be text.", "not_text")
    if level not in ("word", "char"):
        raise InputError(f"Unknown tokenizer level {level!r}: use 'word' or 'char'.", "bad_level",
                         {"level": repr(level)})
    size = len(text.encode("utf-8"))
    if size > limits.MAX_UPLOAD_BYTES:
        raise InputError(f"The corpus is {size:,} bytes; the limit is "
                         f"{limits.MAX_UPLOAD_BYTES:,} bytes.", "corpus_too_big",
                         {"size": f"{size:,}", "max_bytes": f"{limits.MAX_UPLOAD_BYTES:,}"})
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    sequences, split_lines, first = [], 0, None
    for line in lines:
        toks = tokenize(line, level)
        if toks and first is None:
            first = line[: limits.MAX_LINE_CHARS]  # (tokenized once: a 1 MB line takes seconds)
        if len(toks) > SEQ_TOKENS:
            split_lines += 1
        sequences += [tuple(toks[i:i + SEQ_TOKENS]) for i in range(0, len(toks), SEQ_TOKENS)]
    if not sequences:
        raise InputError("The corpus is empty: paste or upload some text (one sentence per line).",
                         "corpus_empty")
    notices, items = [], []
    if split_lines:
        items.append(("lines_split", {"n": f"{split_lines:,}", "seq": SEQ_TOKENS,
                                      "max_t": limits.MAX_TRAIN_T}))
        notices.append(f"{split_lines:,} long line(s) were cut into pieces of {SEQ_TOKENS} tokens "
                       f"(the training length limit is {limits.MAX_TRAIN_T}).")
    if len(sequences) > limits.MAX_UPLOAD_LINES:
        items.append(("sequences_cut", {"kept": f"{limits.MAX_UPLOAD_LINES:,}", "n": f"{len(sequences):,}"}))
        notices.append(f"Only the first {limits.MAX_UPLOAD_LINES:,} of {len(sequences):,} "
                       "sequences are used.")
        sequences = sequences[: limits.MAX_UPLOAD_LINES]
    return Corpus(level, tuple(sequences), first, len(lines), sum(map(len, sequences)),
                  tuple(notices), tuple(items))


def read_upload(data: bytes, level: str = "word") -> Corpus:
    """An uploaded .txt file (UTF-8, at most MAX_UPLOAD_BYTES) -> Corpus."""
    return read_corpus(decode_upload(data), level)


def build_vocab(corpus: Corpus, size: int) -> Vocab:
    """The `size` most frequent tokens (specials included); the rest become <unk>."""
    if not (isinstance(size, int) and MIN_VOCAB <= size <= limits.MAX_VOCAB):
        raise InputError(f"The vocabulary size must be a whole number from {MIN_VOCAB} to "
                         f"{limits.MAX_VOCAB:,}.")
    return Vocab.build(corpus.sequences, max_size=size)


def unknown_share(corpus: Corpus, vocab: Vocab) -> float:
    """Fraction of the corpus' tokens that the vocabulary maps to <unk>."""
    unknown = sum(len(vocab.encode(list(s))[1]) for s in corpus.sequences)
    return unknown / max(1, corpus.n_tokens)


def corpus_tensors(corpus: Corpus, vocab: Vocab) -> tuple[torch.Tensor, torch.Tensor]:
    """LM inputs (N, T) and targets (N, T) with T <= MAX_TRAIN_T: <bos> w1.. -> w1.. <eos>."""
    inputs, targets = lm_tensors([list(s) for s in corpus.sequences], vocab)
    assert inputs.shape[1] <= limits.MAX_TRAIN_T
    return inputs, targets


ATTENTION_CELL = "elman_attention"  # page 6's choice: an Elman with attention (page 9)


def build_model(vocab_size: int, embed_dim: int, hidden_size: int, cell: str = "elman",
                nonlinearity: str = "tanh", seed: int = 0) -> RNNModel:
    """A fresh model from the learner's choices, every size checked against `limits`.
    cell ATTENTION_CELL: an Elman with attention over its past hidden states."""
    attention = cell == ATTENTION_CELL
    cell = "elman" if attention else cell
    if cell not in CELLS:
        raise InputError(f"The cell must be one of {', '.join(CELLS)}.")
    if nonlinearity not in NONLINEARITIES:
        raise InputError(f"The nonlinearity must be one of {', '.join(NONLINEARITIES)}.")
    for name, value, top in (("The embedding size d", embed_dim, limits.MAX_EMBED),
                             ("The hidden size H", hidden_size, limits.MAX_HIDDEN)):
        if not (isinstance(value, int) and 1 <= value <= top):
            raise InputError(f"{name} must be a whole number from 1 to {top}.")
    if not (isinstance(seed, int) and 0 <= seed < 2**31):
        raise InputError("The seed must be a whole number from 0 to 2,147,483,647.")
    cfg = RNNConfig(vocab_size=vocab_size, embed_dim=embed_dim, hidden_size=hidden_size,
                    cell=cell, nonlinearity=nonlinearity, attention=attention)
    return RNNModel(cfg, seed=seed)


def sample_text(model: RNNModel, vocab: Vocab, level: str = "word", temperature: float = 1.0,
                seed: int = 0, max_new: int = 30) -> str:
    """One sentence written by the model from <bos> (rnnviz.explain.output.generate, sampled, seeded),
    up to <eos>; words joined by spaces, characters joined directly."""
    if not all(torch.isfinite(p).all() for p in model.parameters()):
        raise InputError("The model's weights are NaN or infinite: it cannot write text.")
    eos = vocab.stoi.get(EOS)
    prefix = [vocab.stoi[BOS]] if BOS in vocab else [0]
    steps = generate(model, prefix, Sampling("sample", temperature, 0, seed, max_new), eos_id=eos)
    tokens = [vocab.itos[s.chosen] for s in steps if s.chosen != eos]
    return ("" if level == "char" else " ").join(tokens)


@dataclass
class TrainingRun:
    """One training run that a page can show live and stop at any step.

    The model is trained in place, so whatever stops the run (the learner's stop button,
    an interrupted page run, the callback returning False) leaves the model with every
    step done so far; `history` and `samples` hold what happened.
    """

    model: RNNModel
    vocab: Vocab
    corpus: Corpus
    inputs: torch.Tensor      # (N, T)
    targets: torch.Tensor     # (N, T)
    cfg: TrainConfig
    name: str = "my-model"
    sample_every: int = 0     # 0: about five checkpoints per run
    history: list = field(default_factory=list)
    samples: list = field(default_factory=list)   # (step, text)
    status: str = "ready"     # ready | running | done | stopped | diverged
    final_perplexity: float | None = None  # on the corpus, once the run has ended
    stop_reason: str = ""     # why a "stopped" run stopped: "" (Stop / a click), "time" (its wall-time cap)

    @property
    def steps_done(self) -> int:
        return len(self.history)

    def checkpoint_every(self) -> int:
        return self.sample_every or max(1, self.cfg.steps // 5)

    def sample(self, step: int) -> str:
        try:
            return sample_text(self.model, self.vocab, self.corpus.level, seed=self.cfg.seed + step)
        except InputError as err:
            return f"({err})"

    def run(self, on_step=None) -> None:
        """Train to the end, or until on_step(record, run) returns False (then 'stopped')."""
        self.status = "running"

        def callback(record):
            self.history.append(record)
            if not math.isfinite(record["loss"]):
                self.status = "diverged"  # NaN / inf: more steps cannot bring it back
                return False
            if record["step"] % self.checkpoint_every() == 0:
                self.samples.append((record["step"], self.sample(record["step"])))
            if on_step is not None and on_step(record, self) is False:
                self.status = "stopped"
                return False
            return True

        train(self.model, self.inputs, self.targets, self.cfg, callback)
        if self.status == "running":
            self.status = "done"
        self.final_perplexity = corpus_perplexity(self.model, self.inputs, self.targets)

    def finish(self, status: str | None = None) -> RNNModel:
        """The model in eval mode (also after an interruption mid-step)."""
        if status is not None:
            self.status = status
        if self.final_perplexity is None and self.history:
            self.final_perplexity = corpus_perplexity(self.model, self.inputs, self.targets)
        return self.model.eval()


def start_run(corpus: Corpus, vocab_size: int, embed_dim: int, hidden_size: int, cell: str,
              nonlinearity: str, cfg: TrainConfig, name: str = "my-model") -> TrainingRun:
    """Vocabulary, tensors and a fresh model (seeded by cfg.seed) for a run."""
    vocab = build_vocab(corpus, vocab_size)
    model = build_model(len(vocab), embed_dim, hidden_size, cell, nonlinearity, cfg.seed)
    inputs, targets = corpus_tensors(corpus, vocab)
    return TrainingRun(model, vocab, corpus, inputs, targets, cfg, clean_model_name(name))


MAX_NAME_CHARS = 40


def clean_model_name(name: str) -> str:
    """A short, printable name for the model picker (control characters dropped)."""
    kept = "".join(c for c in str(name) if c.isprintable()).strip()[:MAX_NAME_CHARS]
    if not kept:
        raise InputError("Give the model a name (up to 40 characters).")
    return kept


@torch.no_grad()
def corpus_perplexity(model: RNNModel, inputs: torch.Tensor, targets: torch.Tensor,
                      max_rows: int = 256, chunk: int = 32) -> float:
    """exp(mean cross-entropy per target token) over the first max_rows sequences.

    Chunked so that the (rows, T, V) logits stay small whatever V is."""
    total, count = 0.0, 0
    for i in range(0, min(max_rows, inputs.shape[0]), chunk):
        x, y = inputs[i:min(i + chunk, max_rows)], targets[i:min(i + chunk, max_rows)]  # (b, T)
        _, loss = sequence_loss(model(x), y, reduction="sum")
        total += float(loss)
        count += int((y != IGNORE).sum())
    return float(torch.exp(torch.tensor(total / max(1, count))))


def progress_rate(step: int, total: int, elapsed: float) -> tuple[float, float]:
    """(steps per second so far, seconds left at that rate; NaN before the first step)."""
    rate = step / elapsed if elapsed > 0 else 0.0
    eta = (total - step) / rate if rate > 0 else float("nan")
    return rate, eta


def model_meta(run: TrainingRun, name: str) -> dict:
    """What travels with the model: tokenizer level, default sentence, a description."""
    cfg = run.model.cfg
    last = run.history[-1]["loss"] if run.history else float("nan")
    return {"level": run.corpus.level, "default_sentence": run.corpus.first_line,
            "description": (f"Trained in this session on {len(run.corpus.sequences):,} "
                            f"sequences ({run.corpus.level} level), V={cfg.vocab_size}, "
                            f"d={cfg.embed_dim}, H={cfg.hidden_size}, {cfg.cell}, "
                            f"{run.steps_done} steps ({run.status}), last loss {last:.3f}."),
            "name": name}


def clean_meta(meta: dict, fallback_name: str, vocab: Vocab | None = None) -> dict:
    """Metadata read from an uploaded file, kept only as short plain strings we understand.
    With the model's vocabulary, a default sentence it cannot read is replaced by one made from
    its tokens (rnnviz/store/model_sentence.py), so that no page starts on an unreadable sentence."""
    meta = meta if isinstance(meta, dict) else {}
    level = meta.get("level", "word")
    name = "uploaded-model"
    for candidate in (fallback_name, meta.get("name")):  # the file's own name wins if usable
        try:
            name = clean_model_name(candidate or "")
        except InputError:
            pass
    out = {"level": level if level in ("word", "char") else "word", "name": name}
    for key, top in (("default_sentence", limits.MAX_LINE_CHARS), ("description", 500)):
        if isinstance(meta.get(key), str) and meta[key].strip():
            out[key] = meta[key].strip()[:top]
    if vocab is not None:
        out["default_sentence"] = usable_default(out.get("default_sentence"), vocab, out["level"])
    return out


def check_language_model(model: RNNModel, vocab: Vocab) -> None:
    """The pages read models as language models: outputs must be the vocabulary (K = V)."""
    if model.cfg.K != len(vocab):
        raise InputError(f"This model has {model.cfg.K} outputs for a vocabulary of {len(vocab)} "
                         "tokens: it is not a language model (a tagger?), so the pages cannot "
                         "show it.")


def uniform_loss(V: int) -> float:
    """ln V: the cross-entropy of a uniform guess over V tokens (the loss a fresh model starts near)."""
    return math.log(V)


def try_counts(frame, tr) -> dict:
    """On the try table (store.export.token_frame): how many steps the model's top guess is the
    target ("hits"), and how many steps have a target ("n")."""
    return {"hits": int((frame["guess"] == frame["target"]).sum()), "n": int(tr.valid.sum())}
