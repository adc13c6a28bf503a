"""torch.distributions.transforms: invertible maps with their log |det Jacobian|, for
TransformedDistribution and `biject_to`/`transform_to`. Defined by concern in `_transform.py` (the base,
composition and structure), `_elementwise_transforms.py` and `_vector_transforms.py`."""

from ._elementwise_transforms import (
    AbsTransform,
    AffineTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    PowerTransform,
    SigmoidTransform,
    SoftplusTransform,
    TanhTransform,
)
from ._transform import (
    CatTransform,
    ComposeTransform,
    IndependentTransform,
    ReshapeTransform,
    StackTransform,
    Transform,
    identity_transform,
)
from ._vector_transforms import (
    CorrCholeskyTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    SoftmaxTransform,
    StickBreakingTransform,
)

__all__ = [
    "AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
    "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
    "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftplusTransform",
    "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "Transform",
    "identity_transform",
]  # fmt: skip
