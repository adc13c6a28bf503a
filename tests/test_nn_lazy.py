"""Lazy modules: the first input gives the parameters their shapes, initialises them as the plain layer would, and
turns the module into that layer; before it, `UninitializedParameter`s in reprs and state dicts, as torch's."""

import copy

import ferrograd as fg
import pytest
from helpers import AGAINST_TORCH

nn = fg.nn


def test_lazy_linear_becomes_the_linear_its_first_input_asks_for():
    x = fg.randn(3, 7)
    lazy = nn.LazyLinear(5)
    assert repr(lazy) == "LazyLinear(in_features=0, out_features=5, bias=True)"
    assert repr(lazy.weight) == "<UninitializedParameter>"
    assert nn.parameter.is_lazy(lazy.weight)
    with pytest.raises(RuntimeError, match="^Can't access the shape of an uninitialized parameter"):
        _ = lazy.weight.shape
    fg.manual_seed(0)
    y = lazy(x)
    fg.manual_seed(0)
    plain = nn.Linear(7, 5)  # the same draws: materialize, then Linear's own initialisation
    assert type(lazy) is nn.Linear and type(lazy.weight) is nn.Parameter
    assert repr(lazy) == "Linear(in_features=7, out_features=5, bias=True)"
    assert fg.equal(lazy.weight, plain.weight) and fg.equal(lazy.bias, plain.bias)
    assert fg.equal(y, plain(x))
    assert lazy.weight.requires_grad and not nn.parameter.is_lazy(lazy.weight)
    assert not lazy._forward_pre_hooks  # the initialising hook is gone


@pytest.mark.parametrize(
    "make, x, became, weight_shape",
    [
        (lambda: nn.LazyConv1d(4, 3), (2, 6, 9), nn.Conv1d, (4, 6, 3)),
        (lambda: nn.LazyConv2d(4, 3, groups=2), (2, 6, 8, 8), nn.Conv2d, (4, 3, 3, 3)),
        (lambda: nn.LazyConv3d(2, 1, bias=False), (3, 4, 4, 4), nn.Conv3d, (2, 3, 1, 1, 1)),  # unbatched
        (lambda: nn.LazyConvTranspose1d(4, 3, groups=2), (2, 6, 8), nn.ConvTranspose1d, (6, 2, 3)),
        (lambda: nn.LazyConvTranspose2d(5, 2, stride=2), (1, 3, 4, 4), nn.ConvTranspose2d, (3, 5, 2, 2)),
        (lambda: nn.LazyConvTranspose3d(2, 1), (1, 3, 2, 2, 2), nn.ConvTranspose3d, (3, 2, 1, 1, 1)),
        (lambda: nn.LazyBatchNorm1d(), (4, 6), nn.BatchNorm1d, (6,)),
        (lambda: nn.LazyBatchNorm2d(momentum=0.3), (4, 6, 3, 3), nn.BatchNorm2d, (6,)),
        (lambda: nn.LazyBatchNorm3d(), (2, 6, 2, 2, 2), nn.BatchNorm3d, (6,)),
        (lambda: nn.LazyInstanceNorm1d(affine=True), (2, 3, 5), nn.InstanceNorm1d, (3,)),
        (lambda: nn.LazyInstanceNorm2d(affine=True), (2, 3, 4, 4), nn.InstanceNorm2d, (3,)),
        (lambda: nn.LazyInstanceNorm3d(affine=True), (2, 3, 2, 2, 2), nn.InstanceNorm3d, (3,)),
    ],
)
def test_lazy_layers_take_their_shapes_from_the_first_input(make, x, became, weight_shape):
    module = make()
    out = module(fg.randn(*x))
    assert type(module) is became
    assert tuple(module.weight.shape) == weight_shape
    if hasattr(module, "running_mean") and module.running_mean is not None:
        assert type(module.running_mean) is fg.Tensor and tuple(module.running_mean.shape) == weight_shape
    assert fg.equal(module(fg.randn(*x)).isfinite(), fg.ones(out.shape, dtype=fg.bool))


def test_a_lazy_batch_norm_repr_and_state_dict_before_and_after():
    bn = nn.LazyBatchNorm1d()
    assert repr(bn) == "LazyBatchNorm1d(0, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"
    state = bn.state_dict()
    assert list(state) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert repr(state["running_mean"]) == "<UninitializedBuffer>"
    bn(fg.randn(8, 4))
    assert repr(bn) == "BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"
    assert int(bn.num_batches_tracked) == 1


def test_loading_a_state_dict_gives_the_shapes_and_the_values():
    fg.manual_seed(0)
    trained = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3))
    with fg.no_grad():
        trained[1].running_mean.add_(2.0)
    lazy = nn.Sequential(nn.LazyLinear(3), nn.LazyBatchNorm1d())
    lazy.load_state_dict(trained.state_dict())
    assert tuple(lazy[0].weight.shape) == (3, 4)
    assert fg.equal(lazy[0].weight, trained[0].weight) and fg.equal(lazy[1].running_mean, trained[1].running_mean)
    lazy.eval()
    trained.eval()
    x = fg.randn(5, 4)
    assert fg.allclose(lazy(x), trained(x))
    assert type(lazy[0]) is nn.Linear


def test_a_lazy_module_copies_and_refuses_bad_groups():
    lazy = nn.Sequential(nn.LazyLinear(2))
    twin = copy.deepcopy(lazy)
    assert nn.parameter.is_lazy(twin[0].weight) and twin[0].weight is not lazy[0].weight
    twin(fg.randn(1, 3))
    assert nn.parameter.is_lazy(lazy[0].weight)  # the original is untouched
    with pytest.raises(ValueError, match="^in_channels must be divisible by groups$"):
        nn.LazyConv2d(4, 3, groups=2)(fg.randn(1, 3, 5, 5))


def test_a_first_input_that_is_no_tensor_raises_a_type_error():
    # torch fails inside, reading `.dim()` of the argument (AttributeError)
    with pytest.raises(AttributeError if AGAINST_TORCH else TypeError):
        nn.LazyConv1d(3, 3)((1.0, 2.0))


def test_a_compiled_model_of_lazy_layers_initialises_them_then_captures():
    model = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(2))
    compiled = fg.compile(model, fullgraph=True, backend="aot_eager")
    x = fg.randn(3, 5)
    first = compiled(x)  # eagerly: the layers take their shapes
    assert type(model[0]) is nn.Linear and tuple(model[2].weight.shape) == (2, 4)
    assert fg.allclose(first, model(x)) and fg.allclose(compiled(x), model(x))


@pytest.mark.skipif(AGAINST_TORCH, reason="torch leaves a lazy module initialised by a first call that then fails")
def test_a_failing_first_call_leaves_the_module_uninitialized():
    conv = nn.LazyConv1d(3, 3)
    with pytest.raises(RuntimeError):
        conv(fg.zeros(0, 3, dtype=fg.float64))  # the hook initialises in float32, then the forward refuses float64
    assert type(conv) is nn.LazyConv1d and conv.in_channels == 0 and nn.parameter.is_lazy(conv.weight)
    assert tuple(conv(fg.randn(2, 4, 8)).shape) == (2, 3, 6)  # a good first call initialises it as usual
    assert type(conv) is nn.Conv1d and tuple(conv.weight.shape) == (3, 4, 3)
    norm = nn.LazyBatchNorm2d()
    with pytest.raises(ValueError, match="^expected 4D input"):
        norm(fg.zeros(0, 3))
    assert repr(norm.running_mean) == "<UninitializedBuffer>" and norm.num_features == 0
