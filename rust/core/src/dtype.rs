//! Element types and PyTorch's type-promotion rules.
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    I64,
    F32,
    F64,
}

/// A Python number used as an operand: it may change the category of a result, never its width.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Scalar {
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as i64 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }
    /// The dtype a 0-dim tensor made from this number has (Python float → float32, the default).
    pub fn dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::I64,
            Scalar::Float(_) => DType::F32,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Category {
    Bool,
    Int,
    Float,
}

impl DType {
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I64 => "int64",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }
    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool => 1,
            DType::I64 | DType::F64 => 8,
            DType::F32 => 4,
        }
    }
    /// PyTorch's C++ scalar-type name, as in "not implemented for 'Long'".
    pub fn scalar_type_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::I64 => "Long",
            DType::F32 => "Float",
            DType::F64 => "Double",
        }
    }
    /// Legacy tensor-type name used in PyTorch's messages ("FloatTensor").
    pub fn legacy_name(self) -> &'static str {
        match self {
            DType::Bool => "BoolTensor",
            DType::I64 => "LongTensor",
            DType::F32 => "FloatTensor",
            DType::F64 => "DoubleTensor",
        }
    }
    fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::I64 => Category::Int,
            DType::F32 | DType::F64 => Category::Float,
        }
    }
    /// The float dtype an op like `exp` or true division computes in for this input.
    pub fn to_float(self) -> DType {
        if self.is_float() { self } else { DType::F32 }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `torch.promote_types`: the wider of two dtypes (the order Bool < I64 < F32 < F64 is a lattice here).
pub fn promote_types(a: DType, b: DType) -> DType {
    a.max(b)
}

/// `torch.result_type` for two operands, where a wrapped number (a Python scalar) only counts when it
/// lifts the category: int tensor + 2.5 → float32, float64 tensor + 2.5 → float64, int tensor + 2 → int64.
/// A 0-dim tensor likewise only counts when it lifts the category of the dimensioned operand.
pub fn result_type(a: (DType, Priority), b: (DType, Priority)) -> DType {
    let ((da, pa), (db, pb)) = (a, b);
    if pa == pb {
        return promote_types(da, db);
    }
    let ((hi, _), (lo, plo)) = if pa > pb { (a, b) } else { (b, a) };
    let _ = plo;
    if lo.category() > hi.category() {
        match lo.category() {
            // a Python float, or a 0-dim float tensor, lifts an int tensor to the default float dtype
            Category::Float if pa.min(pb) == Priority::Wrapped => DType::F32,
            Category::Float => lo,
            Category::Int => DType::I64,
            Category::Bool => hi,
        }
    } else {
        hi
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
    }
}
