//! Broadcasting binary ops with PyTorch's type promotion: arithmetic (`arith.rs`), maximum, atan2,
//! remainders (`pointwise.rs`), clamp and lerp (`clamp.rs`), `& | ^ << >> ~` (`bitwise.rs`); here
//! comparisons, logic and `where`.
mod arith;
mod bitwise;
mod clamp;
mod pointwise;
mod scalar_fns;

pub use arith::*;
pub use bitwise::*;
pub use clamp::*;
pub use pointwise::*;

use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::compile::{traced, NodeKind};
use crate::dtype::{result_type, DType, Scalar};
use crate::element::Element;
use crate::error::Result;
use crate::kernels::elementwise::{map2, map3};
use crate::layout::{broadcast_shapes, Layout};
use crate::ops::formula::c;
use crate::tensor::Tensor;
use crate::{bail, with_dtype};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Compare {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Compare {
    /// PyTorch's op name.
    pub fn name(self) -> &'static str {
        match self {
            Compare::Eq => "eq",
            Compare::Ne => "ne",
            Compare::Lt => "lt",
            Compare::Le => "le",
            Compare::Gt => "gt",
            Compare::Ge => "ge",
        }
    }
}

/// Runs `f` over both operands read as `T` and broadcast to `shape`.
pub(crate) fn zip_as<T: Element, U: Element>(
    a: &Tensor,
    b: &Tensor,
    shape: &[usize],
    f: impl Fn(T, T) -> U + Sync,
) -> Result<Vec<U>> {
    a.with_data(|la: &Layout, xa: &[T]| {
        b.with_data(|lb: &Layout, xb: &[T]| Ok(map2(&la.broadcast_to(shape)?, xa, &lb.broadcast_to(shape)?, xb, &f)))
    })
}

fn compare_kernel<T: Element>(op: Compare, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Vec<bool>> {
    match op {
        Compare::Eq => zip_as(a, b, shape, |x: T, y: T| x == y),
        Compare::Ne => zip_as(a, b, shape, |x: T, y: T| x != y),
        Compare::Lt => zip_as(a, b, shape, |x: T, y: T| x < y),
        Compare::Le => zip_as(a, b, shape, |x: T, y: T| x <= y),
        Compare::Gt => zip_as(a, b, shape, |x: T, y: T| x > y),
        Compare::Ge => zip_as(a, b, shape, |x: T, y: T| x >= y),
    }
}

impl Tensor {
    pub fn compare(&self, other: &Tensor, op: Compare) -> Result<Tensor> {
        if self.is_complex() || other.is_complex() {
            return self.complex_compare(other, op);
        }
        let eager = move |x: &[&Tensor]| x[0].compare_eager(x[1], op);
        traced(op.name(), NodeKind::Elementwise, &[self, other], || eager(&[self, other]), || eager)
    }

    fn compare_eager(&self, other: &Tensor, op: Compare) -> Result<Tensor> {
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        let dtype = result_type(self.promotion_key(), other.promotion_key());
        Tensor::in_memory_order(&[self, other], &shape, |x, shape| {
            Tensor::from_vec(with_dtype!(dtype, T => compare_kernel::<T>(op, x[0], x[1], shape)?), shape)
        })
    }
    /// `==` and `!=` of complex numbers: both parts equal (no order: the other comparisons are refused).
    fn complex_compare(&self, other: &Tensor, op: Compare) -> Result<Tensor> {
        let dtype = result_type(self.promotion_key(), other.promotion_key());
        if !matches!(op, Compare::Eq | Compare::Ne) {
            return Err(crate::dtype::complex_refusal(dtype));
        }
        let (a, b) = (self.detach().to_dtype(dtype)?, other.detach().to_dtype(dtype)?);
        let (ar, ai) = a.parts()?;
        let (br, bi) = b.parts()?;
        let equal = ar.eq(&br)?.logical_and(&ai.eq(&bi)?)?;
        if op == Compare::Eq {
            Ok(equal)
        } else {
            equal.logical_not()
        }
    }

    /// What `self.eq_(other)` (and the other in-place comparisons) writes: the comparison in this tensor's
    /// dtype; recorded (torch's `EqBackward0`, ...: zero gradients) when an operand requires grad, so a
    /// tensor in the graph does not keep the history of the values it no longer holds.
    pub fn compare_for_inplace(&self, other: &Tensor, op: Compare) -> Result<Tensor> {
        let out = self.compare(other, op)?.cast_detached(self.dtype());
        let inputs = [self, other];
        Ok(match op {
            Compare::Eq => record(out, &inputs, |_| EqBackward0),
            Compare::Ne => record(out, &inputs, |_| NeBackward0),
            Compare::Lt => record(out, &inputs, |_| LtBackward0),
            Compare::Le => record(out, &inputs, |_| LeBackward0),
            Compare::Gt => record(out, &inputs, |_| GtBackward0),
            Compare::Ge => record(out, &inputs, |_| GeBackward0),
        })
    }
    pub fn eq(&self, other: &Tensor) -> Result<Tensor> {
        self.compare(other, Compare::Eq)
    }
    pub fn ge(&self, other: &Tensor) -> Result<Tensor> {
        self.compare(other, Compare::Ge)
    }
    pub fn gt(&self, other: &Tensor) -> Result<Tensor> {
        self.compare(other, Compare::Gt)
    }
    pub fn le(&self, other: &Tensor) -> Result<Tensor> {
        self.compare(other, Compare::Le)
    }
    pub fn lt(&self, other: &Tensor) -> Result<Tensor> {
        self.compare(other, Compare::Lt)
    }
    pub fn ne(&self, other: &Tensor) -> Result<Tensor> {
        self.compare(other, Compare::Ne)
    }

    pub fn logical_and(&self, other: &Tensor) -> Result<Tensor> {
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        Tensor::from_vec(zip_as(self, other, &shape, |x: bool, y: bool| x && y)?, &shape)
    }
    pub fn logical_or(&self, other: &Tensor) -> Result<Tensor> {
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        Tensor::from_vec(zip_as(self, other, &shape, |x: bool, y: bool| x || y)?, &shape)
    }
    pub fn logical_xor(&self, other: &Tensor) -> Result<Tensor> {
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        Tensor::from_vec(zip_as(self, other, &shape, |x: bool, y: bool| x != y)?, &shape)
    }
    pub fn logical_not(&self) -> Result<Tensor> {
        let eager = |x: &[&Tensor]| x[0].logical_not_eager();
        traced("logical_not", NodeKind::Elementwise, &[self], || eager(&[self]), || eager)
    }

    fn logical_not_eager(&self) -> Result<Tensor> {
        Tensor::from_vec(self.to_vec::<bool>().into_iter().map(|x| !x).collect(), self.shape())
    }

    /// Elementwise `cond ? a : b`, broadcasting all three.
    pub fn where_(cond: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        if a.is_complex() || b.is_complex() {
            // the pairs chosen, the condition repeated over each pair
            let dtype = result_type(a.promotion_key(), b.promotion_key());
            let (a, b) = (a.to_dtype(dtype)?.view_as_real()?, b.to_dtype(dtype)?.view_as_real()?);
            return Tensor::where_(&cond.unsqueeze(-1)?, &a, &b)?.view_as_complex();
        }
        let eager = |x: &[&Tensor]| Tensor::where_eager(x[0], x[1], x[2]);
        traced("where", NodeKind::Elementwise, &[cond, a, b], || eager(&[cond, a, b]), || eager)
    }

    fn where_eager(cond: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        if cond.dtype() != DType::Bool {
            bail!(
                Runtime,
                "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
                cond.dtype()
            );
        }
        let dtype = result_type(a.promotion_key(), b.promotion_key());
        for number in [a, b].into_iter().filter(|t| t.0.wrapped_number) {
            number.item()?.check_fits(dtype)?;
        }
        // laid out as its operands are (torch's rule: `where(x.T > 0, x.T, 0)` comes back transposed), and so read
        // front to back
        let shape = broadcast_shapes(&broadcast_shapes(cond.shape(), a.shape())?, b.shape())?;
        let out = Tensor::in_memory_order(&[cond, a, b], &shape, |x, _| Tensor::selected(x[0], x[1], x[2], dtype))?;
        Ok(record(out, &[cond, a, b], |_| WhereBackward0 { condition: SavedTensor::input(cond) }))
    }

    /// `cond ? a : b` of two real tensors read as `dtype`, broadcasting all three, unrecorded: `where`'s values (and
    /// `masked_fill`'s).
    pub(crate) fn selected(cond: &Tensor, a: &Tensor, b: &Tensor, dtype: DType) -> Result<Tensor> {
        let shape = broadcast_shapes(&broadcast_shapes(cond.shape(), a.shape())?, b.shape())?;
        Ok(with_dtype!(dtype, T => {
            let v = cond.with_data(|lc, c: &[bool]| {
                a.with_data(|la, xa: &[T]| {
                    b.with_data(|lb, xb: &[T]| -> Result<Vec<T>> {
                        let l = [&lc.broadcast_to(&shape)?, &la.broadcast_to(&shape)?, &lb.broadcast_to(&shape)?];
                        Ok(map3(l, c, xa, xb, |c, x, y| if c { x } else { y }))
                    })
                })
            })?;
            Tensor::from_vec(v, &shape)?
        }))
    }

    /// `torch.equal`: same shape and the same values.
    pub fn equal(&self, other: &Tensor) -> Result<bool> {
        if self.shape() != other.shape() {
            return Ok(false);
        }
        Ok(self.eq(other)?.to_vec::<bool>().into_iter().all(|b| b))
    }

    /// `torch.isclose`: |a - b| <= atol + rtol·|b| elementwise (broadcasting), infinities close only to
    /// themselves, NaNs close to each other only if `equal_nan`; both operands of one dtype.
    pub fn isclose(&self, other: &Tensor, rtol: f64, atol: f64, equal_nan: bool) -> Result<Tensor> {
        if self.dtype() != other.dtype() {
            bail!(Runtime, "{} did not match {}", self.dtype().scalar_type_name(), other.dtype().scalar_type_name());
        }
        if rtol < 0.0 {
            bail!(Runtime, "rtol must be greater than or equal to zero, but got {rtol}");
        }
        if atol < 0.0 {
            bail!(Runtime, "atol must be greater than or equal to zero, but got {atol}");
        }
        if self.is_complex() {
            return self.complex_isclose(other, rtol, atol, equal_nan);
        }
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        let close = zip_as(self, other, &shape, |a: f64, b: f64| {
            if a == b {
                return true;
            }
            if a.is_nan() || b.is_nan() {
                return equal_nan && a.is_nan() && b.is_nan();
            }
            if a.is_infinite() || b.is_infinite() {
                return false;
            }
            (a - b).abs() <= atol + rtol * b.abs()
        })?;
        Tensor::from_vec(close, &shape)
    }

    /// `isclose` of complex tensors, as torch computes it: equal, or both NaN (a NaN part) with `equal_nan`, or a
    /// finite `|a - b|` within `atol + |rtol * b|`.
    fn complex_isclose(&self, other: &Tensor, rtol: f64, atol: f64, equal_nan: bool) -> Result<Tensor> {
        let (a, b) = (self.detach(), other.detach());
        let mut close = a.eq(&b)?;
        if equal_nan {
            // NaN is the one value unequal to itself
            close = close.logical_or(&a.ne(&a)?.logical_and(&b.ne(&b)?)?)?;
        }
        if rtol == 0.0 && atol == 0.0 {
            return Ok(close);
        }
        let allowed = b.mul(&Tensor::wrapped_scalar(Scalar::Float(rtol)))?.unary(crate::ops::unary::Abs)?;
        let allowed = allowed.add(&Tensor::wrapped_scalar(Scalar::Float(atol)))?;
        let actual = a.sub(&b)?.unary(crate::ops::unary::Abs)?;
        let finite = actual.lt(&Tensor::wrapped_scalar(Scalar::Float(f64::INFINITY)))?;
        close.logical_or(&finite.logical_and(&actual.le(&allowed)?)?)
    }

    /// `torch.allclose`: `isclose` everywhere.
    pub fn allclose(&self, other: &Tensor, rtol: f64, atol: f64, equal_nan: bool) -> Result<bool> {
        Ok(self.isclose(other, rtol, atol, equal_nan)?.to_vec::<bool>().into_iter().all(|b| b))
    }
}

crate::backward_rule! {
    /// `where(condition, self, other)`: the gradient goes to whichever side was picked.
    pub struct WhereBackward0 {
        condition: SavedTensor,
    }
}
impl Backward for WhereBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let cond = ctx.unpack(&self.condition)?;
        Ok(vec![
            None,
            ctx.grad_if(1, || Tensor::where_(&cond, g, &c(0.0)))?,
            ctx.grad_if(2, || Tensor::where_(&cond, &c(0.0), g))?,
        ])
    }
}

/// The rules of the in-place comparisons: both operands get a zero gradient.
macro_rules! comparison_rules {
    ($($name:ident),*) => {$(
        crate::backward_rule! {
            pub struct $name;
        }
        impl Backward for $name {
            fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
                Ok(vec![ctx.grad_if(0, || g.mul(&c(0.0)))?, ctx.grad_if(1, || g.mul(&c(0.0)))?])
            }
        }
    )*};
}
comparison_rules!(EqBackward0, NeBackward0, LtBackward0, LeBackward0, GtBackward0, GeBackward0);
