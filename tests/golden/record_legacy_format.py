"""Writes checkpoints in PyTorch's legacy format (`torch.save(..., _use_new_zipfile_serialization=False)`) into
tests/golden/torch_files/legacy/, and what torch loads back from each into tests/golden/legacy_format.json, for
tests/test_torch_legacy_format.py to check ferrograd's loader against (without torch installed).

Run with a Python that has torch: /work/torchenv/bin/python tests/golden/record_legacy_format.py
Values are small and deterministic (arange-based, or from a fixed seed with the expected outputs saved), so the
test compares them exactly.
"""

import collections
import json
import os

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import torch
from checkpoints import describe

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "torch_files", "legacy")


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 2, 2)
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


def objects():
    torch.manual_seed(0)
    net = Net()
    x = torch.randn(2, 1, 3, 3)
    with torch.no_grad():
        y = net(x)
    base = torch.arange(12.0)
    other = torch.arange(6, dtype=torch.int64) * 10
    dtypes = {
        name: torch.tensor([0.5, -1.25, 3.0, 0.0, -7.5, 1e-3]).to(getattr(torch, name))
        for name in ("float32", "float64", "float16", "bfloat16")
    }
    dtypes["int64"] = torch.tensor([-(2**62), -1, 0, 1, 2**62 + 3])
    dtypes["int32"] = torch.tensor([-(2**31), 7, 2**31 - 1], dtype=torch.int32)
    dtypes["int16"] = torch.tensor([-300, 300], dtype=torch.int16)
    dtypes["int8"] = torch.tensor([-128, 127], dtype=torch.int8)
    dtypes["uint8"] = torch.tensor([0, 255, 9], dtype=torch.uint8)
    dtypes["bool"] = torch.tensor([True, False, True, True])
    dtypes["matrix"] = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    dtypes["scalar"] = torch.tensor(2.5)
    dtypes["empty"] = torch.zeros(0, 3)
    return {
        "state_dict": net.state_dict(),
        "io": {"x": x, "y": y},
        "dtypes": dtypes,
        "views": {
            "base": base,
            "tail": base[5:],  # offset 5 into base's storage
            "column": base.view(3, 4)[:, 1],  # offset 1, stride 4
            "transposed": base.view(3, 4).t(),
            "other": other,
            "other_odd": other[1::2],
        },
        "nested": collections.OrderedDict(
            [
                ("list", [1, 2.5, "x", None, True, [torch.tensor([7, 8])]]),
                ("dict", {"deep": {"t": torch.tensor([[1.0, 2.0]])}, "n": -3}),
                ("tuple", (torch.tensor([True]), "y")),
                ("ordered", collections.OrderedDict(b=1, a=torch.tensor([0.25]))),
            ]
        ),
        "params": {
            "w": torch.nn.Parameter(torch.tensor([1.5, -2.0])),
            "frozen": torch.nn.Parameter(torch.ones(1), requires_grad=False),
        },
        "int": 42,
        "float": -0.375,
        "str": "ferrograd ☃",
    }


def main():
    os.makedirs(OUT, exist_ok=True)
    expected = {}
    for name, obj in objects().items():
        path = os.path.join(OUT, f"{name}.pt")
        torch.save(obj, path, _use_new_zipfile_serialization=False)
        expected[name] = describe(torch.load(path, weights_only=True))
    model = torch.nn.Linear(3, 2)  # a whole module (weights_only=False): its class is a persistent id
    torch.save(model, os.path.join(OUT, "module.pt"), _use_new_zipfile_serialization=False)
    x = torch.arange(6.0).reshape(2, 3) - 2
    with torch.no_grad():
        expected["module"] = describe({"x": x, "y": model(x)})
    with open(os.path.join(HERE, "legacy_format.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
