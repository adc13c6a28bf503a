//! Small pieces the backward rules share.
use crate::compile::{traced_fusable, Elementwise, NodeKind, SliceKernel};
use crate::dtype::DType;
use crate::element::Float;
use crate::error::Result;
use crate::kernels::math::F32ZipKernel;
use crate::kernels::simd::{zip_into, zip_slices_by};
use crate::tensor::Tensor;
use std::sync::Arc;

/// A float constant operand (`g * 0.5`); it never widens the other operand's dtype.
pub fn c(v: f64) -> Tensor {
    Tensor::scalar(v)
}

/// Puts reduced dims back as size 1, so a reduction's gradient can be expanded to the input's shape.
pub fn unsqueeze_dims(g: &Tensor, dims: &[usize], keepdim: bool) -> Result<Tensor> {
    if keepdim {
        return Ok(g.clone());
    }
    let mut g = g.clone();
    for &d in dims {
        g = g.unsqueeze(d as isize)?;
    }
    Ok(g)
}

/// 0 where x < y, 0.5 where x == y, 1 elsewhere, NaN included: the share of `maximum(x, y)`'s gradient
/// that goes to x (torch splits ties in halves and gives the whole gradient to both sides of a NaN).
pub fn tie_weight(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    Tensor::where_(&x.lt(y)?, &c(0.0), &Tensor::where_(&x.eq(y)?, &c(0.5), &c(1.0))?)
}

/// Dims as the `isize`s the tensor API takes.
pub fn signed(dims: &[usize]) -> Vec<isize> {
    dims.iter().map(|&d| d as isize).collect()
}

/// Whether a gradient can be made in one pass over `g` and a saved tensor `s`: the backward pass is
/// not recorded, and the two agree in shape and dtype.
pub fn fusable(g: &Tensor, s: &Tensor) -> bool {
    !crate::autograd::grad_mode::is_enabled() && g.dtype() == s.dtype() && g.shape() == s.shape()
}

/// `f(g, s)` elementwise into a new tensor (the two have one shape already).
pub fn zip<T: Float>(g: &Tensor, s: &Tensor, f: impl Fn(T, T) -> T + Sync) -> Result<Tensor> {
    let v =
        g.with_data(|lg, xg: &[T]| s.with_data(|ls, xs: &[T]| crate::kernels::elementwise::map2(lg, xg, ls, xs, &f)));
    Tensor::from_vec(v, g.shape())
}

/// A gradient made in one pass over `g` and a saved tensor `s` when `fusable`: `f(g, s)` elementwise, float32
/// through `f32_kernel` (a hand-vectorized form of the same function) where both are contiguous; None when
/// the dtype has no such function. The pass is one traceable node named `name` (torch's `tanh_backward` and the
/// like), carrying the same functions as its slice kernels, so a captured backward fuses it with its neighbours.
pub fn one_pass_grad<F32, F64>(
    name: &'static str,
    g: &Tensor,
    s: &Tensor,
    f32: Option<F32>,
    f64: Option<F64>,
    f32_kernel: Option<F32ZipKernel>,
) -> Option<Result<Tensor>>
where
    F32: Fn(f32, f32) -> f32 + Copy + Send + Sync + 'static,
    F64: Fn(f64, f64) -> f64 + Copy + Send + Sync + 'static,
{
    let has = match g.dtype() {
        DType::F32 => f32.is_some() || (f32_kernel.is_some() && s.is_contiguous()),
        DType::F64 => f64.is_some(),
        _ => false,
    };
    if !has || !fusable(g, s) {
        return None;
    }
    let pass = move |g: &Tensor, s: &Tensor| -> Result<Tensor> {
        // the float32 kernel is tried on float32 data only
        let by_kernel = |g: &Tensor| f32_kernel.and_then(|k| zip_contiguous_f32(g, s, k));
        match (g.dtype(), f32, f64) {
            (DType::F32, f, _) => match (by_kernel(g), f) {
                (Some(grad), _) => grad,
                (None, Some(f)) => zip(g, s, f),
                // a gradient that is not dense (a sum's, expanded) copied dense for the kernel: one pass more, where
                // the formula's ops were ten (GELU's backward after a sum took twice torch's time)
                (None, None) => match by_kernel(&g.contiguous()?) {
                    Some(grad) => grad,
                    None => crate::bail!(Runtime, "{name}: no one-pass gradient for this float32 layout"),
                },
            },
            (DType::F64, _, Some(f)) => zip(g, s, f),
            (dtype, ..) => crate::bail!(Runtime, "{name}: no one-pass gradient for {}", dtype.name()),
        }
    };
    let kernel = move |out: &Tensor| match (out.dtype(), f32_kernel, f32, f64) {
        (DType::F32, Some(k), _, _) => Some(SliceKernel::F32(Elementwise::Zip(Arc::new(k)))),
        (DType::F32, None, Some(f), _) => {
            Some(SliceKernel::F32(Elementwise::Zip(Arc::new(move |o, a, b| zip_into(o, a, b, &f)))))
        }
        (DType::F64, _, _, Some(f)) => {
            Some(SliceKernel::F64(Elementwise::Zip(Arc::new(move |o, a, b| zip_into(o, a, b, &f)))))
        }
        _ => None,
    };
    Some(traced_fusable(
        name,
        NodeKind::Elementwise,
        &[g, s],
        || pass(g, s),
        || move |x: &[&Tensor]| pass(x[0], x[1]),
        kernel,
    ))
}

/// `kernel(g, s)` into a new tensor when both are contiguous (they have one shape already).
fn zip_contiguous_f32(g: &Tensor, s: &Tensor, kernel: F32ZipKernel) -> Option<Result<Tensor>> {
    let v = g.with_data(|lg, xg: &[f32]| {
        s.with_data(|ls, xs: &[f32]| {
            let (rg, rs) = (lg.contiguous_range()?, ls.contiguous_range()?);
            Some(zip_slices_by(&xg[rg], &xs[rs], kernel))
        })
    })?;
    Some(Tensor::from_vec(v, g.shape()))
}
