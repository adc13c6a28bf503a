"""The layer classes of `ferrograd.nn`, one file per family as in PyTorch."""

from .module import Module

__all__ = ["Module"]

# --- heavier layers (branch `layers`): convolution, pooling, normalisation, recurrent ---
from .batchnorm import BatchNorm1d, BatchNorm2d
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from .instancenorm import InstanceNorm1d, InstanceNorm2d
from .normalization import GroupNorm, LayerNorm
from .pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase

__all__ += [
    "Conv1d",
    "Conv2d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "MaxPool1d",
    "MaxPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "BatchNorm1d",
    "BatchNorm2d",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "LayerNorm",
    "GroupNorm",
    "RNNBase",
    "RNN",
    "LSTM",
    "GRU",
    "RNNCellBase",
    "RNNCell",
    "LSTMCell",
    "GRUCell",
]
