//! Element types and PyTorch's type-promotion rules.
use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

/// The dtype of floats made without one (`torch.get_default_dtype()`): float32 unless set.
static DEFAULT_FLOAT: AtomicU8 = AtomicU8::new(DType::F32 as u8);

/// `torch.get_default_dtype()`.
pub fn default_float() -> DType {
    let code = DEFAULT_FLOAT.load(Ordering::Relaxed);
    DType::ALL.into_iter().find(|&d| d as u8 == code).unwrap_or(DType::F32)
}

/// `torch.set_default_dtype(dtype)`: a floating-point dtype only.
pub fn set_default_float(dtype: DType) -> crate::Result<()> {
    if !dtype.is_float() {
        crate::bail!(Type, "only floating-point types are supported as the default type");
    }
    DEFAULT_FLOAT.store(dtype as u8, Ordering::Relaxed);
    Ok(())
}

/// What a real-only op is called in its complex refusal before the bindings name it (`errors.rs` puts the
/// op's aten name in its place).
pub const REFUSING_OP: &str = "<op>";

/// The refusal of a complex tensor by a kernel that has no complex version (`with_dtype!`'s complex arm, and
/// any code that reads elements as real numbers): torch's NotImplementedError
/// `"<op>" not implemented for 'ComplexFloat'`, unwound to the binding that called the op (as `pool::take`'s
/// allocation failures are), so that no real kernel ever runs on a complex tensor's pairs.
#[cold]
pub fn refuse_complex(dtype: DType) -> ! {
    std::panic::resume_unwind(Box::new(complex_refusal(dtype)))
}

/// The error `refuse_complex` unwinds with, for code that returns it instead.
pub fn complex_refusal(dtype: DType) -> crate::Error {
    crate::Error::NotImplemented(format!("\"{REFUSING_OP}\" not implemented for '{}'", dtype.scalar_type_name()))
}

/// Element types. Bool and the narrow ints and halves are stored as such; the halves compute in
/// float32 (each op upcasts on read and rounds on write), as PyTorch does on CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    U8,
    I8,
    I16,
    I32,
    I64,
    F16,
    BF16,
    F32,
    F64,
    /// complex64 and complex128: stored as float32/float64 (re, im) pairs (see `ops::complex`); only the
    /// ops that declare complex support accept them, every other kernel refuses them (`with_dtype!`).
    C64,
    C128,
}

/// A Python number used as an operand: it may change the category of a result, never its width.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl DType {
    /// The values a number written into this dtype may take (unsigned ones take negatives down to -max) and
    /// torch's C++ name of the type; for the floats, their finite range.
    fn written_range(self) -> (f64, f64, &'static str) {
        match self {
            DType::Bool => (0.0, 1.0, "bool"),
            DType::U8 => (-255.0, 255.0, "uint8_t"),
            DType::I8 => (-128.0, 127.0, "int8_t"),
            DType::I16 => (-32768.0, 32767.0, "int16_t"),
            DType::I32 => (-2147483648.0, 2147483647.0, "int"),
            DType::I64 => (-9223372036854775808.0, 9223372036854775807.0, "int64_t"),
            DType::F16 => (-65504.0, 65504.0, "c10::Half"),
            DType::BF16 => (-3.3895313892515355e38, 3.3895313892515355e38, "c10::BFloat16"),
            DType::F32 => (f32::MIN as f64, f32::MAX as f64, "float"),
            DType::F64 | DType::C128 => (f64::MIN, f64::MAX, "double"),
            DType::C64 => (f32::MIN as f64, f32::MAX as f64, "float"),
        }
    }

    /// The C++ element type torch's "value cannot be converted to type ..." names.
    pub(crate) fn written_type_name(self) -> &'static str {
        self.written_range().2
    }

    /// The most negative finite value of a float dtype (`finfo(dtype).min`).
    pub fn lowest_finite(self) -> f64 {
        self.written_range().0
    }
}

impl Scalar {
    /// torch's check that a number written into a tensor of `dtype` (fill_, masked_fill) is representable:
    /// integer dtypes refuse non-finite and out-of-range values (unsigned ones take negatives down to -max,
    /// which wrap, as torch's), the narrow floats refuse finite values beyond their range.
    pub fn check_fits(self, dtype: DType) -> crate::Result<()> {
        if matches!(dtype, DType::Bool | DType::F64 | DType::C64 | DType::C128) {
            return Ok(());
        }
        let (lo, hi, name) = dtype.written_range();
        let fits = match self {
            Scalar::Bool(_) => true,
            Scalar::Int(_) if dtype == DType::I64 => true,
            Scalar::Int(v) => (lo..=hi).contains(&(v as f64)),
            Scalar::Float(v) if dtype.is_float() => !v.is_finite() || (lo..=hi).contains(&v),
            // an integer dtype truncates a float (1.5 is 1): a finite value within the range fits
            Scalar::Float(v) => v.is_finite() && (lo..=hi).contains(&v),
        };
        if !fits {
            crate::bail!(Runtime, "value cannot be converted to type {name} without overflow");
        }
        Ok(())
    }

    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as i64 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }
    /// As an int64, a float truncated towards zero (C++'s conversion, saturating here at the ends).
    pub fn to_i64_truncated(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(f) => f as i64,
        }
    }
    /// The dtype a 0-dim tensor made from this number has (Python float → the default dtype).
    pub fn dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::I64,
            Scalar::Float(_) => default_float(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Category {
    Bool,
    Int,
    Float,
    Complex,
}

impl DType {
    /// The complex dtypes (not in `ALL`: code that sweeps every real dtype must opt in to complex).
    pub const COMPLEX: [DType; 2] = [DType::C64, DType::C128];

    pub const ALL: [DType; 10] = [
        DType::Bool,
        DType::U8,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "uint8",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::C64 => "complex64",
            DType::C128 => "complex128",
        }
    }
    /// The C++ type torch's messages name (`long int`, `c10::Half`).
    pub fn cpp_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "unsigned char",
            DType::I8 => "signed char",
            DType::I16 => "short int",
            DType::I32 => "int",
            DType::I64 => "long int",
            DType::F16 => "c10::Half",
            DType::BF16 => "c10::BFloat16",
            DType::F32 => "float",
            DType::F64 => "double",
            DType::C64 => "c10::complex<float>",
            DType::C128 => "c10::complex<double>",
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }
    pub fn is_complex(self) -> bool {
        matches!(self, DType::C64 | DType::C128)
    }
    /// The dtype of a complex dtype's real and imaginary parts (complex64 → float32); other dtypes as they are.
    pub fn component(self) -> DType {
        match self {
            DType::C64 => DType::F32,
            DType::C128 => DType::F64,
            d => d,
        }
    }
    /// torch's `toComplexType`: the complex dtype whose parts are this float (float64 → complex128), and
    /// complex64 for the dtypes that become float32 (the halves have no complex type here: complex32 is not
    /// supported).
    pub fn to_complex(self) -> DType {
        match self {
            DType::F64 | DType::C128 => DType::C128,
            _ => DType::C64,
        }
    }
    pub fn is_int(self) -> bool {
        matches!(self, DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }
    pub fn is_signed(self) -> bool {
        !matches!(self, DType::Bool | DType::U8)
    }
    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 1,
            DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 | DType::C64 => 8,
            DType::C128 => 16,
        }
    }
    /// PyTorch's C++ scalar-type name, as in "not implemented for 'Long'".
    pub fn scalar_type_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::U8 => "Byte",
            DType::I8 => "Char",
            DType::I16 => "Short",
            DType::I32 => "Int",
            DType::I64 => "Long",
            DType::F16 => "Half",
            DType::BF16 => "BFloat16",
            DType::F32 => "Float",
            DType::F64 => "Double",
            DType::C64 => "ComplexFloat",
            DType::C128 => "ComplexDouble",
        }
    }
    /// Legacy tensor-type name used in PyTorch's messages ("FloatTensor").
    pub fn legacy_name(self) -> &'static str {
        match self {
            DType::Bool => "BoolTensor",
            DType::U8 => "ByteTensor",
            DType::I8 => "CharTensor",
            DType::I16 => "ShortTensor",
            DType::I32 => "IntTensor",
            DType::I64 => "LongTensor",
            DType::F16 => "HalfTensor",
            DType::BF16 => "BFloat16Tensor",
            DType::F32 => "FloatTensor",
            DType::F64 => "DoubleTensor",
            DType::C64 => "ComplexFloatTensor",
            DType::C128 => "ComplexDoubleTensor",
        }
    }
    fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            d if d.is_int() => Category::Int,
            d if d.is_complex() => Category::Complex,
            _ => Category::Float,
        }
    }
    /// The float dtype an op like `exp` or true division computes in for this input (a complex one for
    /// complex input).
    pub fn to_float(self) -> DType {
        if self.is_float() || self.is_complex() {
            self
        } else {
            default_float()
        }
    }
    /// The dtype a kernel computes in: the halves in float32, the narrow ints in int64 (results are
    /// rounded or wrapped back into the storage dtype).
    pub fn compute(self) -> DType {
        match self {
            DType::F16 | DType::BF16 => DType::F32,
            DType::U8 | DType::I8 | DType::I16 | DType::I32 => DType::I64,
            d => d,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `torch.promote_types`: the smallest dtype both convert to without losing range or category.
pub fn promote_types(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    match (a.category(), b.category()) {
        (Category::Bool, _) => b,
        (_, Category::Bool) => a,
        (Category::Int, Category::Float) => b,
        (Category::Float, Category::Int) => a,
        // the two 16-bit floats share no format: float32 holds both
        (Category::Float, Category::Float) if matches!((a, b), (F16, BF16) | (BF16, F16)) => F32,
        (Category::Float, Category::Float) => a.max(b),
        // complex with anything: the complex dtype wide enough for both parts (float64 + complex64 → complex128)
        (Category::Complex, _) | (_, Category::Complex) => {
            if a.component() == DType::F64 || b.component() == DType::F64 {
                C128
            } else {
                C64
            }
        }
        // uint8 with a signed int: the next signed width that holds 0..=255
        _ if a == U8 && b == I8 || a == I8 && b == U8 => I16,
        _ => a.max(b),
    }
}

/// `torch.result_type` for two operands. Operands promote within their priority class (dimensioned
/// tensors, 0-dim tensors, Python numbers); a weaker class only counts when it lifts the category
/// (int tensor + 2.5 → float32, float16 tensor + 2.5 → float16, int8 tensor + 2 → int8).
pub fn result_type(a: (DType, Priority), b: (DType, Priority)) -> DType {
    result_type_of(&[a, b])
}

/// `result_type` for any number of operands (`addcmul`'s three), at least one.
pub fn result_type_of(operands: &[(DType, Priority)]) -> DType {
    let mut state = [None::<DType>; 3];
    for &(dtype, priority) in operands {
        let slot = &mut state[priority as usize];
        *slot = Some(slot.map_or(dtype, |d| promote_types(d, dtype)));
    }
    let [wrapped, zero_dim, dimensioned] = state;
    combine_categories(dimensioned, combine_categories(zero_dim, wrapped)).expect("at least one operand")
}

/// PyTorch's `combine_categories`: the stronger class wins unless the weaker one lifts it from bool,
/// or from int to float, or to complex (a float keeps its width: float64 tensor + 1j → complex128).
fn combine_categories(higher: Option<DType>, lower: Option<DType>) -> Option<DType> {
    match (higher, lower) {
        (Some(h), _) if h.is_complex() => Some(h),
        (Some(h), Some(l)) if l.is_complex() => Some(if h.is_float() { h.to_complex() } else { l }),
        (Some(h), Some(l)) if !h.is_float() && (h == DType::Bool || l.is_float()) => Some(promote_types(h, l)),
        (Some(h), _) => Some(h),
        (None, l) => l,
    }
}

/// How much an operand's dtype counts in promotion: dimensioned tensors, then 0-dim tensors, then
/// Python numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Priority {
    Wrapped,
    ZeroDim,
    Dimensioned,
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;
    use Priority::*;

    #[test]
    fn promotion_follows_pytorch() {
        assert_eq!(result_type((I64, Dimensioned), (F32, Wrapped)), F32);
        assert_eq!(result_type((F64, Dimensioned), (F32, Wrapped)), F64);
        assert_eq!(result_type((I64, Dimensioned), (I64, Wrapped)), I64);
        assert_eq!(result_type((F32, Dimensioned), (F64, Dimensioned)), F64);
        assert_eq!(result_type((Bool, Dimensioned), (I64, Dimensioned)), I64);
        assert_eq!(result_type((Bool, Dimensioned), (I64, Wrapped)), I64);
        assert_eq!(result_type((F32, Dimensioned), (F64, ZeroDim)), F32);
        assert_eq!(result_type((I64, Dimensioned), (F64, ZeroDim)), F64);
        assert_eq!(result_type((I64, ZeroDim), (F32, Wrapped)), F32);
        assert_eq!(result_type((I8, Dimensioned), (I64, Wrapped)), I8);
        assert_eq!(result_type((I8, Dimensioned), (I64, ZeroDim)), I8);
        assert_eq!(result_type((F16, Dimensioned), (F32, Wrapped)), F16);
        assert_eq!(result_type((F16, Dimensioned), (F64, ZeroDim)), F16);
        assert_eq!(result_type((Bool, Dimensioned), (I32, ZeroDim)), I32);
        assert_eq!(result_type((U8, Dimensioned), (F64, ZeroDim)), F64);
        assert_eq!(result_type((I8, Dimensioned), (U8, Dimensioned)), I16);
    }

    #[test]
    fn promote_types_table() {
        assert_eq!(promote_types(U8, I8), I16);
        assert_eq!(promote_types(U8, I16), I16);
        assert_eq!(promote_types(U8, I32), I32);
        assert_eq!(promote_types(I8, I32), I32);
        assert_eq!(promote_types(F16, BF16), F32);
        assert_eq!(promote_types(BF16, F64), F64);
        assert_eq!(promote_types(I64, F16), F16);
        assert_eq!(promote_types(Bool, U8), U8);
        assert_eq!(promote_types(F32, C64), C64);
        assert_eq!(promote_types(F64, C64), C128);
        assert_eq!(promote_types(I64, C64), C64);
        assert_eq!(promote_types(C128, F16), C128);
    }

    #[test]
    fn complex_numbers_lift_the_category() {
        assert_eq!(result_type((F32, Dimensioned), (C64, Wrapped)), C64);
        assert_eq!(result_type((F64, Dimensioned), (C64, Wrapped)), C128);
        assert_eq!(result_type((I64, Dimensioned), (C64, Wrapped)), C64);
        assert_eq!(result_type((C64, Dimensioned), (F64, ZeroDim)), C64);
        assert_eq!(result_type((C64, Dimensioned), (C128, ZeroDim)), C64);
    }
}
