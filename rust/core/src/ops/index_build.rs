//! Ops that build index tensors, and `repeat_interleave`, which reads by one: `tril_indices`/`triu_indices`
//! (the coordinates of a triangle) and `repeat_interleave` (each element repeated, as torch composes it:
//! `index_select` by the indices `repeat_interleave(repeats)` for tensor repeats, a broadcast then a view
//! for a number).
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::wrap_dim;
use crate::tensor::Tensor;

/// How many times `repeat_interleave` repeats each element: one count for all, or one per element.
pub enum Repeats {
    Each(i64),
    PerElement(Tensor),
}

/// How many elements of a `row`×`col` matrix lie on or below diagonal `offset`: row r holds
/// `clamp(r + offset + 1, 0, col)` of them (counted without visiting the rows, so a size is checked before
/// anything is allocated).
fn lower_count(row: i64, col: i64, offset: i64) -> i128 {
    let (row, col, offset) = (row as i128, col as i128, offset as i128);
    // rows before `first` hold none, rows from `full` on hold all `col`, those between r + offset + 1
    let first = (-offset).clamp(0, row);
    let full = (col - offset - 1).clamp(first, row);
    let partial = (full - first) * (offset + 1) + (first + full - 1) * (full - first) / 2;
    partial + (row - full) * col
}

impl Tensor {
    /// `tril_indices(row, col, offset)` (`upper = false`) or `triu_indices`: the [2, N] int64 coordinates,
    /// row by row, of the elements of a `row`×`col` matrix on or below (above) diagonal `offset`.
    pub fn tri_indices(row: i64, col: i64, offset: i64, upper: bool) -> Result<Tensor> {
        if row < 0 {
            bail!(Runtime, "row must be non-negative, got{row}");
        }
        if col < 0 {
            bail!(Runtime, "col must be non-negative, got{col}");
        }
        let count = if upper {
            row as i128 * col as i128 - lower_count(row, col, offset - 1)
        } else {
            lower_count(row, col, offset)
        };
        crate::alloc::check_new_shape(&[2, usize::try_from(count).unwrap_or(usize::MAX)], DType::I64.itemsize())?;
        let (mut rows, mut cols) = (Vec::with_capacity(2 * count as usize), Vec::with_capacity(count as usize));
        for r in 0..row {
            // the columns kept in row r: c - r <= offset (lower) or c - r >= offset (upper)
            let (first, last) = if upper { ((r + offset).max(0), col) } else { (0, (r + offset + 1).clamp(0, col)) };
            for c in first..last {
                rows.push(r);
                cols.push(c);
            }
        }
        let n = rows.len();
        rows.extend(cols);
        Tensor::from_vec(rows, &[2, n])
    }

    /// `repeat_interleave(repeats)` of a 1-d int64 tensor of counts: each index repeated its count times.
    pub fn repeat_interleave_indices(&self) -> Result<Tensor> {
        if self.ndim() > 1 {
            bail!(Runtime, "repeats must be 0-dim or 1-dim tensor");
        }
        if !matches!(self.dtype(), DType::I64 | DType::I32) {
            bail!(
                NotImplemented,
                "\"repeat_interleave_cpu\" not implemented for '{}'",
                self.dtype().scalar_type_name()
            );
        }
        let counts = self.to_dtype(DType::I64)?.to_vec::<i64>();
        if counts.iter().any(|&r| r < 0) {
            bail!(Runtime, "repeats can not be negative");
        }
        // a sum past i64 is a size no tensor can have
        let total = counts.iter().try_fold(0i64, |sum, &r| sum.checked_add(r)).unwrap_or(i64::MAX);
        crate::alloc::check_new_shape(&[total as usize], DType::I64.itemsize())?;
        let mut out = Vec::with_capacity(total as usize);
        for (i, &r) in counts.iter().enumerate() {
            out.extend(std::iter::repeat_n(i as i64, r as usize));
        }
        Tensor::from_vec(out, &[total as usize])?.to_dtype(self.dtype())
    }

    /// `repeat_interleave(repeats, dim, output_size)`: each element (each slice of `dim`; of the flattened
    /// tensor when `dim` is None) repeated.
    pub fn repeat_interleave(&self, repeats: &Repeats, dim: Option<isize>, output_size: Option<i64>) -> Result<Tensor> {
        let Some(dim) = dim else {
            return self.reshape(&[self.numel()])?.repeat_interleave(repeats, Some(0), output_size);
        };
        let d = wrap_dim(dim, self.ndim())?;
        let size = self.shape().get(d).copied().unwrap_or(1);
        match repeats {
            Repeats::Each(r) => {
                if *r < 0 {
                    bail!(Runtime, "Repeats must be non-negative");
                }
                let total = (size as i64).saturating_mul(*r);
                if let Some(n) = output_size.filter(|&n| n != total) {
                    bail!(Runtime, "repeat_interleave: Invalid output_size, expected {total} but got {n}");
                }
                let x = if self.ndim() == 0 { self.reshape(&[1])? } else { self.clone() };
                let mut spread = x.shape().to_vec();
                spread.insert(d + 1, *r as usize);
                crate::alloc::check_new_shape(&spread, self.dtype().itemsize())?;
                let mut out_shape = x.shape().to_vec();
                out_shape[d] = total as usize;
                // a copy of the broadcast, then a view of it (ViewBackward0, as torch)
                let out_shape: Vec<isize> = out_shape.iter().map(|&s| s as isize).collect();
                x.unsqueeze(d as isize + 1)?.expand(&spread)?.contiguous()?.view(&out_shape)
            }
            Repeats::PerElement(counts) => {
                if counts.ndim() > 1 {
                    bail!(Runtime, "repeats must be 0-dim or 1-dim tensor");
                }
                let counts = if counts.numel() == 1 && size != 1 {
                    Tensor::full(&[size], counts.item()?, counts.dtype())
                } else {
                    counts.clone()
                };
                if counts.numel() != size {
                    bail!(
                        Runtime,
                        "repeats must have the same size as input along dim, but got repeats.size(0) = {} and \
                        input.size({d}) = {size}",
                        counts.numel()
                    );
                }
                let indices = counts.reshape(&[size])?.repeat_interleave_indices()?.to_dtype(DType::I64)?;
                if output_size.is_some_and(|n| n != indices.numel() as i64) {
                    bail!(Runtime, "allocated size does not match required size");
                }
                self.index_select(d as isize, &indices)
            }
        }
    }
}
