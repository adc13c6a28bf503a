//! Borrowing several tensors' elements at once as contiguous slices, for fused kernels: a contiguous
//! tensor of the wanted dtype lends its storage (no copy), any other is copied to row-major order first.
use crate::element::Element;
use crate::tensor::Tensor;

/// A tensor's elements as row-major `T`: borrowed when it already is, else an owned copy.
enum Rows<T> {
    Borrowed(Tensor),
    Owned(Vec<T>),
}

fn rows_of<T: Element>(t: &Tensor) -> Rows<T> {
    if t.dtype() == T::DTYPE && t.is_contiguous() {
        Rows::Borrowed(t.clone())
    } else {
        Rows::Owned(t.to_vec::<T>())
    }
}

/// Runs `f` on the elements of each of `tensors` in row-major order, as `T`.
pub(crate) fn with_slices<T: Element, R>(tensors: &[&Tensor], f: impl FnOnce(&[&[T]]) -> R) -> R {
    let rows: Vec<Rows<T>> = tensors.iter().map(|t| rows_of(t)).collect();
    let mut slices: Vec<&[T]> = Vec::with_capacity(rows.len());
    borrow_all(&rows, &mut slices, f)
}

/// Takes each borrowed tensor's storage lock in turn (nested, so that every lock is held while `f` runs).
fn borrow_all<'a, T: Element, R>(rows: &'a [Rows<T>], slices: &mut Vec<&'a [T]>, f: impl FnOnce(&[&[T]]) -> R) -> R {
    let Some((first, rest)) = rows.split_first() else { return f(slices) };
    match first {
        Rows::Owned(v) => {
            slices.push(v);
            borrow_all(rest, slices, f)
        }
        Rows::Borrowed(t) => t.with_data(|layout, data: &[T]| {
            let d = &data[layout.contiguous_range().expect("contiguous")];
            // Safety: the storage's read lock is held until this closure returns, and `f` (the only user
            // of the slice) returns before it; the lifetime is widened only to fit the shared vector.
            let s: &'a [T] = unsafe { std::slice::from_raw_parts(d.as_ptr(), d.len()) };
            slices.push(s);
            borrow_all(rest, slices, f)
        }),
    }
}
