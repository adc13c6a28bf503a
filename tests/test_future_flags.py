"""`torch.__future__`'s switches for how a module's parameters change under `.double()`/`.to()` and
`load_state_dict` (pytorch/tutorials' swap_tensors recipe). Runs against torch too (FG_TEST_AGAINST_TORCH=1)."""

import ferrograd as fg
import pytest
from helpers import assert_tensor


@pytest.fixture
def future():
    yield fg.__future__
    fg.__future__.set_overwrite_module_params_on_conversion(False)
    fg.__future__.set_swap_module_params_on_conversion(False)


def _trained_linear():
    fg.manual_seed(0)
    m = fg.nn.Linear(2, 1)
    m(fg.ones(1, 2)).sum().backward()
    return m


@pytest.mark.parametrize("mode", ["default", "overwrite", "swap"])
def test_conversion_keeps_or_replaces_the_parameter_objects(future, mode):
    assert future.get_overwrite_module_params_on_conversion() is False
    assert future.get_swap_module_params_on_conversion() is False
    future.set_overwrite_module_params_on_conversion(mode == "overwrite")
    future.set_swap_module_params_on_conversion(mode == "swap")
    m = _trained_linear()
    weight, grad, values = m.weight, m.weight.grad, m.weight.detach().clone()
    opt = fg.optim.SGD(m.parameters(), lr=0.1)
    m.double()
    kept = mode != "overwrite"
    assert (m.weight is weight) is kept and (m.weight.grad is grad) is kept
    assert (opt.param_groups[0]["params"][0] is m.weight) is kept
    assert type(m.weight) is fg.nn.Parameter and m.weight.requires_grad
    assert m.weight.dtype == m.weight.grad.dtype == fg.float64
    assert_tensor(m.weight, values.double())
    assert_tensor(m.weight.grad, fg.ones(1, 2, dtype=fg.float64))


def test_load_state_dict_swaps_the_loaded_tensors_into_the_parameters(future):
    future.set_swap_module_params_on_conversion(True)
    m = _trained_linear()
    weight, bias = m.weight, m.bias
    source = fg.nn.Linear(2, 1)
    with fg.no_grad():
        source.weight.fill_(0.25)
        source.bias.fill_(-1.0)
    assert str(m.load_state_dict(source.state_dict())) == "<All keys matched successfully>"
    assert m.weight is weight and m.bias is bias and m.weight.requires_grad
    assert m.weight.tolist() == [[0.25, 0.25]] and m.bias.tolist() == [-1.0]
    assert source.weight.tolist() == [[0.25, 0.25]]  # the checkpoint's tensors are left as they were
    m.zero_grad()
    m(fg.ones(1, 2)).sum().backward()
    assert m.weight.grad.tolist() == [[1.0, 1.0]]
