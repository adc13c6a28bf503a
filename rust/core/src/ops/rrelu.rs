//! `rrelu`: leaky ReLU whose negative slope is drawn per element from U(lower, upper) in training (the draws
//! kept as `noise` for backward), and the bounds' mean otherwise; torch's `rrelu_with_noise` and its nodes.
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::dtype::DType;
use crate::element::{Element, Float};
use crate::error::Result;
use crate::ops::unary::{LeakyRelu, UnaryOp};
use crate::random::Generator;
use crate::tensor::Tensor;
use parking_lot::Mutex;

impl Tensor {
    /// `rrelu(self)` (RreluWithNoiseBackward0). Training draws one slope per element that is not above 0, in
    /// row-major order from 53-bit uniforms, as torch's CPU kernel does, so a seed gives torch's numbers.
    pub fn rrelu_with_noise(&self, gen: &Mutex<Generator>, lower: f64, upper: f64, training: bool) -> Result<Tensor> {
        let (values, noise) = self.rrelu_values(gen, lower, upper, training)?;
        let noise = noise.as_ref().map(SavedTensor::input);
        Ok(record(values, &[self], |_| RreluWithNoiseBackward0 {
            self_: SavedTensor::input(self),
            noise,
            lower,
            upper,
            training,
        }))
    }

    /// `rrelu_`'s values as its in-place form records them (RreluWithNoiseBackward1, from the result); the write
    /// is the caller's.
    pub fn rrelu_with_noise_inplace_form(
        &self,
        gen: &Mutex<Generator>,
        lower: f64,
        upper: f64,
        training: bool,
    ) -> Result<Tensor> {
        let (values, noise) = self.rrelu_values(gen, lower, upper, training)?;
        let noise = noise.as_ref().map(SavedTensor::input);
        Ok(record(values, &[self], |out| RreluWithNoiseBackward1 {
            result: SavedTensor::output(out),
            noise,
            lower,
            upper,
            training,
        }))
    }

    /// The values, and the drawn slopes (1 above 0) when training.
    fn rrelu_values(
        &self,
        gen: &Mutex<Generator>,
        lower: f64,
        upper: f64,
        training: bool,
    ) -> Result<(Tensor, Option<Tensor>)> {
        if lower > upper {
            bail!(Runtime, "Lower bound should be less than or equal to the upper bound");
        }
        let x = self.detach();
        if !training {
            return Ok((x.leaky_relu((lower + upper) / 2.0)?, None));
        }
        let (values, noise) = match x.dtype() {
            DType::F32 => draw_slopes::<f32>(&x, gen, lower, upper)?,
            DType::F64 => draw_slopes::<f64>(&x, gen, lower, upper)?,
            other => {
                bail!(NotImplemented, "\"rrelu_with_noise_out_cpu\" not implemented for '{}'", other.scalar_type_name())
            }
        };
        Ok((values, Some(noise)))
    }
}

fn draw_slopes<T: Float + Element>(
    x: &Tensor,
    gen: &Mutex<Generator>,
    lower: f64,
    upper: f64,
) -> Result<(Tensor, Tensor)> {
    let input = x.to_vec::<T>();
    let mut values = Vec::with_capacity(input.len());
    let mut noise = Vec::with_capacity(input.len());
    let mut g = gen.lock();
    for v in input {
        // NaN is not below 0: it keeps slope 1, as torch's `input <= 0` test decides
        let slope = if v <= T::ZERO { T::from_f64(g.uniform() * (upper - lower) + lower) } else { T::ONE };
        values.push(if v <= T::ZERO { v * slope } else { v });
        noise.push(slope);
    }
    Ok((Tensor::from_vec(values, x.shape())?, Tensor::from_vec(noise, x.shape())?))
}

crate::backward_rule! {
    /// `g · noise` where slopes were drawn (training, whatever the bounds), else leaky ReLU's gradient at the
    /// bounds' mean.
    pub struct RreluWithNoiseBackward0 {
        self_: SavedTensor,
        noise: Option<SavedTensor>,
        lower: f64,
        upper: f64,
        training: bool,
    }
}
impl Backward for RreluWithNoiseBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        if let Some(noise) = &self.noise {
            return one(g.mul(&ctx.unpack(noise)?));
        }
        let mean = LeakyRelu { negative_slope: (self.lower + self.upper) / 2.0 };
        one(mean.grad(g, &ctx.unpack(&self.self_)?))
    }
}

crate::backward_rule! {
    /// The in-place form's: as RreluWithNoiseBackward0's, from the result (a negative mean slope refused).
    pub struct RreluWithNoiseBackward1 {
        result: SavedTensor,
        noise: Option<SavedTensor>,
        lower: f64,
        upper: f64,
        training: bool,
    }
}
impl Backward for RreluWithNoiseBackward1 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        if let Some(noise) = &self.noise {
            return one(g.mul(&ctx.unpack(noise)?));
        }
        let mean = LeakyRelu { negative_slope: (self.lower + self.upper) / 2.0 };
        one(mean.grad_from_result(g, &ctx.unpack(&self.result)?))
    }
}
