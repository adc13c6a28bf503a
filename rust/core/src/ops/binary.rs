//! Broadcasting binary ops with PyTorch's type promotion, plus comparisons, logic and `where`.
use crate::autograd::{record, BackwardOp, SavedTensor};
use crate::dtype::{result_type, DType};
use crate::element::Element;
use crate::error::Result;
use crate::kernels::elementwise::{map2, map3};
use crate::layout::{broadcast_shapes, Layout};
use crate::tensor::Tensor;
use crate::{bail, with_dtype};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Compare {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Runs `f` over both operands read as `T` and broadcast to `shape`.
fn zip_as<T: Element, U: Element>(a: &Tensor, b: &Tensor, shape: &[usize], f: impl Fn(T, T) -> U) -> Result<Vec<U>> {
    a.with_data(|la: &Layout, xa: &[T]| {
        b.with_data(|lb: &Layout, xb: &[T]| Ok(map2(&la.broadcast_to(shape)?, xa, &lb.broadcast_to(shape)?, xb, &f)))
    })
}

fn arith_kernel<T: Element>(op: Arith, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Vec<T>> {
    match op {
        Arith::Add => zip_as(a, b, shape, T::add),
        Arith::Sub => zip_as(a, b, shape, T::sub),
        Arith::Mul => zip_as(a, b, shape, T::mul),
        Arith::Div => zip_as(a, b, shape, T::div),
        Arith::Pow => zip_as(a, b, shape, T::pow),
    }
}

fn arith(a: &Tensor, b: &Tensor, op: Arith) -> Result<Tensor> {
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    let mut dtype = result_type(a.promotion_key(), b.promotion_key());
    if op == Arith::Div {
        dtype = dtype.to_float();
    }
    if op == Arith::Sub {
        match (a.dtype() == DType::Bool, b.dtype() == DType::Bool) {
            (true, true) => bail!(Runtime, "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."),
            (true, false) | (false, true) => bail!(Runtime, "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."),
            _ => {}
        }
    }
    if dtype == DType::I64 && op == Arith::Pow && b.dtype() != DType::Bool && b.to_vec::<i64>().iter().any(|&e| e < 0) {
        bail!(Runtime, "Integers to negative integer powers are not allowed.");
    }
    let out = with_dtype!(dtype, T => Tensor::from_vec(arith_kernel::<T>(op, a, b, &shape)?, &shape)?);
    let backward = || match op {
        Arith::Add => BackwardOp::Add,
        Arith::Sub => BackwardOp::Sub { reversed: a.0.wrapped_number },
        Arith::Mul => BackwardOp::Mul,
        Arith::Div => BackwardOp::Div,
        Arith::Pow if b.0.wrapped_number => BackwardOp::PowScalar { exponent: b.to_vec::<f64>()[0] },
        Arith::Pow if a.0.wrapped_number => BackwardOp::ScalarPow { base: a.to_vec::<f64>()[0] },
        Arith::Pow => BackwardOp::Pow,
    };
    let saved = |out: &Tensor| match op {
        Arith::Add | Arith::Sub => vec![],
        Arith::Mul | Arith::Div => vec![SavedTensor::input(a), SavedTensor::input(b)],
        Arith::Pow if b.0.wrapped_number => vec![SavedTensor::input(a)],
        Arith::Pow if a.0.wrapped_number => vec![SavedTensor::output(out)],
        Arith::Pow => vec![SavedTensor::input(a), SavedTensor::input(b), SavedTensor::output(out)],
    };
    Ok(record(out, &[a, b], backward, saved))
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
    pub fn add(&self, other: &Tensor) -> Result<Tensor> {
        arith(self, other, Arith::Add)
    }
    pub fn sub(&self, other: &Tensor) -> Result<Tensor> {
        arith(self, other, Arith::Sub)
    }
    pub fn mul(&self, other: &Tensor) -> Result<Tensor> {
        arith(self, other, Arith::Mul)
    }
    pub fn div(&self, other: &Tensor) -> Result<Tensor> {
        arith(self, other, Arith::Div)
    }
    pub fn pow(&self, other: &Tensor) -> Result<Tensor> {
        arith(self, other, Arith::Pow)
    }

    pub fn compare(&self, other: &Tensor, op: Compare) -> Result<Tensor> {
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        let dtype = result_type(self.promotion_key(), other.promotion_key());
        let v = with_dtype!(dtype, T => compare_kernel::<T>(op, self, other, &shape)?);
        Tensor::from_vec(v, &shape)
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
        Tensor::from_vec(self.to_vec::<bool>().into_iter().map(|x| !x).collect(), self.shape())
    }

    /// Elementwise `cond ? a : b`, broadcasting all three.
    pub fn where_(cond: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        if cond.dtype() != DType::Bool {
            bail!(Runtime, "where expected condition to be a boolean tensor, but got a tensor with dtype {}", cond.dtype());
        }
        let shape = broadcast_shapes(&broadcast_shapes(cond.shape(), a.shape())?, b.shape())?;
        let dtype = result_type(a.promotion_key(), b.promotion_key());
        let out = with_dtype!(dtype, T => {
            let v = cond.with_data(|lc, c: &[bool]| {
                a.with_data(|la, xa: &[T]| {
                    b.with_data(|lb, xb: &[T]| -> Result<Vec<T>> {
                        let l = [&lc.broadcast_to(&shape)?, &la.broadcast_to(&shape)?, &lb.broadcast_to(&shape)?];
                        Ok(map3(l, c, xa, xb, |c, x, y| if c { x } else { y }))
                    })
                })
            })?;
            Tensor::from_vec(v, &shape)?
        });
        Ok(record(out, &[cond, a, b], || BackwardOp::Where, |_| vec![SavedTensor::input(cond)]))
    }
}
