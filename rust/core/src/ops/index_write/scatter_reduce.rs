//! `scatter_reduce(dim, index, src, reduce, include_self)`: `src`'s elements combined into `self` at the
//! positions `index` names along `dim` (sum, prod, mean, amax or amin), with torch's gradient rules.
use crate::autograd::{AsField, Backward, Ctx, Field, Grads, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::layout::for_each_index;
use crate::layout::{contiguous_strides, wrap_dim};
use crate::tensor::Tensor;
use crate::with_dtype;

/// How `scatter_reduce` combines the values that reach one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterReduce {
    Sum,
    Prod,
    Mean,
    Amax,
    Amin,
}

impl ScatterReduce {
    /// torch's `reduce` argument (it also takes "max" and "min" for amax and amin).
    pub fn parse(reduce: &str) -> Result<ScatterReduce> {
        Ok(match reduce {
            "sum" => ScatterReduce::Sum,
            "prod" => ScatterReduce::Prod,
            "mean" => ScatterReduce::Mean,
            "amax" | "max" => ScatterReduce::Amax,
            "amin" | "min" => ScatterReduce::Amin,
            _ => bail!(Runtime, "reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"),
        })
    }

    fn name(self) -> &'static str {
        match self {
            ScatterReduce::Sum => "sum",
            ScatterReduce::Prod => "prod",
            ScatterReduce::Mean => "mean",
            ScatterReduce::Amax => "amax",
            ScatterReduce::Amin => "amin",
        }
    }

    /// `acc` combined with a new value `v`; amax and amin keep a NaN that reaches them, as torch's.
    fn combine<T: Element>(self, acc: T, v: T) -> T {
        let is_nan = |x: T| x.partial_cmp(&x).is_none();
        match self {
            ScatterReduce::Sum | ScatterReduce::Mean => T::add(acc, v),
            ScatterReduce::Prod => T::mul(acc, v),
            ScatterReduce::Amax if is_nan(v) || v > acc => v,
            ScatterReduce::Amin if is_nan(v) || v < acc => v,
            ScatterReduce::Amax | ScatterReduce::Amin => acc,
        }
    }
}

impl AsField for ScatterReduce {
    fn as_field(&self) -> Field<'_> {
        Field::Str(self.name())
    }
}

/// A 0-d tensor's shape seen as one element along one dim (torch's `ensure_nonempty_size`).
fn nonempty(shape: &[usize]) -> Vec<usize> {
    if shape.is_empty() {
        vec![1]
    } else {
        shape.to_vec()
    }
}

/// torch's scatter checks of `index` against `self` and `src` (none for an empty index).
fn check_shapes(x: &Tensor, dim: usize, index: &Tensor, src: &Tensor) -> Result<()> {
    if index.numel() == 0 {
        return Ok(());
    }
    let (xs, is, ss) = (nonempty(x.shape()), nonempty(index.shape()), nonempty(src.shape()));
    if is.len() != xs.len() {
        bail!(Runtime, "Index tensor must have the same number of dimensions as self tensor");
    }
    if is.len() != ss.len() {
        bail!(Runtime, "Index tensor must have the same number of dimensions as src tensor");
    }
    let wrong = (0..is.len()).any(|d| is[d] > ss[d] || (d != dim && is[d] > xs[d]));
    if wrong {
        bail!(
            Runtime,
            "Expected index {:?} to be no larger than self {:?} apart from dimension {dim} and to be no larger size \
            than src {:?}",
            index.shape(),
            x.shape(),
            src.shape()
        );
    }
    Ok(())
}

/// (position in `self`, position in `src`) of each element of `index`, in its row-major order.
fn scatter_pairs(x: &Tensor, dim: usize, index: &Tensor, src: &Tensor) -> Result<Vec<(usize, usize)>> {
    let (xs, is, ss) = (nonempty(x.shape()), nonempty(index.shape()), nonempty(src.shape()));
    let (x_strides, src_strides) = (contiguous_strides(&xs), contiguous_strides(&ss));
    let values = index.to_vec::<i64>();
    let size = xs[dim];
    let mut pairs = Vec::with_capacity(values.len());
    let mut bad = None;
    let mut k = 0;
    for_each_index(&is, |i| {
        let v = values[k];
        k += 1;
        if v < 0 || v as usize >= size {
            bad.get_or_insert(v);
            return;
        }
        let at = |strides: &[usize], row: usize| -> usize {
            i.iter().zip(strides).enumerate().map(|(d, (&c, &s))| if d == dim { row * s } else { c * s }).sum()
        };
        pairs.push((at(&x_strides, v as usize), at(&src_strides, i[dim])));
    });
    if let Some(v) = bad {
        bail!(Runtime, "index {v} is out of bounds for dimension {dim} with size {size}");
    }
    Ok(pairs)
}

impl Tensor {
    /// `scatter_reduce(dim, index, src, reduce, include_self)`: each `src[i]` combined into
    /// `self[i with index[i] along dim]`; without `include_self` the positions reached start from the
    /// first value that reaches them. A mean of integers rounds down, as torch's.
    pub fn scatter_reduce(
        &self,
        dim: isize,
        index: &Tensor,
        src: &Tensor,
        reduce: ScatterReduce,
        include_self: bool,
    ) -> Result<Tensor> {
        let d = wrap_dim(dim, self.ndim())?;
        let index = match index.dtype() {
            DType::I64 => index.clone(),
            DType::I32 => index.to_dtype(DType::I64)?,
            _ => bail!(Runtime, "scatter_reduce(): Expected dtype int32/int64 for index"),
        };
        if src.dtype() != self.dtype() {
            bail!(Runtime, "scatter(): Expected self.dtype to be equal to src.dtype");
        }
        if reduce == ScatterReduce::Mean && self.dtype() == DType::Bool {
            bail!(NotImplemented, "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'");
        }
        check_shapes(self, d, &index, src)?;
        let pairs = if index.numel() == 0 { vec![] } else { scatter_pairs(self, d, &index, src)? };
        let out = with_dtype!(self.dtype(), T => {
            let mut out = self.to_vec::<T>();
            let values = src.to_vec::<T>();
            let mut count = vec![usize::from(include_self); out.len()];
            for &(p, s) in &pairs {
                out[p] = if count[p] == 0 { values[s] } else { reduce.combine(out[p], values[s]) };
                count[p] += 1;
            }
            if reduce == ScatterReduce::Mean {
                for &(p, _) in &pairs {
                    let n = count[p] as f64;
                    out[p] = if T::DTYPE.is_float() {
                        T::div(out[p], T::from_f64(n))
                    } else {
                        T::from_f64((out[p].to_f64() / n).floor())
                    };
                    // divided once per position
                    count[p] = 1;
                }
            }
            Tensor::from_vec(out, self.shape())?
        });
        let rule = |out: &Tensor| ScatterReduceBackward0 {
            dim: d,
            include_self,
            index: SavedTensor::input(&index),
            reduce,
            result: SavedTensor::output(out),
            self_: SavedTensor::input(self),
            src: SavedTensor::input(src),
        };
        Ok(crate::autograd::record(out, &[self, src], rule))
    }
}

crate::backward_rule! {
    /// `scatter_reduce(dim, index, src, reduce, include_self)`: torch's rules (prod divides out the
    /// other factors, a lone zero getting the product of the rest; amax/amin split the gradient evenly
    /// among the values equal to the result).
    pub struct ScatterReduceBackward0 {
        dim: usize,
        include_self: bool,
        index: SavedTensor,
        reduce: ScatterReduce,
        result: SavedTensor,
        self_: SavedTensor,
        src: SavedTensor,
    }
}
impl Backward for ScatterReduceBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (x, src, index) = (ctx.unpack(&self.self_)?, ctx.unpack(&self.src)?, ctx.unpack(&self.index)?);
        let (dim, include_self) = (self.dim as isize, self.include_self);
        let (zero, one) = (Tensor::scalar(0.0), Tensor::scalar(1.0));
        let gather = |t: &Tensor| t.gather(dim, &index);
        let scatter_add = |base: &Tensor, t: &Tensor| base.scatter(dim, &index, t, true, false);
        let (grad_self, grad_src) = match self.reduce {
            ScatterReduce::Sum => (g.clone(), gather(g)?),
            ScatterReduce::Prod => {
                let result = ctx.unpack(&self.result)?;
                let masked_self = x.masked_fill(&x.eq(&zero)?, &one)?;
                let masked_self_result = masked_self.scatter_reduce(dim, &index, &src, self.reduce, include_self)?;
                let grad_self = g.mul(&masked_self_result)?.div(&masked_self)?;
                let src_zero = src.eq(&zero)?;
                let zeros = Tensor::zeros(x.shape(), x.dtype());
                let src_num_zeros = gather(&scatter_add(&zeros, &src_zero.to_dtype(x.dtype())?)?)?;
                let src_single_zero = src_zero.logical_and(&src_num_zeros.eq(&one)?)?;
                let masked_src = src.masked_fill(&src_single_zero, &one)?;
                let masked_src_result = x.scatter_reduce(dim, &index, &masked_src, self.reduce, include_self)?;
                let grad_src = Tensor::where_(
                    &src_single_zero,
                    &gather(&g.mul(&masked_src_result)?)?,
                    &gather(&g.mul(&result)?)?.div(&src.masked_fill(&src_zero, &one)?)?,
                )?;
                (grad_self, grad_src)
            }
            ScatterReduce::Mean => {
                let start =
                    if include_self { Tensor::ones(g.shape(), g.dtype()) } else { Tensor::zeros(g.shape(), g.dtype()) };
                let n = scatter_add(&start, &Tensor::ones(src.shape(), g.dtype()))?;
                let n = n.masked_fill(&n.eq(&zero)?, &one)?;
                (g.div(&n)?, gather(g)?.div(&gather(&n)?)?)
            }
            ScatterReduce::Amax | ScatterReduce::Amin => {
                let result = ctx.unpack(&self.result)?;
                let value = gather(&result)?;
                let (self_is_result, src_is_value) = (x.eq(&result)?, src.eq(&value)?);
                let n = scatter_add(&self_is_result.to_dtype(x.dtype())?, &src_is_value.to_dtype(x.dtype())?)?;
                let distributed = g.div(&n)?;
                (self_is_result.mul(&distributed)?, src_is_value.mul(&gather(&distributed)?)?)
            }
        };
        let grad_self = if include_self { grad_self } else { grad_self.scatter(dim, &index, &zero, false, true)? };
        Ok(vec![Some(grad_self), Some(grad_src)])
    }
}
