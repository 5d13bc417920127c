"""Small tables about a model and a sentence, for the overview and the pages."""
from __future__ import annotations

from .model import RNNModel
from .text import Vocab


def short_vector(values, shown: int = 6) -> str:
    """'[0.120, -0.450, 0.880]', cut to the first `shown` entries with '… (n in all)'."""
    head = ", ".join(f"{v:.3f}" for v in values[:shown])
    return f"[{head}]" if len(values) <= shown else f"[{head}, … ({len(values)} in all)]"


def token_table(model: RNNModel, vocab: Vocab, ids) -> list[dict]:
    """One row per step: t (1-based), token, id (0-based), the notes' row number, E[id]."""
    E = model.E.detach()
    rows = []
    for t, i in enumerate(ids):
        row = E[int(i)].tolist()
        rows.append({"step t": t + 1, "token": vocab.itos[int(i)], "id": int(i),
                     "row of E (1-based)": int(i) + 1,
                     "E[id]": short_vector(row)})
    return rows


def model_sizes(model: RNNModel) -> dict:
    cfg = model.cfg
    return {"V": cfg.vocab_size, "d": cfg.embed_dim, "H": cfg.hidden_size, "K": cfg.K,
            "params": sum(model.param_counts().values())}
