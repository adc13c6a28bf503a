"""`nn.DataParallel` on a machine without GPUs: torch's keeps no devices and calls the module as it is; the module
sits under `module`, so the state dict's keys carry the `module.` prefix."""

import ferrograd as fg

nn = fg.nn


def test_data_parallel_calls_the_module_and_prefixes_its_state():
    fg.manual_seed(0)
    inner = nn.Linear(2, 3)
    model = nn.DataParallel(inner)
    x = fg.randn(4, 2)
    assert fg.equal(model(x), inner(x))
    assert model.device_ids == [] and model.module is inner
    assert list(model.state_dict()) == ["module.weight", "module.bias"]
    assert repr(model) == "DataParallel(\n  (module): Linear(in_features=2, out_features=3, bias=True)\n)"
    assert nn.parallel.DataParallel is nn.DataParallel
    model(x).sum().backward()
    assert inner.weight.grad is not None
