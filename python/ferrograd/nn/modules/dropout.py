"""Dropout layers: active in training mode, the identity after `eval()`."""

from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    __constants__ = ["p", "inplace"]

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zeroes each element with probability p and scales the rest by 1 / (1 - p)."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of (N, C, L) or (C, L) inputs."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of (N, C, H, W) or (C, H, W) inputs."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) inputs."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps the mean and variance of SELU activations."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
