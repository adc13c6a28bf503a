//! Reductions over the last dim of a view whose rows are contiguous but not adjacent (one of `unbind`'s views,
//! `x[:, :64]`): each row read in place instead of copying the whole view to row-major first. Through a copy, `sum(-1)`
//! of an `unbind` view of [64, 16, 3, 128] float32 took 65 µs (torch 7.5): the copy was the op. A row is reduced by
//! the same kernel as a copy's row, so results are equal. Rows whose elements are apart (`x[:, ::2]`) are not taken:
//! gathered a row at a time into a buffer, `sum(1)` of a 1000×1000 float32 tensor's `[:, ::2]` took 160–230 µs
//! against 96–116 through the copy (the strided reads were the time either way; torch 75).
use crate::kernels::threads::{items_per_task, par_chunks_mut};
use crate::layout::Layout;

/// The rows of a layout whose last dim has adjacent elements: where each starts (in row-major order of the other
/// dims) and their length.
pub struct Rows {
    pub starts: Vec<usize>,
    pub len: usize,
}

impl Rows {
    /// Whether `l` has rows to read in place: at least one dim, and a last dim with adjacent elements (not a step or a
    /// broadcast).
    pub fn fit(l: &Layout) -> bool {
        l.shape.last().is_some_and(|&len| len <= 1 || l.strides.last() == Some(&1))
    }

    /// None unless the layout's rows `fit`.
    pub fn of(l: &Layout) -> Option<Rows> {
        if !Rows::fit(l) {
            return None;
        }
        let (&len, lead) = l.shape.split_last()?;
        let mut starts = Vec::with_capacity(crate::layout::numel(lead));
        crate::iter::for_each_offsets(lead, [&l.strides[..lead.len()]], [l.offset], |[o]| starts.push(o));
        Some(Rows { starts, len })
    }

    /// `f(row)` for each row of `data`, the rows split across the threads from `SUM_ELEMENTS` elements.
    pub fn map<T: Copy + Send + Sync, A: Send + Clone + Default>(
        &self,
        data: &[T],
        f: impl Fn(&[T]) -> A + Sync,
    ) -> Vec<A> {
        let mut out = vec![A::default(); self.starts.len()];
        let parallel = self.starts.len() > 1 && self.starts.len() * self.len >= crate::kernels::split::SUM_ELEMENTS;
        let per_task = items_per_task(self.starts.len(), parallel);
        par_chunks_mut(&mut out, per_task, &|t, slots| {
            let starts = &self.starts[t * per_task..];
            if self.len == 0 {
                // (an empty view's offsets may point past its data)
                return slots.iter_mut().for_each(|slot| *slot = f(&[]));
            }
            for (slot, &s) in slots.iter_mut().zip(starts) {
                *slot = f(&data[s..s + self.len]);
            }
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_the_lead_dims_in_row_major_order() {
        // the second third of each row of a [2, 3, 12] tensor
        let l = Layout { shape: vec![2, 3, 4], strides: vec![36, 12, 1], offset: 4 };
        let rows = Rows::of(&l).expect("3 dims");
        assert_eq!((rows.starts.as_slice(), rows.len), (&[4, 16, 28, 40, 52, 64][..], 4));
        let data: Vec<i64> = (0..72).collect();
        assert_eq!(rows.map(&data, |r| r.iter().sum::<i64>()), vec![22, 70, 118, 166, 214, 262]);
        // every other column of a [4, 6]: not taken
        let stepped = Layout::contiguous(&[4, 6]).slice(1, 0, 6, 2);
        assert!(!Rows::fit(&stepped) && Rows::of(&stepped).is_none());
        assert!(Rows::of(&Layout::contiguous(&[])).is_none());
        assert!(Rows::of(&Layout::contiguous(&[3]).broadcast_to(&[2, 3]).unwrap().transpose(0, 1)).is_none());
        let empty = Rows::of(&Layout { shape: vec![2, 0], strides: vec![1, 1], offset: 99 }).expect("2 dims");
        assert_eq!(empty.map(&data, |r| r.len()), vec![0, 0]);
    }
}
