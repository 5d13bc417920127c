"""The objects a process starts with, kept out of Python's cyclic garbage collector's walks;
app.py calls freeze_startup_heap() once, after its imports (never on import).

With Streamlit's collection after every run switched off (`runner.postScriptGC = false`), Python's
own generational collector still runs a full collection now and then, and a full collection
walks every tracked object: PyTorch, pandas, Plotly's validators and Streamlit, 250,000 objects,
0.14-0.4 s. That was the odd slow step move (0.25-0.43 s against 0.05-0.09 s for the others, in
`bench/results/pages_s5*.json`'s times). gc.freeze() moves what exists now to a permanent
generation the collector skips; everything made later (sessions, their models, caches) is
collected as before. Frozen objects are still freed by reference counting; a frozen cycle
would stay, so the garbage is collected first."""
import gc

_frozen = [False]  # once per process


def freeze_startup_heap() -> bool:
    """Collect, then gc.freeze(), the first time in this process; True if it did."""
    if _frozen[0]:
        return False
    gc.collect()
    gc.freeze()
    _frozen[0] = True
    return True
