"""`ferrograd.utils.tensorboard` (`torch.utils.tensorboard`): `SummaryWriter` writing TensorBoard event files
through the `tensorboard` package (`pip install tensorboard`, or the `tensorboard` extra of ferrograd), which
`import ferrograd` never needs.

Scalars, histograms, text, hyperparameters, images and matplotlib figures are written as torch writes them;
PNG images are encoded here with zlib (no Pillow needed). `add_graph`, `add_embedding`, `add_audio`,
`add_video`, `add_mesh` and the PR-curve and custom-scalar layouts are not there yet.
"""

try:
    import tensorboard
except ModuleNotFoundError as e:
    if e.name != "tensorboard":
        raise
    raise ModuleNotFoundError(
        "No module named 'tensorboard': ferrograd.utils.tensorboard writes its event files through the "
        "tensorboard package. Install it with `pip install tensorboard` (or `pip install ferrograd[tensorboard]`).",
        name="tensorboard",
    ) from None


def _version_tuple(text):
    parts = []
    for piece in text.split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


if not hasattr(tensorboard, "__version__") or _version_tuple(tensorboard.__version__) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

del tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
