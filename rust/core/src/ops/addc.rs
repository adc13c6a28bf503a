//! `addcmul` and `addcdiv`: `self + value * tensor1 * tensor2` and `self + value * tensor1 / tensor2` in one
//! pass over the three broadcast operands, evaluated left to right in the result dtype as torch's CPU kernel
//! (float16 and bfloat16 in float32, integers wrapping), and their backward rules.
use crate::autograd::{record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::{result_type_of, DType, Scalar};
use crate::error::Result;
use crate::kernels::elementwise::map3;
use crate::layout::broadcast_shapes;
use crate::tensor::Tensor;

/// Which of the two ops: the product or the quotient of the tensors is scaled and added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addc {
    Mul,
    Div,
}

const INTEGER_ADDCDIV: &str = "Integer division with addcdiv is no longer supported, and in a future  release \
    addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be \
    implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as \
    (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter \
    implementation: (input + value * tensor1 / tensor2), for all dtypes.";

impl Tensor {
    /// `addcmul(self, tensor1, tensor2, value)` = self + value * tensor1 * tensor2 (AddcmulBackward0).
    pub fn addcmul(&self, tensor1: &Tensor, tensor2: &Tensor, value: Scalar) -> Result<Tensor> {
        self.addc(Addc::Mul, tensor1, tensor2, value)
    }

    /// `addcdiv(self, tensor1, tensor2, value)` = self + value * tensor1 / tensor2 (AddcdivBackward0);
    /// integer tensor1 and tensor2 are refused, as by torch.
    pub fn addcdiv(&self, tensor1: &Tensor, tensor2: &Tensor, value: Scalar) -> Result<Tensor> {
        self.addc(Addc::Div, tensor1, tensor2, value)
    }

    fn addc(&self, op: Addc, t1: &Tensor, t2: &Tensor, value: Scalar) -> Result<Tensor> {
        if op == Addc::Div && !t1.dtype().is_float() && !t2.dtype().is_float() {
            bail!(Runtime, "{INTEGER_ADDCDIV}");
        }
        let shape = broadcast_shapes(&broadcast_shapes(self.shape(), t1.shape())?, t2.shape())?;
        let dtype = result_type_of(&[self.promotion_key(), t1.promotion_key(), t2.promotion_key()]);
        let out = match dtype {
            DType::Bool => bail!(NotImplemented, "\"addcmul_cpu_out\" not implemented for 'Bool'"),
            DType::F64 => kernel::<f64>(op, [self, t1, t2], &shape, value.to_f64())?,
            DType::F32 | DType::F16 | DType::BF16 => {
                kernel::<f32>(op, [self, t1, t2], &shape, value.to_f64() as f32)?.to_dtype(dtype)?
            }
            _ => int_kernel([self, t1, t2], &shape, value.to_i64_truncated())?.to_dtype(dtype)?,
        };
        let needs = |t: &Tensor, when: bool| when.then(|| SavedTensor::input(t));
        Ok(match op {
            Addc::Mul => record(out, &[self, t1, t2], |_| AddcmulBackward0 {
                tensor1: needs(t1, t2.requires_grad()),
                tensor2: needs(t2, t1.requires_grad()),
                value,
            }),
            Addc::Div => record(out, &[self, t1, t2], |_| AddcdivBackward0 {
                tensor1: needs(t1, t2.requires_grad()),
                tensor2: SavedTensor::input(t2), // kept even for self alone, as torch's
                value,
            }),
        })
    }
}

/// The three operands in `T`, broadcast to `shape`, combined as torch's kernel does: `fma(value · t1, t2, self)` for
/// addcmul, `self + value · t1 / t2` for addcdiv (bit for bit: a plain `self + value · t1 · t2` differed from torch
/// in a fifth of float32 elements).
fn kernel<T>(op: Addc, operands: [&Tensor; 3], shape: &[usize], value: T) -> Result<Tensor>
where
    T: crate::element::Float,
{
    let [x, a, b] = operands.map(|t| t.detach().to_dtype(T::DTYPE));
    let (x, a, b) = (x?, a?, b?);
    let v = x.with_data(|lx, vx: &[T]| {
        a.with_data(|la, va: &[T]| {
            b.with_data(|lb, vb: &[T]| -> Result<Vec<T>> {
                let l = [&lx.broadcast_to(shape)?, &la.broadcast_to(shape)?, &lb.broadcast_to(shape)?];
                Ok(match op {
                    Addc::Mul => map3(l, vx, va, vb, |x, a, b| (value * a).mul_add(b, x)),
                    Addc::Div => map3(l, vx, va, vb, |x, a, b| x + value * a / b),
                })
            })
        })
    })?;
    Tensor::from_vec(v, shape)
}

/// `addcmul` of integers in int64, wrapping (the narrower dtypes wrap the same way when cast back).
fn int_kernel(operands: [&Tensor; 3], shape: &[usize], value: i64) -> Result<Tensor> {
    let [x, a, b] = operands.map(|t| t.detach().to_dtype(DType::I64));
    let (x, a, b) = (x?, a?, b?);
    let v = x.with_data(|lx, vx: &[i64]| {
        a.with_data(|la, va: &[i64]| {
            b.with_data(|lb, vb: &[i64]| -> Result<Vec<i64>> {
                let l = [&lx.broadcast_to(shape)?, &la.broadcast_to(shape)?, &lb.broadcast_to(shape)?];
                Ok(map3(l, vx, va, vb, |x, a, b| x.wrapping_add(value.wrapping_mul(a).wrapping_mul(b))))
            })
        })
    })?;
    Tensor::from_vec(v, shape)
}

crate::backward_rule! {
    /// `addcmul`: self gets the gradient, each factor the gradient times value and the other factor.
    pub struct AddcmulBackward0 {
        tensor1: Option<SavedTensor>,
        tensor2: Option<SavedTensor>,
        value: Scalar,
    }
}
impl Backward for AddcmulBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (t1, t2) = (ctx.unpack_opt(&self.tensor1)?, ctx.unpack_opt(&self.tensor2)?);
        let value = Tensor::wrapped_scalar(self.value);
        let scaled = |other: Option<Tensor>| -> Result<Tensor> { g.mul(&value)?.mul(&other.expect("saved")) };
        Ok(vec![ctx.grad_if(0, || Ok(g.clone()))?, ctx.grad_if(1, || scaled(t2))?, ctx.grad_if(2, || scaled(t1))?])
    }
}

crate::backward_rule! {
    /// `addcdiv`: d/dtensor1 = g·value/tensor2, d/dtensor2 = -g·value·tensor1/tensor2².
    pub struct AddcdivBackward0 {
        tensor1: Option<SavedTensor>,
        tensor2: SavedTensor,
        value: Scalar,
    }
}
impl Backward for AddcdivBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (t1, t2) = (ctx.unpack_opt(&self.tensor1)?, ctx.unpack(&self.tensor2)?);
        let value = Tensor::wrapped_scalar(self.value);
        Ok(vec![
            ctx.grad_if(0, || Ok(g.clone()))?,
            ctx.grad_if(1, || g.mul(&value)?.div(&t2))?,
            ctx.grad_if(2, || {
                let t1 = t1.as_ref().expect("saved");
                g.neg()?.mul(&value)?.mul(t1)?.div(&t2.mul(&t2)?)
            })?,
        ])
    }
}
