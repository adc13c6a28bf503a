//! Ops that write into a copy of a tensor at computed positions: `index_fill`, `index_copy`,
//! `scatter_reduce`, `index_put`, `masked_scatter` and the region scatters (`select_scatter`,
//! `slice_scatter`, `diagonal_scatter`). Each forward runs the shared `put_flat` primitive of `ops/index.rs`
//! on detached inputs and records its own rule (torch's name and saved fields) beside it.
mod copy;
mod fill;
mod masked_scatter;
mod put;
mod region;
mod scatter_reduce;

pub use fill::IndexFillBackward0;
pub use scatter_reduce::ScatterReduce;

use crate::layout::Layout;
use crate::ops::index::{positions, Positions};
use std::sync::Arc;

/// The row-major positions of the elements of a tensor of `shape` whose coordinate along `dim` is
/// `rows[k]`, in the order of a tensor shaped as `shape` with `rows.len()` along `dim` (a 0-d tensor's
/// one element for each row).
fn slice_positions(shape: &[usize], dim: usize, rows: &[usize]) -> Positions {
    if shape.is_empty() {
        return Arc::new(vec![0; rows.len()]);
    }
    let mut out_shape = shape.to_vec();
    out_shape[dim] = rows.len();
    positions(&out_shape, &Layout::contiguous(shape), |i, s| {
        s[dim] = rows[i[dim]];
        true
    })
}

/// The size of `dim` of a tensor of `shape` (a 0-d tensor has one element along its one dim).
fn dim_size(shape: &[usize], dim: usize) -> usize {
    shape.get(dim).copied().unwrap_or(1)
}
