//! The nodes torch records for draws whose parameters require grad. A count or a 0/1 draw does not move
//! smoothly with its rate or probability, so torch's formula gives Poisson's rates and Bernoulli's
//! probabilities a zero gradient, and binomial none at all (backward through it fails).
use crate::autograd::{one, Backward, Ctx, Grads};
use crate::bail;
use crate::error::Result;
use crate::tensor::Tensor;

/// Which draw a node stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Draw {
    Poisson,
    Bernoulli,
    Binomial,
}

crate::backward_rule! {
    name_by = |rule| match (rule.draw) {
        Draw::Poisson => "PoissonBackward0",
        Draw::Bernoulli => "BernoulliBackward0",
        Draw::Binomial => "NotImplemented",
    };
    /// `poisson(rates)`, `bernoulli(p)` and `binomial(count, prob)`.
    pub struct DrawBackward {
        draw: Draw,
    }
}
impl Backward for DrawBackward {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        match self.draw {
            Draw::Binomial => bail!(Runtime, "derivative for aten::binomial is not implemented"),
            Draw::Poisson | Draw::Bernoulli => one(Ok(Tensor::zeros(g.shape(), g.dtype()))),
        }
    }
}

impl crate::autograd::AsField for Draw {
    fn as_field(&self) -> crate::autograd::Field<'_> {
        crate::autograd::Field::Opaque
    }
}
