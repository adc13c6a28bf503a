"""Recorded cases for the losses: every loss module with each reduction, its value and the gradients of its
inputs, on dyadic inputs (exact in binary) so the ties at hinges, thresholds and |d| == beta are exact.

Run by tests/golden/record_nn_losses.py with PyTorch (into nn_losses.json) and by tests/test_nn_losses.py.
"""

import ferrograd as fg
import ferrograd.nn as nn
import ferrograd.nn.functional as F
import numpy as np
from cases_nn_functional import run, t64
from recorded import error

REDUCTIONS = ("none", "mean", "sum")


def dyadic(rng, shape, lo=-8, hi=8):
    """Multiples of 1/4: sums and differences of these are exact, so ties are ties."""
    return rng.integers(lo, hi, shape) / 4.0


def signs(rng, shape):
    return rng.choice([-1.0, 1.0], shape)


def _regression_pair():
    rng = np.random.default_rng(10)
    x = dyadic(rng, (3, 4))
    t = dyadic(rng, (3, 4))
    t[0, 0] = x[0, 0]  # d == 0
    t[0, 1] = x[0, 1] - 1  # d == 1: the smooth_l1 / huber boundary
    t[0, 2] = x[0, 2] + 1  # d == -1
    t[1, 0] = x[1, 0] - 0.5  # d == 0.5 (beta 0.5)
    t[1, 1] = x[1, 1] + 2  # d == -2 (delta 2)
    return x, t


def regression_cases():
    x, t = _regression_pair()
    rng = np.random.default_rng(11)
    w = rng.uniform(0.5, 2.0, (3, 4))
    cases = {}
    for r in REDUCTIONS:
        cases[f"mse_{r}"] = (nn.MSELoss, {"reduction": r})
        cases[f"l1_{r}"] = (nn.L1Loss, {"reduction": r})
        cases[f"smooth_l1_{r}"] = (nn.SmoothL1Loss, {"reduction": r})
        cases[f"smooth_l1_beta_half_{r}"] = (nn.SmoothL1Loss, {"reduction": r, "beta": 0.5})
        cases[f"huber_{r}"] = (nn.HuberLoss, {"reduction": r})
        cases[f"huber_delta2_{r}"] = (nn.HuberLoss, {"reduction": r, "delta": 2.0})
        cases[f"soft_margin_{r}"] = (nn.SoftMarginLoss, {"reduction": r})
    out = {}
    labels = np.sign(t) + (t == 0)  # ±1
    for name, (cls, kwargs) in cases.items():
        if name.startswith("soft_margin"):  # the target is a label: no gradient
            out[name] = lambda cls=cls, kwargs=kwargs: run(lambda a: cls(**kwargs)(a, t64(labels)), x)
        else:
            out[name] = lambda cls=cls, kwargs=kwargs: run(lambda a, b: cls(**kwargs)(a, b), x, t)
    for r in REDUCTIONS:
        out[f"huber_weighted_{r}"] = lambda r=r: run(lambda a, b: F.huber_loss(a, b, reduction=r, weight=t64(w)), x, t)
    return out


def classification_cases():
    rng = np.random.default_rng(12)
    logits = rng.standard_normal((4, 5))
    labels = np.array([0, 3, 4, 1])
    weight = rng.uniform(0.5, 2.0, 5)
    probs = rng.dirichlet(np.ones(5), 4)
    margin_x, margin_x2, multilabel_x = dyadic(rng, (4, 5)), dyadic(rng, (4, 5)), dyadic(rng, (4, 5))
    multilabel_t = fg.tensor([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 1, 2, 0, 0], [4, -1, 0, 0, 0]])
    soft_t = rng.integers(0, 2, (4, 5)).astype(np.float64)
    margin_1d, multilabel_1d = dyadic(rng, (5,)), dyadic(rng, (5,))
    out = {}
    for r in REDUCTIONS:
        out[f"cross_entropy_{r}"] = lambda r=r: run(
            lambda a: nn.CrossEntropyLoss(reduction=r)(a, fg.tensor(labels)), logits
        )
        out[f"cross_entropy_weight_smooth_{r}"] = lambda r=r: run(
            lambda a: nn.CrossEntropyLoss(weight=t64(weight), reduction=r, label_smoothing=0.2)(a, fg.tensor(labels)),
            logits,
        )
        out[f"cross_entropy_probs_{r}"] = lambda r=r: run(
            lambda a, p: nn.CrossEntropyLoss(reduction=r, label_smoothing=0.1)(a, p), logits, probs
        )
        out[f"nll_ignore_{r}"] = lambda r=r: run(
            lambda a: nn.NLLLoss(weight=t64(weight), ignore_index=3, reduction=r)(a.log_softmax(1), fg.tensor(labels)),
            logits,
        )
        out[f"multi_margin_{r}"] = lambda r=r: run(
            lambda a: nn.MultiMarginLoss(reduction=r)(a, fg.tensor(labels)), margin_x
        )
        out[f"multi_margin_p2_weight_{r}"] = lambda r=r: run(
            lambda a: nn.MultiMarginLoss(p=2, margin=0.5, weight=t64(weight), reduction=r)(a, fg.tensor(labels)),
            margin_x2,
        )
        out[f"multilabel_margin_{r}"] = lambda r=r: run(
            lambda a: nn.MultiLabelMarginLoss(reduction=r)(a, multilabel_t), multilabel_x
        )
        out[f"multilabel_soft_margin_{r}"] = lambda r=r: run(
            lambda a: nn.MultiLabelSoftMarginLoss(weight=t64(weight), reduction=r)(a, t64(soft_t)), logits
        )
    out["multi_margin_1d"] = lambda: run(lambda a: F.multi_margin_loss(a, fg.tensor(2)), margin_1d)
    out["multilabel_margin_1d"] = lambda: run(
        lambda a: F.multilabel_margin_loss(a, fg.tensor([2, 0, -1, 1, 1])), multilabel_1d
    )
    return out


def nll_sum_cases():
    """nll_loss over a long float32 batch (summed in partial sums, one left over), with ignored targets and class
    weights, in each reduction; and the total weight its grad_fn keeps (a tensor: 0 for an unreduced batch, the
    weight of its one target for a 1-d input) for 2-d, 1-d and (N, C, d) inputs."""
    rng = np.random.default_rng(15)
    logits = rng.standard_normal((203, 3)).astype(np.float32)
    labels = rng.integers(0, 3, 203)
    labels[::9] = -100
    weight = fg.tensor(rng.uniform(0.5, 2.0, 3).astype(np.float32))
    spatial = {d: rng.standard_normal((3, 4) + (2, 3, 2)[: d - 2]) for d in (3, 4, 5)}
    spatial_labels = {d: rng.integers(0, 4, (3,) + (2, 3, 2)[: d - 2]) for d in (3, 4, 5)}
    vector = rng.standard_normal(6)

    def nll(x, target, **kwargs):
        leaf = fg.tensor(x, requires_grad=True)
        out = F.nll_loss(leaf, fg.tensor(target), **kwargs)
        # torch's nodes: a view around NllLoss2DBackward0 for 3-d and 5-d inputs
        node, names = out.grad_fn, []
        while node is not None and node.name() != "torch::autograd::AccumulateGrad":
            names.append(node.name())
            node = node.next_functions[0][0]
        loss_node = out.grad_fn if names[0].startswith("Nll") else out.grad_fn.next_functions[0][0]
        total_weight = loss_node._saved_total_weight  # freed by backward
        out.backward(fg.ones_like(out) * 0.5)
        return {"out": out, "grad": leaf.grad, "total_weight": total_weight, "nodes": names}

    out = {}
    for r in REDUCTIONS:
        out[f"nll_float32_long_{r}"] = lambda r=r: nll(logits, labels, reduction=r)
        out[f"nll_float32_long_weighted_{r}"] = lambda r=r: nll(logits, labels, weight=weight, reduction=r)
        for d in (3, 4, 5):
            out[f"nll_spatial_{d}d_{r}"] = lambda r=r, d=d: nll(
                spatial[d], spatial_labels[d], ignore_index=2, reduction=r
            )
        out[f"nll_vector_{r}"] = lambda r=r: nll(vector, 4, weight=t64(np.arange(1.0, 7.0)), reduction=r)
    out["nll_all_ignored_mean"] = lambda: nll(logits[:5], np.full(5, -100))
    # forward only: torch's backward of this one raises (a size mismatch between the input and the 1-d target)
    out["nll_vector_one_target"] = lambda: {r: F.nll_loss(t64(vector), fg.tensor([4]), reduction=r) for r in REDUCTIONS}
    shapes = [((2, 3), (2, 4)), ((2, 3, 4, 5), (2, 4, 5, 1)), ((2, 3, 4, 5), (2, 4, 6)), ((2, 3, 4), (2, 5))]
    shapes += [((3,), (3,)), ((2, 3, 4, 5, 6), (2, 4, 5)), ((2, 3), ()), ((2, 0, 4), (2, 4)), ((), ())]
    out["nll_shape_errors"] = lambda: {
        str(i): error(F.nll_loss, fg.zeros(x_shape), fg.zeros(t_shape, dtype=fg.long))
        for i, (x_shape, t_shape) in enumerate(shapes)
    }
    return out


def probability_cases():
    rng = np.random.default_rng(13)
    p = rng.uniform(0.05, 0.95, (3, 4))
    y = rng.integers(0, 2, (3, 4)).astype(np.float64)
    logits = rng.standard_normal((3, 4))
    w = rng.uniform(0.5, 2.0, (3, 4))
    pos_weight = rng.uniform(0.5, 3.0, 4)
    logq = np.log(rng.dirichlet(np.ones(4), 3))
    target_p = rng.dirichlet(np.ones(4), 3)
    counts = np.array([[0.0, 1.0, 2.0, 5.0], [3.0, 0.0, 1.0, 1.0], [2.0, 7.0, 0.0, 1.0]])
    out = {}
    for r in REDUCTIONS:
        out[f"bce_{r}"] = lambda r=r: run(lambda a: nn.BCELoss(weight=t64(w), reduction=r)(a, t64(y)), p)
        out[f"bce_logits_{r}"] = lambda r=r: run(
            lambda a: nn.BCEWithLogitsLoss(pos_weight=t64(pos_weight), reduction=r)(a, t64(y)), logits
        )
        out[f"kl_div_{r}"] = lambda r=r: run(lambda a: nn.KLDivLoss(reduction=r)(a, t64(target_p)), logq)
        out[f"kl_div_log_target_{r}"] = lambda r=r: run(
            lambda a: nn.KLDivLoss(reduction=r, log_target=True)(a, t64(np.log(target_p))), logq
        )
        out[f"poisson_{r}"] = lambda r=r: run(lambda a: nn.PoissonNLLLoss(reduction=r)(a, t64(counts)), logits)
        out[f"poisson_full_linear_{r}"] = lambda r=r: run(
            lambda a: nn.PoissonNLLLoss(log_input=False, full=True, reduction=r)(a, t64(counts)), p * 3
        )
        out[f"gaussian_{r}"] = lambda r=r: run(
            lambda a, v: nn.GaussianNLLLoss(reduction=r)(a, t64(counts), v), logits, np.abs(logits) + 0.1
        )
    out["kl_div_batchmean"] = lambda: run(lambda a: F.kl_div(a, t64(target_p), reduction="batchmean"), logq)
    var = np.abs(logits) + 0.1
    var[0, 0] = 1e-9  # below eps: floored without autograd
    out["gaussian_full_eps_floor"] = lambda: run(
        lambda a, v: F.gaussian_nll_loss(a, t64(counts), v, full=True), logits, var
    )
    out["gaussian_var_per_sample"] = lambda: run(
        lambda a, v: F.gaussian_nll_loss(a, t64(counts), v), logits, np.array([0.5, 1.0, 2.0])
    )
    out["gaussian_var_shared_dim"] = lambda: run(
        lambda a, v: F.gaussian_nll_loss(a, t64(counts), v), logits, np.array([[0.5], [1.0], [2.0]])
    )
    out["gaussian_var_float"] = lambda: run(lambda a: F.gaussian_nll_loss(a, t64(counts), 0.5), logits)
    return out


def margin_cases():
    rng = np.random.default_rng(14)
    x1, x2 = dyadic(rng, (6,)), dyadic(rng, (6,))
    x2[:2] = x1[:2]  # hinge exactly at 0 with margin 0
    y = signs(rng, (6,))
    h = dyadic(rng, (6,))
    h[:2] = 1.0  # margin - x == 0 for y == -1
    hy = np.array([-1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    e1, e2 = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    ey = np.array([1.0, -1.0, -1.0, 1.0])
    a, pos, neg = (rng.standard_normal((4, 5)) for _ in range(3))
    out = {}
    for r in REDUCTIONS:
        out[f"margin_ranking_{r}"] = lambda r=r: run(
            lambda u, v: nn.MarginRankingLoss(reduction=r)(u, v, t64(y)), x1, x2
        )
        out[f"margin_ranking_half_{r}"] = lambda r=r: run(
            lambda u, v: nn.MarginRankingLoss(margin=0.5, reduction=r)(u, v, t64(y)), x1, x2
        )
        out[f"hinge_embedding_{r}"] = lambda r=r: run(lambda u: nn.HingeEmbeddingLoss(reduction=r)(u, t64(hy)), h)
        out[f"cosine_embedding_{r}"] = lambda r=r: run(
            lambda u, v: nn.CosineEmbeddingLoss(margin=0.2, reduction=r)(u, v, t64(ey)), e1, e2
        )
        out[f"triplet_{r}"] = lambda r=r: run(lambda u, v, w: nn.TripletMarginLoss(reduction=r)(u, v, w), a, pos, neg)
        out[f"triplet_p1_swap_{r}"] = lambda r=r: run(
            lambda u, v, w: nn.TripletMarginLoss(margin=2.0, p=1, swap=True, reduction=r)(u, v, w), a, pos, neg
        )
        out[f"triplet_distance_{r}"] = lambda r=r: run(
            lambda u, v, w: nn.TripletMarginWithDistanceLoss(
                distance_function=lambda s, t: 1.0 - F.cosine_similarity(s, t), margin=0.5, swap=True, reduction=r
            )(u, v, w),
            a,
            pos,
            neg,
        )
    out["triplet_distance_default"] = lambda: run(
        lambda u, v, w: nn.TripletMarginWithDistanceLoss()(u, v, w), a, pos, neg
    )
    out["cosine_embedding_1d"] = lambda: run(
        lambda u, v: F.cosine_embedding_loss(u, v, t64(-1.0), margin=-0.5), e1[0], e2[0]
    )
    return out


def loss_reprs():
    w = t64([1.0, 2.0])
    modules = [
        nn.MSELoss(),
        nn.MSELoss(reduction="sum"),
        nn.L1Loss(),
        nn.CrossEntropyLoss(),
        nn.CrossEntropyLoss(weight=w, label_smoothing=0.1),
        nn.NLLLoss(),
        nn.BCELoss(),
        nn.BCEWithLogitsLoss(pos_weight=w),
        nn.HuberLoss(),
        nn.SmoothL1Loss(beta=0.5),
        nn.KLDivLoss(log_target=True),
        nn.TripletMarginLoss(),
        nn.TripletMarginWithDistanceLoss(),
        nn.PoissonNLLLoss(),
        nn.GaussianNLLLoss(),
        nn.MultiMarginLoss(),
        nn.CosineEmbeddingLoss(),
    ]
    buffers = {
        "ce_weight": list(nn.CrossEntropyLoss(weight=w).state_dict()),
        "bce_logits": list(nn.BCEWithLogitsLoss(weight=w, pos_weight=w).state_dict()),
        "bce_logits_none": list(nn.BCEWithLogitsLoss().state_dict()),
    }
    return {"reprs": [repr(m) for m in modules], "state_dict_keys": buffers}


def loss_errors():
    x = t64(np.ones((2, 3)))
    return {
        "huber_delta": error(F.huber_loss, x, x, delta=0.0),
        "huber_weight_shape": error(F.huber_loss, x, x, weight=t64(np.ones(3))),
        "huber_delta_type": error(nn.HuberLoss, delta="1"),
        "multi_margin_p": error(F.multi_margin_loss, x, fg.tensor([0, 1]), p=3),
        "multi_margin_target": error(F.multi_margin_loss, x, fg.tensor([0, 3])),
        "multi_margin_weight_dim": error(nn.MultiMarginLoss, weight=x),
        "margin_ranking_dims": error(F.margin_ranking_loss, x, t64(np.ones(3)), x),
        "cosine_embedding_target": error(F.cosine_embedding_loss, x, x, t64(np.ones((2, 1)))),
        "cosine_embedding_inputs": error(F.cosine_embedding_loss, t64(np.ones(3)), x, t64(np.ones(2))),
        "triplet_dims": error(F.triplet_margin_loss, x, t64(np.ones(3)), x),
        "triplet_margin": error(F.triplet_margin_loss, x, x, x, margin=0.0),
        "triplet_module_margin": error(nn.TripletMarginLoss, margin=-1.0),
        "gaussian_negative_var": error(F.gaussian_nll_loss, x, x, t64(-np.ones((2, 3)))),
        "gaussian_var_size": error(F.gaussian_nll_loss, x, x, t64(np.ones((3, 2)))),
        "gaussian_reduction": error(F.gaussian_nll_loss, x, x, x, reduction="avg"),
        "reduction": error(F.soft_margin_loss, x, x, reduction="avg"),
    }


CASES = {}
for _group in (regression_cases, classification_cases, nll_sum_cases, probability_cases, margin_cases):
    CASES.update(_group())
CASES["loss_reprs"] = loss_reprs
CASES["loss_errors"] = loss_errors
