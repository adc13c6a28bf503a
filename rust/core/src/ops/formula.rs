//! Small pieces the backward rules share.
use crate::element::Float;
use crate::error::Result;
use crate::tensor::Tensor;

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
