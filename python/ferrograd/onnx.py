"""`torch.onnx`, as far as programs that merely import it need: ferrograd has no ONNX exporter.

Programs import it at the top and export only when asked (pytorch/examples' word_language_model does
`import torch.onnx` and exports under `--onnx-export`), so the import works and `export` says it cannot.
"""


def is_in_onnx_export():
    """False: ferrograd never traces a model for ONNX."""
    return False


def export(model, args=(), f=None, *more, **options):
    raise NotImplementedError(
        "ferrograd cannot export ONNX models; save the weights with ferrograd.save(model.state_dict(), path) "
        "(PyTorch's format), load it into the same model in PyTorch and export from there"
    )
