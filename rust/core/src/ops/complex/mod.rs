//! Complex tensors. A complex64 (complex128) tensor's storage is a float32 (float64) buffer of (re, im) pairs,
//! and its layout counts complex elements: element `i` of the layout is the pair at `2 * i`. So every op that only
//! moves layouts (views, permutes, selects, slices, expands) serves complex tensors unchanged, and `view_as_real`
//! is the same storage read through `Layout::as_pairs`. The ops that compute on complex values are written here
//! on that real view with existing real ops (so they are differentiable, with torch's convention for complex
//! gradients: the gradient of a real loss is dL/dre + i dL/dim); every other kernel refuses complex input
//! (`with_dtype!`'s complex arm, `Tensor::with_data`).
mod arith;
mod fft;
mod math;
mod views;

pub use arith::PairOp;
pub use fft::{FftC2CBackward0, FftC2RBackward0, FftR2CBackward0};
pub use views::{ViewAsComplexBackward0, ViewAsRealBackward0};

use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;

impl Layout {
    /// This layout of complex elements read as its (re, im) pairs of reals: a last dim of size 2, stride 1.
    pub fn as_pairs(&self) -> Layout {
        let mut shape = self.shape.clone();
        shape.push(2);
        let mut strides: Vec<usize> = self.strides.iter().map(|s| s * 2).collect();
        strides.push(1);
        Layout { shape, strides, offset: self.offset * 2 }
    }
}

impl Tensor {
    pub fn is_complex(&self) -> bool {
        self.dtype().is_complex()
    }

    /// How many elements of this tensor's dtype its storage holds (a complex element is two reals).
    pub(crate) fn storage_numel(&self) -> usize {
        let reals = self.0.storage.len();
        if self.is_complex() {
            reals / 2
        } else {
            reals
        }
    }

    /// A real tensor that is this complex tensor's pairs (a view, no history): what the complex ops compute on.
    fn pairs(&self) -> Tensor {
        self.view_with_dtype(self.layout().as_pairs(), self.dtype().component())
    }

    /// The real and imaginary parts of a complex tensor, as differentiable views.
    pub(crate) fn parts(&self) -> Result<(Tensor, Tensor)> {
        let pairs = self.view_as_real()?;
        Ok((pairs.select(-1, 0)?, pairs.select(-1, 1)?))
    }

    /// `Tensor.real`: the real parts of a complex tensor, a view that writes through; a real tensor itself.
    pub fn real_part(&self) -> Result<Tensor> {
        if !self.is_complex() {
            return Ok(self.clone());
        }
        self.view_as_real()?.select(-1, 0)
    }

    /// `Tensor.imag`: the imaginary parts of a complex tensor, a view that writes through.
    pub fn imag_part(&self) -> Result<Tensor> {
        if !self.is_complex() {
            crate::bail!(Type, "imag is not implemented for tensors with non-complex dtypes.");
        }
        self.view_as_real()?.select(-1, 1)
    }

    /// `torch.complex(real, imag)`: same-dtype float tensors, broadcast.
    pub fn complex(real: &Tensor, imag: &Tensor) -> Result<Tensor> {
        let float_pair = [real.dtype(), imag.dtype()].iter().all(|d| matches!(d, DType::F32 | DType::F64));
        if !float_pair {
            crate::bail!(
                NotImplemented,
                "Expected both inputs to be Half, Float or Double tensors but got {} and {}",
                real.dtype().scalar_type_name(),
                imag.dtype().scalar_type_name()
            );
        }
        if real.dtype() != imag.dtype() {
            crate::bail!(
                Runtime,
                "Expected object of scalar type {} but got scalar type {} for second argument",
                real.dtype().scalar_type_name(),
                imag.dtype().scalar_type_name()
            );
        }
        let shape = crate::layout::broadcast_shapes(real.shape(), imag.shape())?;
        let parts = [real.detach().expand(&shape)?, imag.detach().expand(&shape)?];
        let out = Tensor::stack(&parts, -1)?.view_as_complex()?.detach();
        Ok(record(out, &[real, imag], |_| ComplexBackward0))
    }

    /// `torch.polar(abs, angle)`: `abs * (cos(angle) + i sin(angle))`, recorded as torch's PolarBackward0.
    pub fn polar(abs: &Tensor, angle: &Tensor) -> Result<Tensor> {
        // torch checks the dtypes as `complex` does, before computing
        if abs.dtype() == angle.dtype() && matches!(abs.dtype(), DType::F32 | DType::F64) {
            let (r, theta) = (abs.detach(), angle.detach());
            let cos = theta.unary(crate::ops::unary::Cos)?;
            let sin = theta.unary(crate::ops::unary::Sin)?;
            let out = Tensor::complex(&r.mul(&cos)?, &r.mul(&sin)?)?;
            return Ok(record(out, &[abs, angle], |out| PolarBackward0 { result: SavedTensor::output(out) }));
        }
        Tensor::complex(abs, angle)
    }

    /// `angle()`: `atan2(im, re)` of a complex tensor; of a real (float) one pi where negative, else 0 (NaN
    /// kept). Recorded as torch's AngleBackward0.
    pub fn angle(&self) -> Result<Tensor> {
        let x = self.detach();
        let out = if self.is_complex() {
            x.complex_angle()?
        } else {
            let zero = Tensor::zeros(&[], x.dtype());
            let pi = Tensor::full(&[], crate::dtype::Scalar::Float(std::f64::consts::PI), x.dtype());
            let half_turns = Tensor::where_(&x.lt(&zero)?, &pi, &zero)?;
            Tensor::where_(&x.ne(&x)?, &x, &half_turns)?
        };
        Ok(record(out, &[self], |_| AngleBackward0 { self_: SavedTensor::input(self) }))
    }

    /// `conj()`, `conj_physical()`: the conjugate, computed (torch's `conj` is a lazy view with `is_conj()`; this
    /// copy holds the same values). A real tensor is its own conjugate.
    pub fn conj(&self) -> Result<Tensor> {
        if !self.is_complex() {
            return Ok(self.clone());
        }
        let (re, im) = self.detach().parts()?;
        let out = Tensor::complex(&re, &im.neg()?)?;
        Ok(record(out, &[self], |_| ConjBackward0))
    }

    /// `conj_physical()` of a complex tensor: `conj`'s values, recorded as torch's ConjPhysicalBackward0.
    pub fn conj_physical(&self) -> Result<Tensor> {
        let out = self.detach().conj()?;
        Ok(record(out, &[self], |_| ConjPhysicalBackward0))
    }

    /// `abs()` of a complex tensor: the modulus, a real tensor of the parts' dtype (`hypot(re, im)`).
    pub fn complex_abs(&self) -> Result<Tensor> {
        let (re, im) = self.parts()?;
        re.binary(&im, crate::ops::binary::Binary::Hypot)
    }

    /// `sgn()` of a complex tensor: `z / |z|`, 0 at 0 (the direction abs's gradient takes).
    pub(crate) fn complex_sgn(&self) -> Result<Tensor> {
        let modulus = self.complex_abs()?;
        let zero = Tensor::wrapped_scalar(crate::dtype::Scalar::Float(0.0));
        let one = Tensor::wrapped_scalar(crate::dtype::Scalar::Float(1.0));
        let safe = Tensor::where_(&modulus.eq(&zero)?, &one, &modulus)?;
        self.div(&safe)
    }

    /// `angle()` of a complex tensor: `atan2(im, re)`.
    pub fn complex_angle(&self) -> Result<Tensor> {
        let (re, im) = self.parts()?;
        im.binary(&re, crate::ops::binary::Binary::Atan2)
    }

    /// `sum`/`mean` of a complex tensor over `dims` (all when None): the pairs' sums (the caller records them).
    pub(crate) fn complex_reduce(&self, dims: Option<&[isize]>, keepdim: bool, mean: bool) -> Result<Tensor> {
        let dims = crate::ops::reduce::reduction_dims(dims, self.ndim())?;
        if self.ndim() == 0 {
            return self.clone_tensor();
        }
        let dims: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
        let pairs = self.view_as_real()?;
        let out = if mean { pairs.mean(Some(&dims), keepdim)? } else { pairs.sum(Some(&dims), keepdim)? };
        out.view_as_complex()
    }

    /// `cat` (`stack`) of tensors one of which is complex: their pairs joined along `dim` (counted among the
    /// complex dims), in the tensors' promoted dtype.
    pub(crate) fn complex_joined(tensors: &[Tensor], dim: isize, stack: bool) -> Result<Tensor> {
        let dtype = tensors.iter().map(Tensor::dtype).reduce(crate::dtype::promote_types).expect("a complex tensor");
        let ndim = tensors[0].ndim() + usize::from(stack);
        // the pairs' dim is last: a negative dim counts one further from the end
        let dim = if dim < 0 && (dim + ndim as isize) >= 0 { dim - 1 } else { dim };
        let pairs = tensors.iter().map(|t| t.to_dtype(dtype)?.view_as_real()).collect::<Result<Vec<_>>>()?;
        let joined = if stack { Tensor::stack(&pairs, dim)? } else { Tensor::cat(&pairs, dim)? };
        joined.view_as_complex()
    }

    /// A conversion to or from a complex dtype. Real to complex takes a zero imaginary part; complex to complex
    /// converts the parts; complex to real is refused here (kernels must not drop imaginary parts): the explicit
    /// user conversion (`.to(float32)`, which warns) is `real_part` then `to_dtype`.
    pub(crate) fn complex_cast(&self, dtype: DType) -> Result<Tensor> {
        match (self.is_complex(), dtype.is_complex()) {
            (true, true) => self.view_as_real()?.to_dtype(dtype.component())?.view_as_complex(),
            (false, true) => {
                let re = self.to_dtype(dtype.component())?;
                Tensor::complex(&re, &Tensor::zeros(re.shape(), re.dtype()))
            }
            _ => Err(crate::dtype::complex_refusal(self.dtype())),
        }
    }

    /// A complex tensor of `shape` holding `re + i im`.
    pub fn complex_full(shape: &[usize], re: f64, im: f64, dtype: DType) -> Result<Tensor> {
        let part = dtype.component();
        Tensor::complex(
            &Tensor::try_full(shape, crate::dtype::Scalar::Float(re), part)?,
            &Tensor::try_full(shape, crate::dtype::Scalar::Float(im), part)?,
        )
    }

    /// A Python complex number as a 0-dim operand (`x * 2j`): complex128, promoting as the default complex dtype.
    pub fn wrapped_complex(re: f64, im: f64) -> Tensor {
        let pairs = Tensor::from_buffer(<f64 as crate::element::Element>::into_buffer(vec![re, im]), &[2]);
        let mut t = Tensor::from_parts(pairs.0.storage.clone(), Layout::contiguous(&[]), DType::C128);
        std::sync::Arc::get_mut(&mut t.0).expect("fresh tensor").wrapped_number = true;
        t
    }

    /// A complex tensor over memory holding (re, im) pairs of `dtype`'s parts (a numpy array's), `layout` counting
    /// complex elements.
    pub fn from_complex_storage(
        storage: std::sync::Arc<crate::storage::Storage>,
        layout: Layout,
        dtype: DType,
    ) -> Result<Tensor> {
        if storage.dtype() != dtype.component() || layout.as_pairs().storage_extent() > storage.len() {
            crate::bail!(Runtime, "layout reaches past the end of its storage");
        }
        Ok(Tensor::from_parts(storage, layout, dtype))
    }

    /// A complex tensor's values as (re, im) pairs in row-major order (for Python's `complex` numbers).
    pub fn complex_values(&self) -> Result<Vec<(f64, f64)>> {
        let reals = self.pairs().to_vec::<f64>();
        Ok(reals.chunks_exact(2).map(|p| (p[0], p[1])).collect())
    }
}

crate::backward_rule! {
    /// `complex(real, imag)`: the gradient's real and imaginary parts.
    pub struct ComplexBackward0;
}
impl Backward for ComplexBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        Ok(vec![Some(g.real_part()?), Some(g.imag_part()?)])
    }
}

crate::backward_rule! {
    /// `conj()`: the gradient conjugated.
    pub struct ConjBackward0;
}
impl Backward for ConjBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.conj())
    }
}

crate::backward_rule! {
    /// `angle()`: for complex z, `g i z / |z|^2` (0 at 0), the direction the argument grows in; the real
    /// angle is piecewise constant: zeros.
    pub struct AngleBackward0 {
        self_: SavedTensor,
    }
}
impl Backward for AngleBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let z = ctx.unpack(&self.self_)?;
        if !z.is_complex() {
            return one(Ok(Tensor::zeros(z.shape(), z.dtype())));
        }
        let modulus = z.complex_abs()?;
        let turned = g.mul(&z)?.div(&modulus.mul(&modulus)?)?.mul(&Tensor::wrapped_complex(0.0, 1.0))?;
        let at_zero = z.eq(&Tensor::wrapped_scalar(crate::dtype::Scalar::Float(0.0)))?;
        one(Tensor::where_(&at_zero, &Tensor::complex_full(&[], 0.0, 0.0, z.dtype())?, &turned))
    }
}

crate::backward_rule! {
    /// `polar(abs, angle)`: torch's rule on the result: abs gets `re(conj(g) sgn(result))` (so 0 where abs is
    /// 0), angle `re(conj(g) i result)`.
    pub struct PolarBackward0 {
        result: SavedTensor,
    }
}
impl Backward for PolarBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let result = ctx.unpack(&self.result)?;
        let g_conj = g.conj()?;
        Ok(vec![
            ctx.grad_if(0, || g_conj.mul(&result.complex_sgn()?)?.real_part()?.contiguous())?,
            ctx.grad_if(1, || {
                let turned = result.mul(&Tensor::wrapped_complex(0.0, 1.0))?;
                g_conj.mul(&turned)?.real_part()?.contiguous()
            })?,
        ])
    }
}

crate::backward_rule! {
    /// `conj_physical()`: the gradient conjugated.
    pub struct ConjPhysicalBackward0;
}
impl Backward for ConjPhysicalBackward0 {
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(g.conj_physical())
    }
}
