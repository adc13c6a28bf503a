"""Writes tiny checkpoints with real PyTorch into tests/golden/torch_files/, for test_torch_format.py to load
with ferrograd (so `make test` checks the format against torch's own files without torch installed).

Run with a Python that has torch: /work/torchenv/bin/python tests/golden/record_torch_files.py
Values are small and deterministic (arange-based, or from a fixed seed with the expected outputs saved beside
the model), so the test can check them exactly.
"""

import collections
import os

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_files")
DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")


def save(obj, name, **kwargs):
    torch.save(obj, os.path.join(OUT, name), **kwargs)


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    # every dtype, as arange(6) % 3 - 1 (bool: != 0), in a view that is not the whole storage
    base = torch.arange(6) % 3 - 1
    tensors = {name: (base != 0 if name == "bool" else base.to(getattr(torch, name))) for name in DTYPES}
    grid = torch.arange(12.0).reshape(3, 4)
    save(
        {
            "dtypes": tensors,
            "grid": grid,
            "column": grid[:, 1],  # a view: shares grid's storage, offset 1, stride 4
            "transposed": grid.t(),
            "tail": grid.view(-1)[5:],
            "param": torch.nn.Parameter(torch.tensor([1.5, -2.0])),
            "frozen": torch.nn.Parameter(torch.tensor([3.0]), requires_grad=False),
            "nested": [1, 2.5, "x", None, True, (3, {"deep": torch.tensor([7])}), torch.Size([2, 3])],
            "dtype": torch.float16,
            "empty": torch.zeros(0, 3),
        },
        "tensors.pt",
    )
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.LayerNorm(4))
    x = torch.randn(2, 3)
    save(model.state_dict(), "state_dict.pt")
    save(model, "module.pt")
    mha = torch.nn.MultiheadAttention(4, 2)
    q = torch.randn(3, 1, 4)
    with torch.no_grad():
        save({"x": x, "y": model(x), "q": q, "attn": mha(q, q, q)[0]}, "io.pt")
    save(mha, "mha.pt")
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    model(x).sum().backward()
    opt.step()
    save(opt.state_dict(), "adam.pt")
    save(collections.OrderedDict(a=torch.tensor([1.0, 2.0])), "legacy.pt", _use_new_zipfile_serialization=False)


if __name__ == "__main__":
    main()
