"""The layer classes of `ferrograd.nn`, one file per family as in PyTorch."""

from .activation import *  # noqa: F403
from .activation import __all__ as _activation
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, Linear
from .loss import *  # noqa: F403
from .loss import __all__ as _loss
from .module import Module
from .sparse import Embedding

__all__ = [
    "Module",
    "Sequential",
    "ModuleList",
    "ModuleDict",
    "ParameterList",
    "ParameterDict",
    "Identity",
    "Linear",
    "Bilinear",
    "Flatten",
    "Unflatten",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "AlphaDropout",
    "FeatureAlphaDropout",
    "Embedding",
    "PairwiseDistance",
    "CosineSimilarity",
    *_activation,
    *_loss,
]
