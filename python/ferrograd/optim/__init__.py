"""`ferrograd.optim`: PyTorch's optimizers, each `step()` one Rust call over every parameter.

`lr_scheduler` holds the learning-rate schedules.
"""

from .. import _lazy_submodules
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = [
    "ASGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "LBFGS",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SGD",
    "lr_scheduler",
    "swa_utils",
]

# `lr_scheduler` (the largest module here, and most programs' last import) loads on first use
_lazy_submodules.install(globals(), {"lr_scheduler", "swa_utils"})
TYPE_CHECKING = False  # True for type checkers only, which see the plain import
if TYPE_CHECKING:
    from . import lr_scheduler, swa_utils
