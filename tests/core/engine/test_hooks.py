"""Hook points: frozen names, per-step stacking, user hooks that patch values, nothing left behind."""

import pytest
import torch

from rnnviz import RNNConfig, RNNModel


def test_hook_names_frozen():
    assert RNNModel.HOOK_NAMES == ("hook_embed", "hook_pre", "hook_hidden", "hook_pre_rev",
                                   "hook_hidden_rev", "hook_logits")


def test_cache_is_stacked_over_time_with_grads():
    model = RNNModel(RNNConfig(7, 3, 5), seed=0)
    ids = torch.tensor([1, 2, 3, 4])
    logits, cache = model.run_with_cache(ids, targets=torch.tensor([2, 3, 4, 5]))
    assert cache["hook_embed"].shape == (4, 3)
    assert cache["hook_pre"].shape == cache["hook_hidden"].shape == (4, 5)
    assert cache["hook_logits"].shape == (4, 7)
    assert cache["hook_hidden_grad"].shape == (4, 5)
    torch.testing.assert_close(cache["hook_logits"], logits)


def test_names_filter():
    model = RNNModel(RNNConfig(7, 3, 5), seed=0)
    _, cache = model.run_with_cache(torch.tensor([1, 2]), names_filter=["hook_hidden"])
    assert set(cache) == {"hook_hidden"}
    _, cache = model.run_with_cache(torch.tensor([1, 2]), names_filter=lambda n: n.endswith("pre"))
    assert set(cache) == {"hook_pre"}


def test_user_hook_zeroes_a_unit_and_the_prediction_changes():
    model = RNNModel(RNNConfig(7, 3, 5), seed=0)
    ids = torch.tensor([1, 2, 3])
    base, _ = model.run_with_cache(ids)

    def zero_unit(h, t):
        h = h.clone()
        h[..., 0] = 0
        return h

    patched, cache = model.run_with_cache(ids, hooks=[("hook_hidden", zero_unit)])
    assert torch.all(cache["hook_hidden"][:, 0] == 0)
    assert not torch.allclose(base, patched)
    again, _ = model.run_with_cache(ids)  # the hook did not outlive its call
    torch.testing.assert_close(again, base)


def hooks_left(model, ids, clean) -> list[str]:
    """What a run left behind on the model: a registered module / parameter hook, a .grad, or
    outputs (a plain call and a recording run) that differ from `clean`, the untouched model's."""
    left = [f"{name or 'model'}: {kind}" for name, module in model.named_modules()
            for kind in ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks")
            if getattr(module, kind)]
    left += [f"{name}: grad or hook" for name, p in model.named_parameters() if p.grad is not None or p._backward_hooks]
    with torch.no_grad():
        if not torch.equal(model(ids), clean):
            left.append("a plain call's logits changed")
    if not torch.equal(model.run_with_cache(ids)[0], clean):
        left.append("a recording run's logits changed")
    return left


def test_no_hook_left_after_a_run_or_an_exception():
    model = RNNModel(RNNConfig(7, 3, 5), seed=0)
    ids = torch.tensor([1, 2])
    with torch.no_grad():
        clean = model(ids)

    def boom(h, t):
        raise RuntimeError("user hook failed")

    with pytest.raises(RuntimeError):
        model.run_with_cache(ids, hooks=[("hook_hidden", boom)])
    model.run_with_cache(ids, hooks=[("hook_hidden", lambda h, t: h * 0)])
    model.run_with_cache(torch.tensor([1, 2]), targets=torch.tensor([2, 3]))
    for module in model.modules():
        assert not module._forward_hooks and not module._forward_pre_hooks
        assert not module._backward_hooks
    assert all(p.grad is None and not p._backward_hooks for p in model.parameters())
    out = model(torch.tensor([1, 2]))  # a plain call is unaffected
    assert out.shape == (2, 7)
    assert hooks_left(model, ids, clean) == []


def test_the_check_catches_a_hook_left_behind():
    """The check can fail: a hook that outlives its run (planted as a forward hook on the
    hidden hook point, as a leaky implementation would leave it) is reported, by name and by
    the changed outputs; removing it leaves nothing."""
    model = RNNModel(RNNConfig(7, 3, 5), seed=0)
    ids = torch.tensor([1, 2])
    with torch.no_grad():
        clean = model(ids)
    handle = model.hook_hidden.register_forward_hook(lambda module, args, out: out * 0)
    assert hooks_left(model, ids, clean) == ["hook_hidden: _forward_hooks", "a plain call's logits changed",
                                             "a recording run's logits changed"]
    handle.remove()
    model.run_with_cache(ids, targets=torch.tensor([2, 3]))
    model.W_h.grad = torch.zeros_like(model.W_h)  # a .grad left by a run is caught too
    assert hooks_left(model, ids, clean) == ["W_h: grad or hook"]


def test_concurrent_sessions_do_not_share_hooks():
    """Two threads run_with_cache on one shared model, each with its own hook."""
    import threading

    model = RNNModel(RNNConfig(7, 3, 5), seed=0)
    ids = torch.tensor([1, 2, 3, 4, 5, 6])
    clean, _ = model.run_with_cache(ids)
    results = {}

    def run(name, hooks):
        for _ in range(20):
            results[name] = model.run_with_cache(ids, hooks=hooks)[0]

    t1 = threading.Thread(target=run, args=("patched", [("hook_hidden", lambda h, t: h * 0)]))
    t2 = threading.Thread(target=run, args=("clean", []))
    t1.start(), t2.start(), t1.join(), t2.join()
    torch.testing.assert_close(results["clean"], clean)
    assert not torch.allclose(results["patched"], clean)


def test_a_hook_that_replaces_a_t_still_changes_h_t():
    model = RNNModel(RNNConfig(7, 3, 4), seed=2)
    ids = torch.tensor([1, 2, 3])
    _, c = model.run_with_cache(ids, hooks=[("hook_pre", lambda a, t: torch.zeros_like(a))])
    torch.testing.assert_close(c["hook_hidden"], torch.zeros(3, 4))  # tanh(0) = 0 at every step
