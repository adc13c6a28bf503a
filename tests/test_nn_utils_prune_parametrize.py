"""nn.utils.prune, parametrize, parametrizations (weight_norm, spectral_norm, orthogonal), the older
weight_norm / spectral_norm hooks and fusion against torch (values recorded by
tests/golden/record_nn_utils.py): masks, parameter and buffer names, class renames, reprs, values, gradients,
seeded spectral-norm vectors and torch's errors."""

import ferrograd as fg
import ferrograd.nn as nn
import nn_utils_cases as cases
import numpy as np
import pytest
from ferrograd.nn.utils import parametrize, prune
from helpers import golden
from nn_utils_compare import same

GOLDEN = golden("nn_utils")


def test_prune_against_torch():
    same(cases.prune_cases(), GOLDEN["prune"])


def test_prune_errors_against_torch():
    same(cases.prune_errors(), GOLDEN["prune_errors"])


def test_parametrize_against_torch():
    same(cases.parametrize_cases(), GOLDEN["parametrize"])


def test_norms_against_torch():
    with pytest.warns(FutureWarning, match="deprecated in favor of"):
        got = cases.norm_cases()
    same(got, GOLDEN["norms"], rtol=1e-7, atol=1e-9)


def test_transfer_against_torch():
    same(cases.transfer_case(), GOLDEN["transfer"])


def test_fusion_against_torch():
    same(cases.fusion_cases(), GOLDEN["fusion"])


def test_pruning_hook_recomputes_weight():
    lin = nn.Linear(3, 2)
    prune.l1_unstructured(lin, "weight", amount=2)
    assert prune.is_pruned(lin)
    with fg.no_grad():
        lin.weight_orig.fill_(1.0)
    lin(fg.ones(1, 3))
    assert lin.weight.sum().item() == 4.0
    hook = next(iter(lin._forward_pre_hooks.values()))
    assert isinstance(hook, prune.L1Unstructured) and hook._tensor_name == "weight"
    # printed as torch prints its hook dict
    assert repr(lin._forward_pre_hooks).startswith("OrderedDict(")


def test_parametrize_cached_computes_once():
    calls = []

    class Noisy(nn.Module):
        def forward(self, X):
            calls.append(1)
            return X

    layer = nn.Linear(2, 2)
    parametrize.register_parametrization(layer, "weight", Noisy())
    calls.clear()
    layer.weight + layer.weight
    assert len(calls) == 2
    with parametrize.cached():
        layer.weight + layer.weight
    assert len(calls) == 3


def test_parametrize_errors():
    class Shape(nn.Module):
        def forward(self, X):
            return X[0]

    with pytest.raises(ValueError, match="may not change the shape of the tensor"):
        parametrize.register_parametrization(nn.Linear(2, 2), "weight", Shape())
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
        parametrize.register_parametrization(nn.Linear(2, 2), "nope", Shape())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(nn.Linear(2, 2), "weight")
    layer = parametrize.register_parametrization(nn.Linear(2, 2), "weight", Shape(), unsafe=True)
    assert tuple(layer.weight.shape) == (2,)
    assert parametrize.type_before_parametrizations(layer) is nn.Linear


def test_parametrized_module_keeps_parameter_identity():
    layer = nn.Linear(2, 2)
    weight = layer.weight
    parametrize.register_parametrization(layer, "weight", cases.Skew())
    assert layer.parametrizations.weight.original is weight
    parametrize.remove_parametrizations(layer, "weight")
    assert layer.weight is weight and isinstance(layer.weight, nn.Parameter)
    w = weight.detach().numpy()
    np.testing.assert_allclose(w, -w.T)


def test_skip_init():
    layer = nn.utils.skip_init(nn.Linear, 3, 2, bias=False)
    assert type(layer) is nn.Linear and tuple(layer.weight.shape) == (2, 3) and layer.bias is None
    with pytest.raises(RuntimeError, match="Expected a Module"):
        nn.utils.skip_init(int)
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        nn.utils.skip_init(nn.ReLU)


def test_failed_pruning_leaves_the_module_as_it_was():
    lin = nn.Linear(2, 2)
    weight = lin.weight
    with pytest.raises(ValueError, match="should be smaller than the number of parameters to prune=4"):
        prune.l1_unstructured(lin, "weight", amount=5)
    # re-registered last, as torch re-registers it
    assert [n for n, _ in lin.named_parameters()] == ["bias", "weight"]
    assert lin.weight is weight and not list(lin.named_buffers()) and not lin._forward_pre_hooks


@pytest.mark.parametrize("remove", ["remove_weight_norm", "remove_spectral_norm"])
def test_removing_a_norm_that_is_not_there_names_it(remove):
    layer = fg.nn.Linear(2, 2)
    label = remove.removeprefix("remove_")
    with pytest.raises(ValueError, match=f"{label} of 'weight' not found in Linear"):
        getattr(fg.nn.utils, remove)(layer)
