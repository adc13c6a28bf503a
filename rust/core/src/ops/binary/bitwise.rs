//! `& | ^ << >>` and `~` on bool and integer tensors, with PyTorch's promotion and its shift rules.
//! Nothing here is recorded: the results are integers or bools, and a float operand (the only kind
//! that can require grad) is refused before any work.
use super::zip_as;
use crate::bail;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::layout::broadcast_shapes;
use crate::ops::inplace::check_can_cast;
use crate::tensor::Tensor;
use std::ops::{BitAnd, BitOr, BitXor, Not};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bitwise {
    And,
    Or,
    Xor,
    /// `<<`: 0 once the count is negative or reaches the bit width, as torch
    LeftShift,
    /// `>>`: the sign fill (0 or -1; 0 for uint8) once the count is negative or reaches the bit width
    RightShift,
}

impl Bitwise {
    /// The name of PyTorch's CPU kernel, for "not implemented for" messages.
    fn kernel_name(self) -> &'static str {
        match self {
            Bitwise::And => "bitwise_and_cpu",
            Bitwise::Or => "bitwise_or_cpu",
            Bitwise::Xor => "bitwise_xor_cpu",
            Bitwise::LeftShift => "lshift_cpu",
            Bitwise::RightShift => "rshift_cpu",
        }
    }

    fn is_shift(self) -> bool {
        matches!(self, Bitwise::LeftShift | Bitwise::RightShift)
    }
}

/// The element types `& | ^ ~` apply to: bool and the integers.
trait Bits: Element + BitAnd<Output = Self> + BitOr<Output = Self> + BitXor<Output = Self> + Not<Output = Self> {}
impl Bits for bool {}

/// The integers, which shift too.
trait Shift: Bits {
    fn shift_left(self, by: Self) -> Self;
    fn shift_right(self, by: Self) -> Self;
}

macro_rules! signed_shift {
    ($($t:ty),*) => {$(
        impl Bits for $t {}
        impl Shift for $t {
            #[inline(always)]
            fn shift_left(self, by: Self) -> Self {
                if by < 0 || by as u32 >= <$t>::BITS { 0 } else { self.wrapping_shl(by as u32) }
            }
            #[inline(always)]
            fn shift_right(self, by: Self) -> Self {
                let by = if by < 0 || by as u32 >= <$t>::BITS { <$t>::BITS - 1 } else { by as u32 };
                self >> by
            }
        }
    )*};
}
signed_shift!(i8, i16, i32, i64);

impl Bits for u8 {}
impl Shift for u8 {
    #[inline(always)]
    fn shift_left(self, by: Self) -> Self {
        if u32::from(by) >= u8::BITS {
            0
        } else {
            self << by
        }
    }
    #[inline(always)]
    fn shift_right(self, by: Self) -> Self {
        if u32::from(by) >= u8::BITS {
            0
        } else {
            self >> by
        }
    }
}

fn logic_kernel<T: Bits>(op: Bitwise, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Vec<T>> {
    match op {
        Bitwise::And => zip_as(a, b, shape, |x: T, y: T| x & y),
        Bitwise::Or => zip_as(a, b, shape, |x: T, y: T| x | y),
        Bitwise::Xor => zip_as(a, b, shape, |x: T, y: T| x ^ y),
        Bitwise::LeftShift | Bitwise::RightShift => unreachable!("bool tensors are refused before shifting"),
    }
}

fn int_kernel<T: Shift>(op: Bitwise, a: &Tensor, b: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let v = match op {
        Bitwise::LeftShift => zip_as(a, b, shape, T::shift_left)?,
        Bitwise::RightShift => zip_as(a, b, shape, T::shift_right)?,
        _ => logic_kernel::<T>(op, a, b, shape)?,
    };
    Tensor::from_vec(v, shape)
}

impl Tensor {
    /// The dtype `op(self, other)` gives, or torch's NotImplementedError for a float (or a shifted bool).
    fn bitwise_dtype(&self, other: &Tensor, op: Bitwise) -> Result<DType> {
        let dtype = crate::dtype::result_type(self.promotion_key(), other.promotion_key());
        if dtype.is_float() || dtype.is_complex() || op.is_shift() && dtype == DType::Bool {
            bail!(NotImplemented, "\"{}\" not implemented for '{}'", op.kernel_name(), dtype.scalar_type_name());
        }
        Ok(dtype)
    }

    /// `self op other`, broadcasting, in the promoted dtype (the operands are read in it, so a Python
    /// number wraps to the tensor's width first, as torch casts it).
    pub fn bitwise(&self, other: &Tensor, op: Bitwise) -> Result<Tensor> {
        let shape = broadcast_shapes(self.shape(), other.shape())?;
        let dtype = self.bitwise_dtype(other, op)?;
        Tensor::in_memory_order(&[self, other], &shape, |x, shape| match dtype {
            DType::Bool => Tensor::from_vec(logic_kernel::<bool>(op, x[0], x[1], shape)?, shape),
            DType::U8 => int_kernel::<u8>(op, x[0], x[1], shape),
            DType::I8 => int_kernel::<i8>(op, x[0], x[1], shape),
            DType::I16 => int_kernel::<i16>(op, x[0], x[1], shape),
            DType::I32 => int_kernel::<i32>(op, x[0], x[1], shape),
            DType::I64 => int_kernel::<i64>(op, x[0], x[1], shape),
            _ => unreachable!("bitwise_dtype refuses floats"),
        })
    }

    /// The values `self op= other` writes: torch checks that the promoted dtype can be cast to this
    /// tensor's before anything else (`int8 <<= 1.5` names the cast, not the float kernel).
    pub fn bitwise_for_inplace(&self, other: &Tensor, op: Bitwise) -> Result<Tensor> {
        let dtype = crate::dtype::result_type(self.promotion_key(), other.promotion_key());
        check_can_cast(dtype, self.dtype())?;
        self.bitwise(other, op)
    }

    /// `bitwise_not`: `!x` for bools, the complement for integers.
    pub fn bitwise_not(&self) -> Result<Tensor> {
        fn not<T: Bits>(t: &Tensor) -> Result<Tensor> {
            let v = t.with_data(|l, x: &[T]| crate::kernels::elementwise::map1(l, x, |v| !v));
            Tensor::from_vec(v, t.shape())
        }
        match self.dtype() {
            DType::Bool => not::<bool>(self),
            DType::U8 => not::<u8>(self),
            DType::I8 => not::<i8>(self),
            DType::I16 => not::<i16>(self),
            DType::I32 => not::<i32>(self),
            DType::I64 => not::<i64>(self),
            d => bail!(NotImplemented, "\"bitwise_not_cpu\" not implemented for '{}'", d.scalar_type_name()),
        }
    }

    /// `~x`: `bitwise_not`, with the TypeError Python's operator gives a float tensor in torch.
    pub fn invert(&self) -> Result<Tensor> {
        if self.dtype().is_float() {
            bail!(Type, "~ (operator.invert) is only implemented on integer and Boolean-type tensors");
        }
        self.bitwise_not()
    }

    pub fn bitwise_and(&self, other: &Tensor) -> Result<Tensor> {
        self.bitwise(other, Bitwise::And)
    }
    pub fn bitwise_or(&self, other: &Tensor) -> Result<Tensor> {
        self.bitwise(other, Bitwise::Or)
    }
    pub fn bitwise_xor(&self, other: &Tensor) -> Result<Tensor> {
        self.bitwise(other, Bitwise::Xor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::Scalar;

    fn ints(v: &[i64], dtype: DType) -> Tensor {
        Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap().to_dtype(dtype).unwrap()
    }

    #[test]
    fn shifts_follow_torch_at_and_beyond_the_width() {
        let x = ints(&[1, -8, 127, -128], DType::I8);
        let by = |n| Tensor::wrapped_scalar(Scalar::Int(n));
        let left = |n| x.bitwise(&by(n), Bitwise::LeftShift).unwrap().to_vec::<i64>();
        let right = |n| x.bitwise(&by(n), Bitwise::RightShift).unwrap().to_vec::<i64>();
        assert_eq!(left(7), [-128, 0, -128, 0]);
        assert_eq!(left(8), [0; 4]);
        assert_eq!(left(-1), [0; 4]);
        assert_eq!(right(8), [0, -1, 0, -1]);
        assert_eq!(right(-1), [0, -1, 0, -1]);
        assert_eq!(right(1), [0, -4, 63, -64]);
        let u = ints(&[1, 255, 128], DType::U8);
        assert_eq!(u.bitwise(&by(8), Bitwise::LeftShift).unwrap().to_vec::<i64>(), [0; 3]);
        assert_eq!(u.bitwise(&by(7), Bitwise::RightShift).unwrap().to_vec::<i64>(), [0, 1, 1]);
        let w = ints(&[1, -8], DType::I64);
        assert_eq!(w.bitwise(&by(64), Bitwise::LeftShift).unwrap().to_vec::<i64>(), [0, 0]);
        assert_eq!(w.bitwise(&by(63), Bitwise::LeftShift).unwrap().to_vec::<i64>(), [i64::MIN, 0]);
        assert_eq!(w.bitwise(&by(64), Bitwise::RightShift).unwrap().to_vec::<i64>(), [0, -1]);
    }

    #[test]
    fn floats_and_shifted_bools_are_refused() {
        let f = Tensor::from_vec(vec![1.0f32], &[1]).unwrap();
        let err = f.bitwise(&f, Bitwise::And).unwrap_err().to_string();
        assert!(err.contains("\"bitwise_and_cpu\" not implemented for 'Float'"), "{err}");
        let b = Tensor::from_vec(vec![true], &[1]).unwrap();
        assert!(b.bitwise(&b, Bitwise::LeftShift).is_err());
        assert_eq!(b.bitwise(&b, Bitwise::Xor).unwrap().to_vec::<bool>(), [false]);
        assert!(f.invert().is_err() && f.bitwise_not().is_err());
    }
}
