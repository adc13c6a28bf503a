"""`optim.swa_utils`: averaged models (SWA, EMA, a custom average), `update_bn` and the SWALR schedule. The
learning rates and reprs were recorded from torch 2.15; the averages are checked against their formulas."""

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.optim.swa_utils import (
    SWALR,
    AveragedModel,
    get_ema_avg_fn,
    get_ema_multi_avg_fn,
    get_swa_multi_avg_fn,
    update_bn,
)

nn = fg.nn


def _averaged(make, n=3):
    """`make(model)`'s averaged model after `n` updates from `n` states of one small model, as training would leave
    them; the states' weights as numpy arrays, one list per parameter."""
    fg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    averaged = make(model)
    states = []
    for k in range(n):
        with fg.no_grad():
            for p in model.parameters():
                p.copy_(fg.randn(p.shape))
            model[1].running_mean.fill_(float(k))
        states.append([p.detach().numpy().copy() for p in model.parameters()])
        averaged.update_parameters(model)
    return averaged, [list(seen) for seen in zip(*states)]


def test_swa_is_the_running_mean_of_the_weights_and_copies_the_buffers():
    averaged, seen_by_param = _averaged(AveragedModel)
    assert int(averaged.n_averaged) == 3
    for got, seen in zip(averaged.module.parameters(), seen_by_param):
        np.testing.assert_allclose(got.detach().numpy(), np.mean(seen, axis=0), rtol=1e-6, atol=1e-7)
    # buffers are the model's latest, not averaged
    assert averaged.module[1].running_mean.tolist() == [2.0, 2.0]
    assert list(averaged.state_dict()) == [
        "n_averaged",
        "module.0.weight",
        "module.0.bias",
        "module.1.weight",
        "module.1.bias",
        "module.1.running_mean",
        "module.1.running_var",
        "module.1.num_batches_tracked",
    ]


@pytest.mark.parametrize("multi", [True, False])
def test_ema_with_buffers_decays_every_value_including_the_statistics(multi):
    kwargs = {"multi_avg_fn": get_ema_multi_avg_fn(0.9)} if multi else {"avg_fn": get_ema_avg_fn(0.9)}
    averaged, seen_by_param = _averaged(lambda model: AveragedModel(model, use_buffers=True, **kwargs))
    for got, seen in zip(averaged.module.parameters(), seen_by_param):
        want = seen[0]
        for s in seen[1:]:
            want = 0.9 * want + 0.1 * s
        np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-5, atol=1e-6)
    # running_mean 0, 1, 2 averaged: (0 * 0.9 + 0.1) * 0.9 + 0.2
    np.testing.assert_allclose(averaged.module[1].running_mean.numpy(), [0.29, 0.29], rtol=1e-6)


def test_the_swa_list_average_equals_the_default_one():
    default, _ = _averaged(AveragedModel)
    listed, _ = _averaged(lambda model: AveragedModel(model, multi_avg_fn=get_swa_multi_avg_fn()))
    for a, b in zip(default.parameters(), listed.parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-7)


def test_update_bn_recomputes_the_statistics_over_the_loader_and_restores_the_mode():
    fg.manual_seed(1)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4, momentum=0.3))
    model.eval()
    batches = [fg.randn(8, 3) for _ in range(3)]
    loader = [(x, fg.zeros(8)) for x in batches]  # (input, target): the input goes to the model
    update_bn(loader, model)
    assert not model.training and model[1].momentum == 0.3
    with fg.no_grad():
        feats = [model[0](x) for x in batches]
    mean = np.mean([f.mean(0).numpy() for f in feats], axis=0)
    var = np.mean([f.var(0).numpy() for f in feats], axis=0)  # the unbiased batch variances, averaged
    np.testing.assert_allclose(model[1].running_mean.numpy(), mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model[1].running_var.numpy(), var, rtol=1e-5, atol=1e-6)
    assert int(model[1].num_batches_tracked) == 3


def test_swalr_anneals_to_the_swa_lr_as_torch():
    p = nn.Parameter(fg.zeros(2))
    opt = fg.optim.SGD([p], lr=0.5)
    sched = SWALR(opt, swa_lr=0.05, anneal_epochs=3)
    lrs = [opt.param_groups[0]["lr"]]
    for _ in range(5):
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    assert lrs == pytest.approx([0.5, 0.3875, 0.16250000000000006, 0.05, 0.05, 0.05], rel=1e-12)

    extra = nn.Parameter(fg.zeros(1))
    opt = fg.optim.SGD([{"params": [p]}, {"params": [extra], "lr": 0.2}], lr=0.5)
    sched = SWALR(opt, swa_lr=[0.05, 0.01], anneal_epochs=2, anneal_strategy="linear")
    lrs = [[g["lr"] for g in opt.param_groups]]
    for _ in range(3):
        opt.step()
        sched.step()
        lrs.append([g["lr"] for g in opt.param_groups])
    want = [[0.5, 0.2], [0.275, 0.10500000000000001], [0.05, 0.01], [0.05, 0.01]]
    assert [x == pytest.approx(y, rel=1e-12) for x, y in zip(lrs, want)] == [True] * 4
    assert sorted(sched.state_dict()) == [
        "_anneal_strategy",
        "_get_lr_called_within_step",
        "_is_initial",
        "_last_lr",
        "_step_count",
        "anneal_epochs",
        "base_lrs",
        "last_epoch",
    ]


def test_bad_arguments_raise_torchs_errors():
    opt = fg.optim.SGD([nn.Parameter(fg.zeros(1))], lr=0.1)
    with pytest.raises(ValueError, match="^anneal_strategy must be one of 'cos' or 'linear', instead got exp$"):
        SWALR(opt, 0.05, anneal_strategy="exp")
    with pytest.raises(ValueError, match="^anneal_epochs must be equal or greater than 0, got -1$"):
        SWALR(opt, 0.05, anneal_epochs=-1)
    with pytest.raises(
        ValueError, match=r"^Invalid decay value 1.5 provided. Please provide a value in \[0,1\] range.$"
    ):
        get_ema_multi_avg_fn(1.5)
    with pytest.raises(AssertionError, match="^Only one of avg_fn and multi_avg_fn should be provided$"):
        AveragedModel(nn.Linear(1, 1), avg_fn=get_ema_avg_fn(), multi_avg_fn=get_ema_multi_avg_fn())


def test_repr_is_torchs():
    model = AveragedModel(nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)))
    assert repr(model) == (
        "AveragedModel(\n  (module): Sequential(\n    (0): Linear(in_features=2, out_features=2, bias=True)\n"
        "    (1): BatchNorm1d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)\n  )\n)"
    )
