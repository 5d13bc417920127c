"""Independent oracles shared by the core tests."""
import torch


def torch_rnn_like(model, hh_share: float = 0.0) -> torch.nn.RNN:
    """torch.nn.RNN (batch_first) carrying an Elman RNNModel's weights.

    b_h = bias_ih + bias_hh: hh_share of b_h goes to bias_hh, the rest to bias_ih, so a test
    can prove that only the sum matters.
    """
    cfg = model.cfg
    rnn = torch.nn.RNN(cfg.embed_dim, cfg.hidden_size, nonlinearity=cfg.nonlinearity,
                       bidirectional=cfg.bidirectional, batch_first=True).to(model.W_x.dtype)
    directions = [("", "")] + ([("_reverse", "_rev")] if cfg.bidirectional else [])
    with torch.no_grad():
        for theirs, ours in directions:
            getattr(rnn, "weight_ih_l0" + theirs).copy_(getattr(model, "W_x" + ours))
            getattr(rnn, "weight_hh_l0" + theirs).copy_(getattr(model, "W_h" + ours))
            b_h = getattr(model, "b_h" + ours)
            getattr(rnn, "bias_ih_l0" + theirs).copy_(b_h * (1 - hh_share))
            getattr(rnn, "bias_hh_l0" + theirs).copy_(b_h * hh_share)
    return rnn
