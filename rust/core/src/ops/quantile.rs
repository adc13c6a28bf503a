//! `quantile` and `nanquantile`, composed as torch composes them (ATen's `quantile_compute`): sort the rows,
//! turn each q into a rank, gather the values below and above it and `lerp` between them, then reshape in
//! place (so the result's grad_fn is torch's `SqueezeBackward4` over `LerpBackward1` or `GatherBackward0`,
//! and the gathers read the input's rows, not a sorted copy).
use crate::bail;
use crate::error::Result;
use crate::layout::wrap_dim;
use crate::ops::formula::c;
use crate::ops::unary::FloatClass;
use crate::tensor::Tensor;
use crate::DType;

/// How a quantile between two ranks is read (torch's `interpolation=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuantileInterpolation {
    Linear,
    Lower,
    Higher,
    Midpoint,
    Nearest,
}

impl QuantileInterpolation {
    pub fn parse(name: &str) -> Result<QuantileInterpolation> {
        Ok(match name {
            "linear" => QuantileInterpolation::Linear,
            "lower" => QuantileInterpolation::Lower,
            "higher" => QuantileInterpolation::Higher,
            "midpoint" => QuantileInterpolation::Midpoint,
            "nearest" => QuantileInterpolation::Nearest,
            _ => bail!(
                Runtime,
                "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got {name}"
            ),
        })
    }
}

/// A double as C++'s `<<` prints it (6 significant digits, no trailing zeros).
pub(crate) fn cxx_double(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e6 {
        return format!("{}", v as i64);
    }
    let s = format!("{:.*e}", 5, v);
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-5..6).contains(&exp) {
        let digits = (5 - exp).max(0) as usize;
        let fixed = format!("{v:.digits$}");
        return if fixed.contains('.') { fixed.trim_end_matches('0').trim_end_matches('.').to_string() } else { fixed };
    }
    let mantissa = if mantissa.contains('.') { mantissa.trim_end_matches('0').trim_end_matches('.') } else { mantissa };
    format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

impl Tensor {
    /// `quantile(q)` with a Python number q: checked here, then the tensor form with q in this dtype.
    pub fn quantile_scalar(
        &self,
        q: f64,
        dim: Option<isize>,
        keepdim: bool,
        interpolation: QuantileInterpolation,
        ignore_nan: bool,
    ) -> Result<Tensor> {
        if !(0.0..=1.0).contains(&q) {
            bail!(Runtime, "quantile() q must be in the range [0, 1] but got {}", cxx_double(q));
        }
        let q = Tensor::full(&[], crate::Scalar::Float(q), self.dtype());
        self.quantile(&q, dim, keepdim, interpolation, ignore_nan)
    }

    /// `quantile(q, dim, keepdim, interpolation)` (`nanquantile` when `ignore_nan`; torch's messages say
    /// `quantile()` for both): q a 0-d or 1-d tensor of this dtype; a 1-d q puts its quantiles first.
    pub fn quantile(
        &self,
        q: &Tensor,
        dim: Option<isize>,
        keepdim: bool,
        interpolation: QuantileInterpolation,
        ignore_nan: bool,
    ) -> Result<Tensor> {
        if self.numel() == 0 {
            bail!(Runtime, "quantile() input tensor must be non-empty");
        }
        if q.ndim() > 1 {
            bail!(Runtime, "quantile() q must be a scalar or 1D tensor");
        }
        if !matches!(self.dtype(), DType::F32 | DType::F64) {
            bail!(Runtime, "quantile() input tensor must be either float or double dtype");
        }
        if q.dtype() != self.dtype() {
            bail!(Runtime, "quantile() q tensor must be same dtype as the input tensor");
        }
        let wrapped = dim.map(|d| wrap_dim(d, self.ndim())).transpose()?;
        let qs = q.detach();
        if qs.lt(&c(0.0))?.logical_or(&qs.gt(&c(1.0))?)?.any()?.to_vec::<bool>()[0] {
            bail!(Runtime, "quantile() q values must be in the range [0, 1]");
        }
        // the result's shape with q's dim in front (of size 1 for a 0-d q)
        let mut out_shape: Vec<usize> = match wrapped {
            Some(d) if self.ndim() > 0 => {
                let mut s = self.shape().to_vec();
                if keepdim {
                    s[d] = 1;
                } else {
                    s.remove(d);
                }
                s
            }
            _ if keepdim => vec![1; self.ndim()],
            _ => vec![],
        };
        out_shape.insert(0, q.numel());
        // the rows to read, as in_shape = (reduced dims, n): torch sorts them without history and gathers
        // the quantiles' values from the rows themselves through the sort's indices
        let rows = match wrapped {
            None => self.flatten(0, -1)?,
            Some(d) if d + 1 == self.ndim() || self.ndim() == 0 => self.clone(),
            Some(d) => self.unsqueeze(-1)?.transpose(d as isize, -1)?,
        };
        let n = rows.shape().last().copied().unwrap_or(1);
        let mut in_shape = out_shape[1..].to_vec();
        in_shape.push(n);
        let rows = rows.reshape(&in_shape)?;
        let (sorted, order) = rows.detach().sort(-1, false, false)?;
        let nan = sorted.float_class(FloatClass::Nan)?;
        let ranks = if ignore_nan {
            let count =
                nan.logical_not()?.sum(Some(&[-1]), true)?.sub(&Tensor::wrapped_scalar(crate::Scalar::Int(1)))?;
            let ranks = qs.mul(&count)?;
            Tensor::where_(&ranks.lt(&c(0.0))?, &c(0.0), &ranks)?
        } else {
            let last = (n - 1) as f64;
            let ranks = qs.mul(&c(last))?;
            let any_nan = nan.sum(Some(&[-1]), true)?.gt(&c(0.0))?;
            Tensor::where_(&any_nan, &c(last), &ranks)?
        };
        let ranks = match interpolation {
            QuantileInterpolation::Lower => ranks.floor()?,
            QuantileInterpolation::Higher => ranks.ceil()?,
            QuantileInterpolation::Nearest => ranks.round(0)?,
            QuantileInterpolation::Linear | QuantileInterpolation::Midpoint => ranks,
        };
        let below = ranks.to_dtype(DType::I64)?;
        let mut values = rows.gather(-1, &order.gather(-1, &below)?)?;
        if matches!(interpolation, QuantileInterpolation::Linear | QuantileInterpolation::Midpoint) {
            let weights = if interpolation == QuantileInterpolation::Midpoint {
                Tensor::full(ranks.shape(), crate::Scalar::Float(0.5), ranks.dtype())
            } else {
                ranks.sub(&below)?
            };
            let above = rows.gather(-1, &order.gather(-1, &ranks.ceil()?.to_dtype(DType::I64)?)?)?;
            values = values.lerp(&above, &weights)?;
        }
        let last = values.ndim() - 1;
        if q.ndim() == 0 {
            return Ok(values.squeezed_in_place(last));
        }
        let values = values.unsqueezed_in_place(0);
        let last = values.ndim() - 1;
        Ok(values.transposed_in_place(0, last).squeezed_in_place(last))
    }
}
