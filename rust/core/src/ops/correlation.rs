//! `cov` and `corrcoef`, composed as ATen's Correlation.cpp composes them (their grad_fns are torch's:
//! SqueezeBackward0 over DivBackward0 over MmBackward0, and ClampBackward1 for corrcoef).
use crate::bail;
use crate::binary::{ClampBound, ClampMethod};
use crate::error::Result;
use crate::ops::formula::c;
use crate::tensor::Tensor;
use crate::{DType, Scalar};

/// The dims of observations in a (variables, observations) matrix.
const OBSERVATIONS_DIM: isize = 1;

impl Tensor {
    /// `cov(correction, fweights, aweights)`: the covariance of the variables in rows (a 1-d input is one
    /// variable) over the observations in columns, weighted by integer frequencies and float weights.
    pub fn cov(&self, correction: i64, fweights: Option<&Tensor>, aweights: Option<&Tensor>) -> Result<Tensor> {
        if self.ndim() > 2 {
            bail!(
                Runtime,
                "cov(): expected input to have two or fewer dimensions but got an input with {} dimensions",
                self.ndim()
            );
        }
        if self.dtype() == DType::Bool {
            bail!(NotImplemented, "cov(): bool dtype is not supported for input");
        }
        let input = if self.ndim() < 2 { self.view(&[1, -1])? } else { self.clone() };
        let observations = input.shape()[1];
        let check_weights = |w: &Tensor, name: &str| -> Result<()> {
            if w.ndim() > 1 {
                bail!(
                    Runtime,
                    "cov(): expected {name} to have one or fewer dimensions but got {name} with {} dimensions",
                    w.ndim()
                );
            }
            let integral = !w.dtype().is_float() && w.dtype() != DType::Bool;
            if name == "fweights" && !integral {
                bail!(
                    Runtime,
                    "cov(): expected fweights to have integral dtype but got fweights with {} dtype",
                    w.dtype().scalar_type_name()
                );
            }
            if name == "aweights" && !w.dtype().is_float() {
                bail!(
                    Runtime,
                    "cov(): expected aweights to have floating point dtype but got aweights with {} dtype",
                    w.dtype().scalar_type_name()
                );
            }
            if w.numel() != observations {
                bail!(
                    Runtime,
                    "cov(): expected {name} to have the same numel as there are observations in the input but got \
                    {} != {observations}",
                    w.numel()
                );
            }
            if observations > 0 && w.detach().lt(&c(0.0))?.any()?.to_vec::<bool>()[0] {
                bail!(Runtime, "cov(): {name} cannot be negative");
            }
            Ok(())
        };
        let mut weights: Option<Tensor> = None;
        if let Some(f) = fweights {
            check_weights(f, "fweights")?;
            weights = Some(f.clone());
        }
        if let Some(a) = aweights {
            check_weights(a, "aweights")?;
            weights = Some(match weights {
                Some(f) => f.mul(a)?,
                None => a.clone(),
            });
        }
        let w_sum = match &weights {
            Some(w) => w.sum(None, false)?,
            None => Tensor::full(&[], Scalar::Int(observations as i64), DType::I64),
        };
        if weights.is_some() && w_sum.detach().eq(&c(0.0))?.to_vec::<bool>()[0] {
            bail!(Runtime, "cov(): weights sum to zero, can't be normalized");
        }
        let weighted = |t: &Tensor| -> Result<Tensor> {
            match &weights {
                Some(w) => t.mul(w),
                None => Ok(t.clone()),
            }
        };
        let avg = weighted(&input)?.sum(Some(&[OBSERVATIONS_DIM]), false)?.div(&w_sum)?;
        let correction_term = Tensor::wrapped_scalar(Scalar::Int(correction));
        let mut norm_factor = match (&weights, aweights) {
            (Some(w), Some(a)) if correction != 0 => {
                w_sum.sub(&correction_term.mul(&w.mul(a)?.sum(None, false)?)?.div(&w_sum)?)?
            }
            _ => w_sum.sub(&correction_term)?,
        };
        if norm_factor.detach().le(&c(0.0))?.to_vec::<bool>()[0] {
            // torch warns that the degrees of freedom are <= 0 and divides by zero
            norm_factor = norm_factor.mul(&c(0.0))?;
        }
        let centered = input.sub(&avg.unsqueeze(1)?)?;
        let product = centered.mm(&weighted(&centered)?.t()?)?;
        product.div(&norm_factor)?.squeeze()
    }

    /// `corrcoef()`: Pearson's correlation coefficients of the variables in rows, clipped to [-1, 1].
    pub fn corrcoef(&self) -> Result<Tensor> {
        if self.ndim() > 2 {
            bail!(
                Runtime,
                "corrcoef(): expected input to have two or fewer dimensions but got an input with {} dimensions",
                self.ndim()
            );
        }
        let cov = self.cov(1, None, None)?;
        if cov.ndim() == 0 {
            // one variable: NaN for a covariance of NaN, inf or 0, else 1
            return cov.div(&cov);
        }
        let stddev = cov.diagonal(0, 0, 1)?.sqrt()?;
        let scaled = cov.div(&stddev.view(&[-1, 1])?)?.div(&stddev.view(&[1, -1])?)?;
        scaled.clamp(
            Some(ClampBound::Number(Scalar::Int(-1))),
            Some(ClampBound::Number(Scalar::Int(1))),
            ClampMethod::Clamp,
        )
    }
}
