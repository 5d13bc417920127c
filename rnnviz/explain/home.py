"""Small tables about a model and a sentence, for the overview and the pages."""
from __future__ import annotations

import numpy as np

from rnnviz.engine.model import RNNModel
from rnnviz.formatting import vector
from rnnviz.text.bpe import MARK
from rnnviz.text.tokenize import UNK, Vocab, clean_text


def kept_words(vocab: Vocab, typed) -> list[str]:
    """The typed tokens that reach the model, as typed: a vocabulary with <unk> keeps every
    word (unknown ones read as <unk>); one without it (the notes' 5 words) drops unknown words."""
    if UNK in vocab:
        return list(typed)
    return [w for w in typed if vocab.id_of(w) is not None]


def piece_words(pieces, text: str) -> list[str]:
    """For each subword piece, the word as the learner typed it, so the overview's "you typed"
    column reads "sat (1/2)", "sat (2/2)" instead of the pieces "▁s", "at".

    A piece that starts with the mark "▁" starts a new word (SentencePiece's convention, as
    rnnviz.subwords reads text: cleaned, one space between words). Words are matched to the
    whitespace-separated words of `text` in order, so case and letters outside the model's
    alphabet (pieces like <0xE6>) come out as typed; fewer word starts than typed words means
    the pieces were cut at MAX_TOKENS. More word starts than typed words cannot come from
    rnnviz.text.tokenize.prepare; then the pieces themselves are joined. A word of one piece has no
    "(k/n)"."""
    pieces = [str(p) for p in pieces]
    groups: list[list[int]] = []
    for i, piece in enumerate(pieces):
        if piece.startswith(MARK) or not groups:
            groups.append([])
        groups[-1].append(i)
    typed = clean_text(text).split()
    aligned = len(groups) <= len(typed)  # fewer only when the pieces were cut at MAX_TOKENS
    out = [""] * len(pieces)
    for k, g in enumerate(groups):
        word = typed[k] if aligned else "".join(pieces[i] for i in g).replace(MARK, "")
        for j, i in enumerate(g):
            out[i] = word if len(g) == 1 else f"{word} ({j + 1}/{len(g)})"
    return out


def token_table(model: RNNModel, vocab: Vocab, ids, typed=None) -> list[dict]:
    """One row per step: t (1-based), token, the word as typed (so a learner sees which word
    became <unk>; empty for a leading <bos>), id (0-based), the notes' row number, E[id].
    Without `typed` the "you typed" column is left out."""
    E = model.E.detach()
    words = kept_words(vocab, typed) if typed is not None else None
    lead = len(ids) - len(words) if words is not None else 0  # specials before the words (<bos>)
    rows = []
    for t, i in enumerate(ids):
        row = E[int(i)].tolist()
        out = {"step t": t + 1, "token": vocab.itos[int(i)]}
        if words is not None:
            out["you typed"] = words[t - lead] if 0 <= t - lead < len(words) else ""
        out.update({"id": int(i), "row of E (1-based)": int(i) + 1, "E[id]": vector(list(row), shown=6)})
        rows.append(out)
    return rows


def model_sizes(model: RNNModel) -> dict:
    cfg = model.cfg
    return {"V": cfg.vocab_size, "d": cfg.embed_dim, "H": cfg.hidden_size, "K": cfg.K,
            "params": sum(model.param_counts().values())}


def hidden_peak(h) -> dict:
    """Where |h_t| is largest: {"value": max |h|, "signed": that entry of h with its sign, "t": its
    step (0-based), "unit": its unit (0-based)}. h: (T, H) array. The overview names it in its prose."""
    h = np.asarray(h, dtype=float)  # (T, H)
    t, u = divmod(int(np.abs(h).argmax()), h.shape[1])
    return {"value": float(abs(h[t, u])), "signed": float(h[t, u]), "t": t, "unit": u}
