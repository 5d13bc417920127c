"""Backpropagation through time, made visible: step Jacobians, all-pairs Jacobian norms,
gradient flow from each loss to each step, and the notes' hand BPTT recursion.

Time is 0-based in code: J[t] = dh_t/dh_{t-1}, with h_{-1} the zero initial state
(the screen calls it J_{t+1} = dh_{t+1}/dh_t, t = 1..T). For a bidirectional
model everything here is about the forward direction (the first H units).
"""
from __future__ import annotations

import torch

from rnnviz import limits
from rnnviz.engine.cells import GATED
from rnnviz.engine.finite import norm2
from rnnviz.engine.model import RNNModel, activation_slope
from rnnviz.engine.trace import Trace
from rnnviz.errors import InputError

SPECTRAL_TOL = 1e-6  # relative accuracy of every spectral norm (certified, see spectral_norms)


def output_error(tr: Trace) -> torch.Tensor:
    """dL_t/dz_t through the output only: (p_t - y_t), scaled for a mean, 0 where ignored. (T, K)"""
    valid = tr.valid
    y = torch.zeros_like(tr.p)
    y[valid, tr.targets[valid]] = 1.0
    err = (tr.p - y) * valid[:, None]
    if tr.reduction == "mean":
        err = err / valid.sum().clamp(min=1)
    return err


def step_jacobians(model: RNNModel, tr: Trace) -> torch.Tensor:
    """J[t] = dh_t/dh_{t-1}, (T, H, H).

    Elman: diag(phi'(a_t)) W_h. Jordan: h_{t-1} reaches a_t through y_{t-1} =
    softmax(W_o h_{t-1} + b_o), so J[t] = diag(phi'(a_t)) W_y (diag(p) - p p^T) W_o,
    and J[0] = 0 (y_0 is a constant zero, not computed from h_0).
    """
    if model.cfg.cell in GATED:  # GRU (T, H, H), LSTM on [h; c] (T, 2H, 2H)
        return gated_step_jacobians(model, tr)
    H = model.cfg.hidden_size
    with torch.no_grad():
        slope = activation_slope(tr.a[:, :H], model.cfg.nonlinearity)  # (T, H)
        if model.cfg.cell == "elman":
            return slope[:, :, None] * model.W_h[None]  # (T, H, H)
        p_prev = torch.cat([torch.zeros_like(tr.p[:1]), tr.p[:-1]])  # (T, K), row 0 unused
        soft = torch.diag_embed(p_prev) - p_prev[:, :, None] * p_prev[:, None, :]  # (T, K, K)
        J = slope[:, :, None] * (model.W_y @ soft @ model.W_o[:, :H])  # (T, H, H)
        J[0] = 0
        return J


def jacobian_norms(model: RNNModel, tr: Trace, ord="fro", progress=None, start: int = 0) -> torch.Tensor:
    """N[s, t] = ||dh_s/dh_t|| for t <= s (diagonal ||I||, above it NaN), float64, (T, T).

    ord: "fro" (exact) or 2 (spectral, each within a certified relative SPECTRAL_TOL of
    the exact value; inf / NaN Jacobians give inf / NaN). progress(done, total) is called
    after each step. start: only steps start..T-1 (a jacwindow.Window), (T - start, T - start):
    the block [start:, start:] of the full matrix (its products use only the window's J).
    """
    if ord not in ("fro", 2):
        raise ValueError("ord must be 'fro' or 2")
    if tr.T > limits.MAX_JACOBIAN_T:
        raise InputError(f"The all-pairs Jacobian norms take up to {limits.MAX_JACOBIAN_T} "
                         f"steps; this sentence has {tr.T}.")
    return product_norms(step_jacobians(model, tr)[start:], ord, progress)


def backward_jacobian_norms(model: RNNModel, tr: Trace, ord="fro", progress=None,
                            start: int = 0) -> torch.Tensor:
    """The backward (right-to-left) direction of a bidirectional model: N[s, t] =
    ||dh<-_s/dh<-_t|| for t >= s (the backward state at s has read t first), NaN below the
    diagonal, (T, T). Its steps are J<-[t] = dh<-_t/dh<-_{t+1} = diag(phi'(a<-_t)) W_h_rev,
    multiplied in its own reading order by the same engine as jacobian_norms.
    start: only sentence positions start..T-1 (the same window as the forward map), the block
    [start:, start:] of the full matrix: a product between two positions of the window uses
    only the window's steps."""
    if not model.cfg.bidirectional:
        raise ValueError("only a bidirectional model has a backward direction")
    if ord not in ("fro", 2):
        raise ValueError("ord must be 'fro' or 2")
    if tr.T > limits.MAX_JACOBIAN_T:
        raise InputError(f"The all-pairs Jacobian norms take up to {limits.MAX_JACOBIAN_T} "
                         f"steps; this sentence has {tr.T}.")
    H = model.cfg.hidden_size
    with torch.no_grad():
        slope = activation_slope(tr.a[start:, H:], model.cfg.nonlinearity)  # (w, H) backward half
        J = slope[:, :, None] * model.W_h_rev[None]  # (w, H, H): J<-[t] = dh<-_t/dh<-_{t+1}
    N = product_norms(torch.flip(J, (0,)), ord, progress)  # in reading order T-1 .. start
    return torch.flip(N, (0, 1))  # back to sentence positions


def product_norms(J: torch.Tensor, ord="fro", progress=None, tol: float = SPECTRAL_TOL) -> torch.Tensor:
    """All-pairs norms of the products P_{s,t} = J[s] J[s-1] ... J[t+1] (P_{t,t} = I). (T, T)

    Why it is fast: the transposed products of every start t sit stacked in one
    (s*H, H) matrix, so stepping s -> s+1 is ONE large matrix product
    [P_{s,0}^T; ...; P_{s,s}^T] @ J[s+1]^T, never one autograd call per pair.
    Memory is two (T*H, H) buffers: O(T H^2), worked through in pieces of _CACHE_BYTES.
    A block whose Frobenius norm leaves [1e-100, 1e100]
    is rescaled and its log-scale kept, so float64 reports inf / 0 only when the true
    norm is beyond float64. Spectral norms (ord=2) are certified: each is within a relative
    `tol` of the true ||P||_2 (see spectral_norms), never a silent wrong value; a product
    with inf / NaN entries gives inf / NaN, as the Frobenius path does.
    """
    J = J.detach().to(torch.float64)  # (T, H, H)
    T, H = J.shape[0], J.shape[1]
    Jt = J.transpose(1, 2).contiguous()  # (T, H, H): J[s]^T, laid out for the GEMM
    eye = torch.eye(H, dtype=torch.float64)
    out = torch.full((T, T), float("nan"), dtype=torch.float64)
    out.diagonal().fill_(1.0 if ord == 2 else H ** 0.5)
    cur, nxt = torch.empty(T * H, H, dtype=torch.float64), torch.empty(T * H, H, dtype=torch.float64)
    cur[:H] = eye  # block t holds P_{s,t}^T, (H, H)
    log_scale = torch.zeros(T, dtype=torch.float64)  # P_{s,t} = exp(log_scale[t]) * block t
    scaled = False  # has any block been rescaled? (if not, skip the log / exp)
    k = min(H, _RITZ_VECTORS if H < 128 else 2 * _RITZ_VECTORS)  # wider H: more mass to capture
    gen = torch.Generator().manual_seed(0)
    vecs = torch.linalg.qr(torch.randn(T, H, k, dtype=torch.float64, generator=gen)).Q  # (T, H, k)
    chunk = max(1, _CACHE_BYTES // (H * H * 8))  # blocks per piece
    if progress is not None:
        progress(1, T)
    for s in range(1, T):
        if ord == 2:
            # the top left singular vectors of P_{s,t} move with J[s]: u_new ~ J[s] u (warm start)
            vecs[:s] = torch.nan_to_num(torch.matmul(J[s], vecs[:s]), nan=0.0, posinf=0.0, neginf=0.0)
        for a in range(0, s, chunk):
            b = min(s, a + chunk)
            piece = nxt[a * H:b * H]  # (n*H, H): the product, then its norms
            torch.mm(cur[a * H:b * H], Jt[s], out=piece)
            blocks = piece.view(b - a, H, H)  # (n, H, H)
            size = _finite_fro(blocks, torch.linalg.vector_norm(blocks, dim=(1, 2)))  # (n,)
            scaled |= _rescale(blocks, size, log_scale[a:b])
            if ord == 2:
                size, vecs[a:b] = spectral_norms(blocks, vecs[a:b], tol, fro=size)
            out[s, a:b] = torch.exp(torch.log(size) + log_scale[a:b]) if scaled else size
        nxt[s * H:(s + 1) * H] = eye
        cur, nxt = nxt, cur
        if progress is not None:
            progress(s + 1, T)
    return out


_CACHE_BYTES = 1 << 24  # bytes per piece: large GEMMs, few Python round trips (measured)
_RITZ_VECTORS = 4  # block size of the power iteration (measured fastest at H = 64; 8 from H = 128)


def _finite_fro(blocks, size):
    """Frobenius norms, recomputed with scaling where the sum of squares overflowed although
    every entry is finite (entries above ~1e154): the norm is then finite, not inf. (n,)"""
    over = torch.isinf(size)
    if not bool(over.any()):
        return size
    idx = over.nonzero().squeeze(1)
    top = blocks[idx].abs().amax(dim=(1, 2))  # (m,) inf where an entry is inf
    ok = torch.isfinite(top)
    idx, top = idx[ok], top[ok]
    size[idx] = top * torch.linalg.vector_norm(blocks[idx] / top[:, None, None], dim=(1, 2))
    return size


def _rescale(blocks, size, log_scale, lo: float = 1e-100, hi: float = 1e100) -> bool:
    """Divide blocks whose Frobenius norm left [lo, hi] by that norm (in place), log kept.
    Returns whether any block was rescaled."""
    if not bool(((size > hi) | (size < lo)).any()):
        return False
    bad = ((size > hi) | (size < lo)) & (size > 0) & torch.isfinite(size)
    idx = bad.nonzero().squeeze(1)
    blocks[idx] /= size[idx, None, None]
    log_scale[idx] += torch.log(size[idx])
    size[idx] = 1.0
    return bool(idx.numel())


def spectral_bracket(Q: torch.Tensor, V: torch.Tensor, fro: torch.Tensor | None = None):
    """Certified bounds lo <= ||Q_i||_2 <= hi for a batch (n, H, H), from k orthonormal
    vectors per matrix (V (n, H, k)), with no SVD. Also returns A V (n, H, k), A = Q^T Q,
    and "flat" (n,): the mass outside span(V) exceeds the top Ritz value, so k vectors
    cannot close the bracket soon (a short product with a flat spectrum).

    Why it is certified (A is positive semidefinite, trace A = ||Q||_F^2): in the basis
    [V, V_perp], A = [[B, C], [C^T, D]]. The top Ritz value theta = lambda_max(B) is a lower
    bound for sigma_1^2. For the upper bound, x^T A x <= theta |x1|^2 + d |x2|^2 + 2 r |x1||x2|
    with d = trace D = ||Q||_F^2 - trace B >= lambda_max(D) and r = ||C|| <= ||A V - V B||_F,
    so sigma_1^2 <= lambda_max([[theta, r], [r, d]]). It is tight when V holds the dominant
    directions (small residual r, small leftover mass d), and never wrong when it does not
    (a dead ReLU unit that revives makes d large: the bracket is then wide, not false).
    """
    fro = torch.linalg.vector_norm(Q, dim=(1, 2)) if fro is None else fro  # (n,)
    W = torch.bmm(Q, V)  # (n, H, k)
    B = W.transpose(1, 2) @ W  # (n, k, k) = V^T A V
    theta_all = _ritz_values(B)  # (n, k) ascending
    theta = theta_all[:, -1].clamp(min=0)  # (n,)
    Y = torch.bmm(Q.transpose(1, 2), W)  # (n, H, k) = A V
    R = Y - V @ B  # (n, H, k): the part of A V outside span(V) (= C in the basis above)
    r = torch.linalg.vector_norm(R, dim=(1, 2))  # (n,)
    d = (fro ** 2 - theta_all.clamp(min=0).sum(1)).clamp(min=0)  # (n,) leftover mass
    half = (theta + d) / 2
    top = half + torch.sqrt(((theta - d) / 2) ** 2 + r ** 2)  # (n,) >= sigma_1^2
    hi = torch.minimum(top.sqrt(), fro)  # the Frobenius norm is an upper bound too
    return theta.sqrt(), hi, Y, d > theta


def _ritz_values(B: torch.Tensor) -> torch.Tensor:
    """Eigenvalues (ascending) of a batch of small symmetric matrices (n, k, k); k <= 2 in
    closed form (a batched LAPACK call per 2 x 2 costs more than the products around it)."""
    k = B.shape[1]
    if k == 1:
        return B[:, :, 0]  # (n, 1)
    if k == 2:
        p, q, b = B[:, 0, 0], B[:, 1, 1], B[:, 0, 1]  # (n,)
        mid, rad = (p + q) / 2, torch.hypot((p - q) / 2, b)
        return torch.stack([mid - rad, mid + rad], 1)  # (n, 2)
    return torch.linalg.eigvalsh(B)


def _orthonormal(V: torch.Tensor) -> torch.Tensor:
    """Orthonormal columns spanning V (n, H, k): Householder QR (orthonormal even for a zero V);
    for k = 1 a plain normalisation, with a fixed unit vector where V is 0 or not finite."""
    if V.shape[2] > 1:
        return torch.linalg.qr(V).Q
    size = torch.linalg.vector_norm(V, dim=1, keepdim=True)  # (n, 1, 1)
    good = (size > 0) & torch.isfinite(size)
    fallback = torch.full_like(V, V.shape[1] ** -0.5)
    return torch.where(good, V / torch.where(good, size, torch.ones_like(size)), fallback)


def spectral_norms(Q: torch.Tensor, V: torch.Tensor, tol: float = SPECTRAL_TOL, max_iter: int = 3,
                   fro: torch.Tensor | None = None):
    """||Q_i||_2 for a batch (n, H, H), each certified to a relative `tol`.

    Block power iteration on A = Q^T Q with k warm-started vectors (V (n, H, k)) until the
    certified bracket of spectral_bracket is narrower than tol; a matrix whose bracket is
    still wide after max_iter rounds (short, fresh products; a ReLU product whose dominant
    direction has just revived), or whose leftover mass shows that k vectors cannot close
    it soon, gets the exact value: the top eigenvalue of Q^T Q in float64 (relative error
    about H x 1e-16, far inside tol; cheaper than an SVD). Zero matrices give 0; matrices
    with inf / NaN give their Frobenius norm (inf / NaN), as the Frobenius path does.
    Returns (norms (n,), new V).
    """
    n = Q.shape[0]
    fro = torch.linalg.vector_norm(Q, dim=(1, 2)) if fro is None else fro  # (n,)
    norms = fro.clone()  # zero, inf and NaN blocks keep their Frobenius value
    V = V.clone()
    active = (torch.isfinite(fro) & (fro > 0)).nonzero().squeeze(1)
    if active.numel():
        V[active] = _orthonormal(V[active])  # orthonormal columns: the bounds need them
    exact = []  # blocks for the exact fallback
    for it in range(max_iter + 1):
        if active.numel() == 0:
            break
        Qa = Q if active.numel() == n else Q[active]  # (m, H, H)
        lo, hi, Y, flat = spectral_bracket(Qa, V[active], fro[active])
        done = hi <= lo * (1 + tol)
        norms[active] = torch.sqrt(lo * hi)  # within tol of the truth where done
        give_up = ~done & (flat | (it == max_iter))
        exact.append(active[give_up])
        keep = ~done & ~give_up
        V[active[keep]] = _orthonormal(Y[keep])
        active = active[keep]
    exact = torch.cat(exact) if exact else active
    if exact.numel():
        Qe = Q[exact]  # (m, H, H), Frobenius norm in [1e-100, 1e100]: the Gram matrix fits float64
        top = torch.linalg.eigvalsh(Qe.transpose(1, 2) @ Qe)[:, -1]  # (m,) sigma_1^2, to ~H eps
        norms[exact] = top.clamp(min=0).sqrt()
    return norms, V


def product_chain(J: torch.Tensor, s: int, t: int) -> dict:
    """The chain behind one cell (t < s, 0-based): each factor J[k] for k = t+1..s with its
    spectral norm, and the running product's norms ||J[k] ... J[t+1]|| (fro and spectral).
    Exact at any distance (S^3 work per factor: one product, one symmetric eigenvalue
    problem; see exact_norm2)."""
    J = J.detach().to(torch.float64)
    H = J.shape[1]
    P = torch.eye(H, dtype=torch.float64)
    factors = exact_norm2(J[t + 1:s + 1]).tolist() if s > t else []  # (s - t,) in one batch
    rows = []
    for k, factor in zip(range(t + 1, s + 1), factors):
        P = J[k] @ P  # (H, H)
        rows.append({"k": k, "factor_norm_2": factor,
                     "product_norm_2": float(exact_norm2(P[None])[0]),
                     "product_norm_fro": float(torch.linalg.matrix_norm(P))})
    return {"rows": rows, "product": P}


def exact_norm2(M: torch.Tensor) -> torch.Tensor:
    """||M_i||_2 of a batch (n, H, H) in float64, about 3x cheaper than an SVD: each matrix is
    divided by its largest |entry| a (so its Gram matrix neither overflows nor underflows:
    sigma_1(M / a) >= 1), and sigma_1 = a sqrt(lambda_max(Q^T Q)), Q = M / a, from the
    symmetric eigensolver (relative error about H^2 x 1e-16). Zero matrices give 0; inf / NaN
    entries give NaN (as norm2)."""
    M = M.detach().to(torch.float64)
    finite = torch.isfinite(M).all(dim=(1, 2))  # (n,)
    a = M.abs().amax(dim=(1, 2))  # (n,)
    out = torch.where(finite, torch.zeros_like(a), torch.full_like(a, float("nan")))
    ok = finite & (a > 0)
    if bool(ok.any()):
        Q = M[ok] / a[ok, None, None]  # (m, H, H), largest |entry| 1
        top = torch.linalg.eigvalsh(Q.transpose(1, 2) @ Q)[:, -1].clamp(min=0)  # (m,)
        out[ok] = a[ok] * top.sqrt()
    return out


def loss_to_state_grads(model: RNNModel, tr: Trace, J: torch.Tensor | None = None) -> torch.Tensor:
    """G[s, t] = dL_s/dh_t as vectors, (T, T, H); zero for t > s (no path back in time).

    Summing over s gives the total dL/dh_t of a unidirectional model (tr.grad_h).
    One step back for every loss at once: G[:, t-1] = G[:, t] @ J[t] (row form of J_t^T g), over
    the recurrent state of size S (H for Elman, Jordan and GRU; [h; c], 2H, for the LSTM, whose
    c_t is held as a hook on h_t sees it). The loss enters only through h, the first H entries.
    J: step_jacobians(model, tr) if the caller has it already (a page computes it once).
    """
    H = model.cfg.hidden_size
    J = step_jacobians(model, tr) if J is None else J  # (T, S, S)
    T, S = tr.T, J.shape[1]
    direct = output_error(tr) @ model.W_o[:, :H].detach()  # (T, H): W_o^T e_s, as rows
    G = torch.zeros(T, T, S, dtype=direct.dtype)
    for t in range(T - 1, -1, -1):
        if t < T - 1:
            G[t + 1:, t] = G[t + 1:, t + 1] @ J[t + 1].to(direct.dtype)  # (T-t-1, S)
        G[t, t, :H] = direct[t]
    return G[..., :H]


def state_grad_sources(G: torch.Tensor, tr: Trace, t: int) -> dict:
    """Where dL/dh_t comes from, counting only losses that exist (a step whose target is
    IGNORE has no loss L_s, so it must not be listed as a source even though its row of G is 0).

    G is loss_to_state_grads' (T, T, H). Returns "steps" (0-based s >= t with a loss),
    "parts" (n, H) = dL_s/dh_t for those s, "has_direct" (step t has a loss),
    "later_steps" (s > t with a loss) and "later_norm" = ||sum of the later parts||.
    """
    valid = tr.valid.tolist()
    steps = [s for s in range(t, tr.T) if valid[s]]
    later = [s for s in steps if s > t]
    parts = G[steps, t] if steps else G.new_zeros(0, G.shape[-1])  # (n, H)
    later_norm = float(G[later, t].sum(0).norm()) if later else 0.0
    return {"steps": steps, "parts": parts, "has_direct": bool(valid[t]), "later_steps": later,
            "later_norm": later_norm}


def gradient_flow(model: RNNModel, tr: Trace, J: torch.Tensor | None = None,
                  G: torch.Tensor | None = None) -> torch.Tensor:
    """F[s, t] = ||dL_s/dh_t|| for t <= s, NaN above the diagonal. (T, T)

    J / G: the step Jacobians / loss_to_state_grads if already computed (reused, not redone)."""
    G = loss_to_state_grads(model, tr, J) if G is None else G  # (T, T, H)
    norms = G.norm(dim=-1)
    upper = torch.triu(torch.ones_like(norms, dtype=torch.bool), diagonal=1)
    return norms.masked_fill(upper, float("nan"))


def hand_bptt(model: RNNModel, tr: Trace) -> dict:
    """The notes' recursion for a unidirectional Elman model, written out by hand.

    e_t = dL_t/dz_t, delta_t = phi'(a_t) * (W_o^T e_t + W_h^T delta_{t+1});
    dW_h = sum_t delta_t h_{t-1}^T, dW_x = sum_t delta_t x_t^T, db_h = sum_t delta_t,
    dW_o = sum_t e_t h_t^T, db_o = sum_t e_t, dE[id_t] += W_x^T delta_t.
    Returns the parameter gradients and "delta" (T, H).
    """
    if model.cfg.cell != "elman" or model.cfg.bidirectional:
        raise ValueError("hand_bptt follows the notes: a unidirectional Elman model")
    with torch.no_grad():
        e = output_error(tr)  # (T, K)
        slope = activation_slope(tr.a, model.cfg.nonlinearity)  # (T, H)
        T, H = tr.h.shape
        delta = torch.zeros_like(tr.h)
        nxt = torch.zeros(H, dtype=tr.h.dtype)
        for t in range(T - 1, -1, -1):
            delta[t] = slope[t] * (e[t] @ model.W_o + nxt @ model.W_h)  # (H,)
            nxt = delta[t]
        h_prev = torch.cat([torch.zeros_like(tr.h[:1]), tr.h[:-1]])  # (T, H)
        dE = torch.zeros_like(model.E)
        dE.index_add_(0, tr.ids, delta @ model.W_x)  # (T, d) rows added per id
        return {"E": dE, "W_x": delta.T @ tr.x, "W_h": delta.T @ h_prev, "b_h": delta.sum(0),
                "W_o": e.T @ tr.h, "b_o": e.sum(0), "delta": delta}


def delta_steps(model: RNNModel, tr: Trace) -> dict:
    """The recursion delta_t = phi'(a_t) * (W_o^T e_t + W_h^T delta_{t+1}) with its pieces,
    each (T, H): slope, from_output (W_o^T e_t), from_later (W_h^T delta_{t+1}), delta."""
    hand = hand_bptt(model, tr)
    with torch.no_grad():
        delta = hand["delta"]  # (T, H)
        from_output = output_error(tr) @ model.W_o  # (T, H)
        nxt = torch.cat([delta[1:], torch.zeros_like(delta[:1])])  # (T, H): delta_{t+1}, 0 at the end
        from_later = nxt @ model.W_h  # (T, H)
        slope = activation_slope(tr.a, model.cfg.nonlinearity)  # (T, H)
    return {"slope": slope, "from_output": from_output, "from_later": from_later, "delta": delta}


def shared_weight_terms(model: RNNModel, tr: Trace) -> dict:
    """dL/dW as a sum over time, term by term: name -> (terms (T, ...), their sum, autograd's
    gradient, max |sum - autograd|). W_h: delta_t h_{t-1}^T; W_x: delta_t x_t^T; b_h: delta_t;
    W_o: e_t h_t^T; b_o: e_t."""
    hand = hand_bptt(model, tr)
    with torch.no_grad():
        delta, e = hand["delta"], output_error(tr)  # (T, H), (T, K)
        h_prev = torch.cat([torch.zeros_like(tr.h[:1]), tr.h[:-1]])  # (T, H)
        terms = {"W_h": delta[:, :, None] * h_prev[:, None, :], "W_x": delta[:, :, None] * tr.x[:, None, :],
                 "b_h": delta, "W_o": e[:, :, None] * tr.h[:, None, :], "b_o": e}
        out = {}
        for name, term in terms.items():
            total = term.sum(0)
            out[name] = {"terms": term, "sum": total, "autograd": tr.grads[name],
                         "max_diff": float((total - tr.grads[name]).abs().max())}
    return out


def shared_weight_summary(model: RNNModel, tr: Trace) -> dict:
    """What the page shows of shared_weight_terms, without stacking every term: W_o's terms
    alone are (T, K, H), 512 MB for K = 5,000, H = 128, T = 200. "W_h_term" (T,):
    ||delta_t h_{t-1}^T||_F = ||delta_t|| ||h_{t-1}||; "W_h_running" (T,): ||sum_{k<=t} delta_k
    h_{k-1}^T|| (one cumulative sum of W_h's (T, H, H) terms); "params": name -> the same
    "sum", "autograd" and "max_diff" as shared_weight_terms, each sum as one matrix product."""
    hand = hand_bptt(model, tr)
    with torch.no_grad():
        delta = hand["delta"]  # (T, H)
        h_prev = torch.cat([torch.zeros_like(tr.h[:1]), tr.h[:-1]])  # (T, H)
        term_norms = delta.norm(dim=1) * h_prev.norm(dim=1)  # (T,)
        running = torch.linalg.vector_norm((delta[:, :, None] * h_prev[:, None, :]).cumsum(0), dim=(1, 2))
        params = {}
        for name in ("W_h", "W_x", "b_h", "W_o", "b_o"):
            total = hand[name]
            params[name] = {"sum": total, "autograd": tr.grads[name],
                            "max_diff": float((total - tr.grads[name]).abs().max())}
    return {"W_h_term": term_norms, "W_h_running": running, "params": params}


def jacobian_factors(model: RNNModel, tr: Trace, t: int, J_all: torch.Tensor | None = None) -> dict:
    """J_t = diag(1 - h_t^2) W_h kept apart (Elman, tanh): the slopes (H,), W_h (H, H), J_t
    (H, H), the spectral norms that bound it: ||J_t||_2 <= max slope x ||W_h||_2, and each
    matrix's largest |entry| (the figure gives each its own colour range).
    J_all: step_jacobians(model, tr) if already computed (a slider move reuses it)."""
    J = (step_jacobians(model, tr) if J_all is None else J_all)[t]  # (H, H)
    H = model.cfg.hidden_size
    slope = activation_slope(tr.a[t, :H], model.cfg.nonlinearity)  # (H,)
    W = model.W_h.detach()
    return {"slope": slope, "W_h": W, "J": J, "norm_W": float(norm2(W)),
            "norm_J": float(norm2(J)),
            "max_W": float(W.abs().max()), "max_J": float(J.abs().max())}  # each heatmap's colour range

# ---- Jacobians --------------------------------------------------------------------------

def _prev(v: torch.Tensor) -> torch.Tensor:
    """v_{t-1} rows with a zero initial state: (T, H) -> (T, H)."""
    return torch.cat([torch.zeros_like(v[:1]), v[:-1]])


def gated_step_jacobians(model, tr) -> torch.Tensor:
    """J[t] = d state_t / d state_{t-1} of the forward direction, written out.

    GRU (H, H):  diag(1-z) dn/dh + diag(h_{t-1} - n) diag(z(1-z)) W_hz + diag(z),
                 dn/dh = diag(1-n^2) (diag(r) W_hn + diag(hn r(1-r)) W_hr).
    LSTM (2H, 2H) on [h; c]:  dc/dh = diag(c_{t-1} f(1-f)) W_hf + diag(g i(1-i)) W_hi
                 + diag(i (1-g^2)) W_hg, dc/dc = diag(f), dh/dh = diag(tanh(c) o(1-o)) W_ho
                 + diag(o (1-tanh^2 c)) dc/dh, dh/dc = diag(o (1-tanh^2 c) f).
    Returns (T, S, S), S = H (GRU) or 2H (LSTM).
    """
    H = model.cfg.hidden_size
    G = {k: v[:, :H] for k, v in tr.gates.items()}  # forward direction, (T, H) each
    c = tr.c[:, :H] if tr.c is not None else None
    return gated_jacobians(model.cfg.cell, G, tr.h[:, :H], c, model.W_h, model.b_h)


def gated_jacobians(cell: str, G: dict, h: torch.Tensor, c: torch.Tensor | None, W: torch.Tensor,
                    b_h: torch.Tensor, unsaturated: bool = False) -> torch.Tensor:
    """The gated step Jacobians of one direction, its values given in READING order (row r is
    the r-th step read; the state before row 0 is zero): G gate name -> (T, H), h (T, H), c (T, H)
    (LSTM), W = that direction's W_h (G*H, H), b_h its bias. Formulas: gated_step_jacobians.

    unsaturated: every activation slope at its largest value (tanh' = 1, sigma' = 1/4), the gate
    values themselves kept: "what if nothing saturated" for one Jacobian cell."""
    H = h.shape[1]
    with torch.no_grad():
        W, h_prev = W.detach(), _prev(h.detach())  # (G*H, H), (T, H)

        def sig(v):  # sigma'(A) = v (1 - v) from the gate value v
            return torch.full_like(v, 0.25) if unsaturated else v * (1 - v)

        def tanh_(v):  # tanh'(A) = 1 - v^2 from the value v = tanh(A)
            return torch.ones_like(v) if unsaturated else 1 - v ** 2

        if cell == "gru":
            Wr, Wz, Wn = W.chunk(3, dim=0)  # (H, H) each
            hn = h_prev @ Wn.T + b_h.detach()[2 * H:]  # (T, H)
            r, z, n = G["r"], G["z"], G["n"]
            dn = tanh_(n)[:, :, None] * (r[:, :, None] * Wn + (hn * sig(r))[:, :, None] * Wr)
            dz = sig(z)[:, :, None] * Wz  # (T, H, H)
            return ((1 - z)[:, :, None] * dn + (h_prev - n)[:, :, None] * dz
                    + torch.diag_embed(z))
        Wi, Wf, Wg, Wo = W.chunk(4, dim=0)
        i, f, g, o = G["i"], G["f"], G["g"], G["o"]
        c_prev, tc = _prev(c), torch.tanh(c)
        dc_dh = ((c_prev * sig(f))[:, :, None] * Wf + (g * sig(i))[:, :, None] * Wi
                 + (i * tanh_(g))[:, :, None] * Wg)  # (T, H, H)
        k = o * tanh_(tc)  # (T, H): dh/dc_t
        dh_dh = (tc * sig(o))[:, :, None] * Wo + k[:, :, None] * dc_dh
        T = h.shape[0]
        J = torch.zeros(T, 2 * H, 2 * H, dtype=dc_dh.dtype)
        J[:, :H, :H] = dh_dh
        J[:, :H, H:] = torch.diag_embed(k * f)
        J[:, H:, :H] = dc_dh
        J[:, H:, H:] = torch.diag_embed(f)
        return J


def input_step_jacobians(model, tr) -> torch.Tensor:
    """B[t] = d state_t / d x_t (state_{t-1} held), forward direction: (T, S, d).

    Elman / Jordan: diag(phi'(a_t)) W_x (S = H). GRU, LSTM: as in step_jacobians with the
    W_x blocks in place of the W_h blocks (and no c_{t-1} / h_{t-1} terms of their own).
    """

    cfg, H = model.cfg, model.cfg.hidden_size
    with torch.no_grad():
        Wx = model.W_x.detach()
        if cfg.cell not in GATED:
            return activation_slope(tr.a[:, :H], cfg.nonlinearity)[:, :, None] * Wx  # (T, H, d)
        G = {k: v[:, :H] for k, v in tr.gates.items()}
        h_prev = _prev(tr.h[:, :H])
        if cfg.cell == "gru":
            Wr, Wz, Wn = Wx.chunk(3, dim=0)  # (H, d)
            hn = h_prev @ model.W_h.detach()[2 * H:].T + model.b_h.detach()[2 * H:]
            r, z, n = G["r"], G["z"], G["n"]
            dn = (1 - n ** 2)[:, :, None] * (Wn[None] + (hn * r * (1 - r))[:, :, None] * Wr)
            dz = (z * (1 - z))[:, :, None] * Wz
            return (1 - z)[:, :, None] * dn + (h_prev - n)[:, :, None] * dz  # (T, H, d)
        Wi, Wf, Wg, Wo = Wx.chunk(4, dim=0)
        i, f, g, o = G["i"], G["f"], G["g"], G["o"]
        c = tr.c[:, :H]
        c_prev, tc = _prev(c), torch.tanh(c)
        dc = ((c_prev * f * (1 - f))[:, :, None] * Wf + (g * i * (1 - i))[:, :, None] * Wi
              + (i * (1 - g ** 2))[:, :, None] * Wg)  # (T, H, d)
        dh = (tc * o * (1 - o))[:, :, None] * Wo + (o * (1 - tc ** 2))[:, :, None] * dc
        return torch.cat([dh, dc], dim=1)  # (T, 2H, d)


def input_jacobian_norms(model, tr, start: int = 0) -> torch.Tensor:
    """N[s, t] = ||dh_s/dx_t||_F for t <= s (forward direction's h), NaN above. (T, T), float64.
    start: only steps start..T-1 (a jacwindow.Window): the block [start:, start:] of the full
    matrix, (T - start, T - start); dh_s/dx_t for t, s in the window uses only its own steps.

    One scale for every cell: the input x_t is the same kind of thing for Elman, GRU and
    LSTM, whereas their states differ. Stepping s -> s+1 multiplies ALL columns
    [M_{s,0} ... M_{s,s}] (S, s*d) by J[s+1] in one GEMM, M_{s,t} = d state_s / d x_t.
    """


    if tr.T > limits.MAX_JACOBIAN_T:
        raise InputError(f"The input Jacobian norms take up to {limits.MAX_JACOBIAN_T} "
                         f"steps; this sentence has {tr.T}.")
    H = model.cfg.hidden_size
    J = step_jacobians(model, tr)[start:].to(torch.float64)      # (w, S, S)
    B = input_step_jacobians(model, tr)[start:].to(torch.float64)    # (w, S, d)
    T, S, d = B.shape
    out = torch.full((T, T), float("nan"), dtype=torch.float64)
    M = B.new_zeros(S, 0)  # (S, s*d) columns of every earlier input
    for s in range(T):
        M = torch.cat([J[s] @ M, B[s]], dim=1) if s else B[0].clone()  # (S, (s+1)*d)
        out[s, :s + 1] = torch.linalg.vector_norm(M[:H].reshape(H, s + 1, d), dim=(0, 2))
    return out


def last_state_input_norms(model, tr) -> torch.Tensor:
    """||dh_{T-1}/dx_t||_F for every t (the last row of input_jacobian_norms), (T,), float64.

    Backwards from the end: R_s = dh_{T-1}/dstate_s (H, S), R_{s-1} = R_s J[s], and
    dh_{T-1}/dx_s = R_s B[s]: S^2 (H + d) work per step, so the first word's reach on the last
    state stays exact when the all-pairs map shows only a window of a long sentence."""

    H = model.cfg.hidden_size
    J = step_jacobians(model, tr).to(torch.float64)      # (T, S, S)
    B = input_step_jacobians(model, tr).to(torch.float64)    # (T, S, d)
    T, S = B.shape[0], B.shape[1]
    out = torch.empty(T, dtype=torch.float64)
    R = torch.eye(S, dtype=torch.float64)[:H]  # (H, S): dh_{T-1}/dstate_{T-1}
    for s in range(T - 1, -1, -1):
        out[s] = torch.linalg.matrix_norm(R @ B[s])
        if s:
            R = R @ J[s]  # (H, S)
    return out


def memory_horizon(norms: torch.Tensor, threshold: float = 1e-3) -> dict:
    """How many steps back an input's influence stays above `threshold` x the diagonal.

    norms (T, T) from input_jacobian_norms. For each s: the largest k such that
    N[s, s-j] >= threshold * N[s, s] for every j = 0..k ("stays above": the first dip ends it).
    Returns per_step (T,) list of k, horizon = max over s, median (over s) and reached_start:
    whether the horizon spans the whole sentence (T - 1; the true horizon may be longer).
    """
    N = torch.as_tensor(norms, dtype=torch.float64)
    T = N.shape[0]
    per = []
    for s in range(T):
        diag = N[s, s]
        if not (torch.isfinite(diag) and diag > 0):
            per.append(0)
            continue
        k = 0
        while k < s and N[s, s - k - 1] >= threshold * diag:
            k += 1
        per.append(k)
    best = max(per) if per else 0
    median = sorted(per)[(T - 1) // 2] if per else 0
    return {"per_step": per, "horizon": best, "median": median, "reached_start": best == T - 1,
            "threshold": threshold}


def forget_products(tr, H: int) -> torch.Tensor:
    """The LSTM's cell path apart: F[s, t] = f_{t+1} * ... * f_s (elementwise, = dc_s/dc_t along
    c alone), F[t, t] = 1, NaN for t > s. (T, T, H), forward direction."""
    f = tr.gates["f"][:, :H].to(torch.float64)  # (T, H)
    T = f.shape[0]
    out = torch.full((T, T, H), float("nan"), dtype=torch.float64)
    for t in range(T):
        run = torch.ones(H, dtype=torch.float64)
        out[t, t] = run
        for s in range(t + 1, T):
            run = run * f[s]
            out[s, t] = run
    return out
