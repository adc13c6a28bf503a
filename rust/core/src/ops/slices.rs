//! Borrowing several tensors' elements at once for fused kernels: a tensor of the wanted dtype whose
//! layout the kernel can read lends its storage (no copy), any other is copied to row-major order first.
use crate::element::Element;
use crate::layout::Layout;
use crate::tensor::Tensor;

/// A tensor's elements as `T`: its storage when the kernel reads its layout, else a row-major copy.
enum Source<T> {
    Borrowed(Tensor),
    Owned(Vec<T>, Layout),
}

/// Runs `f` on each of `tensors` as (elements, layout): the storage and the tensor's own layout for
/// those of dtype `T` that `readable` accepts, a contiguous copy for the rest.
pub(crate) fn with_layouts<T: Element, R>(
    tensors: &[&Tensor],
    readable: impl Fn(&Tensor) -> bool,
    f: impl FnOnce(&[(&[T], Layout)]) -> R,
) -> R {
    let sources: Vec<Source<T>> = tensors
        .iter()
        .map(|t| {
            if t.dtype() == T::DTYPE && readable(t) {
                Source::Borrowed((*t).clone())
            } else {
                Source::Owned(t.to_vec::<T>(), Layout::contiguous(t.shape()))
            }
        })
        .collect();
    let mut views: Vec<(&[T], Layout)> = Vec::with_capacity(sources.len());
    borrow_all(&sources, &mut views, f)
}

/// Runs `f` on the elements of each of `tensors` in row-major order, as `T`.
pub(crate) fn with_slices<T: Element, R>(tensors: &[&Tensor], f: impl FnOnce(&[&[T]]) -> R) -> R {
    with_layouts(tensors, Tensor::is_contiguous, |views: &[(&[T], Layout)]| {
        let slices: Vec<&[T]> =
            views.iter().map(|(d, l)| &d[l.contiguous_range().expect("contiguous or copied")]).collect();
        f(&slices)
    })
}

/// Takes each borrowed tensor's storage lock in turn (nested, so that every lock is held while `f` runs).
fn borrow_all<'a, T: Element, R>(
    sources: &'a [Source<T>],
    views: &mut Vec<(&'a [T], Layout)>,
    f: impl FnOnce(&[(&[T], Layout)]) -> R,
) -> R {
    let Some((first, rest)) = sources.split_first() else { return f(views) };
    match first {
        Source::Owned(v, layout) => {
            views.push((v, layout.clone()));
            borrow_all(rest, views, f)
        }
        Source::Borrowed(t) => t.with_data(|layout, data: &[T]| {
            // Safety: the storage's read lock is held until this closure returns, and `f` (the only user
            // of the slice) returns before it; the lifetime is widened only to fit the shared vector.
            let s: &'a [T] = unsafe { std::slice::from_raw_parts(data.as_ptr(), data.len()) };
            views.push((s, layout.clone()));
            borrow_all(rest, views, f)
        }),
    }
}
