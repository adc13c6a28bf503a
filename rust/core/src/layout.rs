//! Shape, strides (in elements) and offset: how a tensor reads its storage. No data lives here.
use crate::bail;
use crate::error::Result;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub shape: Vec<usize>,
    pub strides: Vec<usize>,
    pub offset: usize,
}

/// The number of elements; `usize::MAX` for a shape too large to count (so it never matches a real
/// size and any allocation of it is refused), 0 whenever a dim is 0.
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().fold(1usize, |n, &d| n.saturating_mul(d))
}

/// The number of elements of a shape that a view may take: at most `isize::MAX` (PyTorch's message).
pub fn check_numel(shape: &[usize]) -> Result<usize> {
    match numel(shape) {
        n if n > isize::MAX as usize => bail!(Runtime, "numel: integer multiplication overflow"),
        n => Ok(n),
    }
}

pub fn contiguous_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1].saturating_mul(shape[i + 1].max(1));
    }
    strides
}

/// Wraps a possibly negative dim into `0..ndim` with PyTorch's message.
pub fn wrap_dim(dim: isize, ndim: usize) -> Result<usize> {
    let n = ndim.max(1) as isize; // a 0-dim tensor accepts dims -1 and 0
    if dim < -n || dim >= n {
        bail!(Index, "Dimension out of range (expected to be in range of [{}, {}], but got {})", -n, n - 1, dim);
    }
    Ok(if dim < 0 { (dim + n) as usize } else { dim as usize })
}

/// `wrap_dim` for ops that index the dim's size: a 0-dim tensor has no dim to name (PyTorch's IndexError).
pub fn wrap_sized_dim(dim: isize, ndim: usize) -> Result<usize> {
    if ndim == 0 {
        bail!(Index, "Dimension specified as {dim} but tensor has no dimensions");
    }
    wrap_dim(dim, ndim)
}

/// `torch.broadcast_shapes` with PyTorch's message naming the first mismatching dim.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
        let db = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            (x, y) => bail!(
                Runtime,
                "The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {i}"
            ),
        };
    }
    Ok(out)
}

impl Layout {
    pub fn contiguous(shape: &[usize]) -> Self {
        Layout { shape: shape.to_vec(), strides: contiguous_strides(shape), offset: 0 }
    }

    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    pub fn numel(&self) -> usize {
        numel(&self.shape)
    }

    pub fn is_contiguous(&self) -> bool {
        if self.numel() == 0 {
            return true; // as torch: an empty tensor is contiguous whatever its strides
        }
        let mut expected = 1;
        for (&d, &s) in self.shape.iter().zip(&self.strides).rev() {
            if d != 1 && s != expected {
                return false;
            }
            expected *= d;
        }
        true
    }

    /// Contiguous and starting at its offset: its elements are `data[offset..offset + numel]`.
    pub fn contiguous_range(&self) -> Option<std::ops::Range<usize>> {
        if self.numel() == 0 {
            return Some(0..0); // an empty view may carry an offset past the end of its storage
        }
        self.is_contiguous().then(|| self.offset..self.offset + self.numel())
    }

    /// The largest storage index this layout can touch, plus one (0 when empty).
    pub fn storage_extent(&self) -> usize {
        if self.numel() == 0 {
            return 0;
        }
        self.offset + self.shape.iter().zip(&self.strides).map(|(&d, &s)| (d - 1) * s).sum::<usize>() + 1
    }

    /// Expands to `shape` (numpy broadcasting): new and size-1 dims get stride 0.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Layout> {
        if shape.len() < self.ndim() {
            bail!(
                Runtime,
                "expand(torch.FloatTensor{{{:?}}}, size={:?}): the number of sizes provided ({}) must be greater or \
                    equal to the number of dimensions in the tensor ({})",
                self.shape,
                shape,
                shape.len(),
                self.ndim()
            );
        }
        let lead = shape.len() - self.ndim();
        let mut strides = vec![0; shape.len()];
        for (i, &want) in shape.iter().enumerate() {
            if i < lead {
                continue;
            }
            let (have, stride) = (self.shape[i - lead], self.strides[i - lead]);
            strides[i] = if have == want {
                stride
            } else if have == 1 {
                0
            } else {
                bail!(
                    Runtime,
                    "The expanded size of the tensor ({want}) must match the existing size ({have}) at non-singleton \
                        dimension {i}.  Target sizes: {shape:?}.  Tensor sizes: {:?}",
                    self.shape
                );
            };
        }
        Ok(Layout { shape: shape.to_vec(), strides, offset: self.offset })
    }

    pub fn transpose(&self, d0: usize, d1: usize) -> Layout {
        let mut l = self.clone();
        l.shape.swap(d0, d1);
        l.strides.swap(d0, d1);
        l
    }

    pub fn permute(&self, perm: &[usize]) -> Layout {
        Layout {
            shape: perm.iter().map(|&p| self.shape[p]).collect(),
            strides: perm.iter().map(|&p| self.strides[p]).collect(),
            offset: self.offset,
        }
    }

    pub fn select(&self, dim: usize, index: usize) -> Layout {
        let mut l = self.clone();
        l.offset += index * l.strides[dim];
        l.shape.remove(dim);
        l.strides.remove(dim);
        l
    }

    /// `start..end` by `step` along `dim`; bounds already clamped by the caller.
    pub fn slice(&self, dim: usize, start: usize, end: usize, step: usize) -> Layout {
        let mut l = self.clone();
        let len = if end > start { (end - start).div_ceil(step) } else { 0 };
        if len > 0 {
            l.offset += start * l.strides[dim];
        }
        l.shape[dim] = len;
        l.strides[dim] *= step;
        l
    }

    pub fn unsqueeze(&self, dim: usize) -> Layout {
        let mut l = self.clone();
        let stride = if dim < l.ndim() { l.strides[dim] * l.shape[dim] } else { 1 };
        l.shape.insert(dim, 1);
        l.strides.insert(dim, stride.max(1));
        l
    }

    pub fn squeeze(&self, dims: &[usize]) -> Layout {
        let mut l = self.clone();
        for &d in dims.iter().rev() {
            if l.shape[d] == 1 {
                l.shape.remove(d);
                l.strides.remove(d);
            }
        }
        l
    }

    /// The dims from the largest stride to the smallest, the order in which the elements lie in memory;
    /// None when that is the logical order already. Size-1 dims keep their places (their strides mean
    /// nothing) and equal strides keep their logical order.
    pub fn memory_order(&self) -> Option<Vec<usize>> {
        let movable: Vec<usize> = (0..self.ndim()).filter(|&d| self.shape[d] > 1).collect();
        let mut sorted = movable.clone();
        sorted.sort_by_key(|&d| std::cmp::Reverse(self.strides[d])); // stable
        if sorted == movable {
            return None;
        }
        let mut perm: Vec<usize> = (0..self.ndim()).collect();
        for (&slot, d) in movable.iter().zip(sorted) {
            perm[slot] = d;
        }
        Some(perm)
    }

    /// Whether two positions may reach one element (a broadcast dim, sliding windows): each dim, from the
    /// smallest stride up, must step past everything the smaller dims reach. (Conservative: a few interleaved
    /// layouts that never meet are reported too.)
    pub fn may_overlap(&self) -> bool {
        let mut dims: Vec<usize> = (0..self.ndim()).filter(|&d| self.shape[d] > 1).collect();
        dims.sort_by_key(|&d| self.strides[d]);
        let mut reach = 0;
        for d in dims {
            if self.strides[d] <= reach {
                return true;
            }
            reach += (self.shape[d] - 1) * self.strides[d];
        }
        false
    }

    /// Whether some dim repeats its elements (stride 0 over more than one element).
    pub fn is_broadcast(&self) -> bool {
        self.shape.iter().zip(&self.strides).any(|(&d, &s)| d > 1 && s == 0)
    }

    /// A view with a new shape over the same elements, when the strides allow it without a copy:
    /// old dims are grouped into runs that are contiguous within themselves, and each run must be
    /// covered exactly by consecutive new dims.
    pub fn reshape_view(&self, shape: &[usize]) -> Option<Layout> {
        if self.numel() == 0 || self.is_contiguous() {
            return Some(Layout { shape: shape.to_vec(), strides: contiguous_strides(shape), offset: self.offset });
        }
        let (old_shape, old_strides) = (&self.shape, &self.strides);
        let mut strides = vec![0usize; shape.len()];
        let mut view_d = shape.len() as isize - 1;
        let mut chunk_base = *old_strides.last()?;
        let (mut old_numel, mut view_numel) = (1usize, 1usize);
        for d in (0..old_shape.len()).rev() {
            old_numel *= old_shape[d];
            let run_ends = d == 0 || (old_shape[d - 1] != 1 && old_strides[d - 1] != old_numel * chunk_base);
            if run_ends {
                while view_d >= 0 && (view_numel < old_numel || shape[view_d as usize] == 1) {
                    strides[view_d as usize] = view_numel * chunk_base;
                    view_numel *= shape[view_d as usize];
                    view_d -= 1;
                }
                if view_numel != old_numel {
                    return None;
                }
                if d > 0 {
                    chunk_base = old_strides[d - 1];
                    old_numel = 1;
                    view_numel = 1;
                }
            }
        }
        (view_d == -1).then(|| Layout { shape: shape.to_vec(), strides, offset: self.offset })
    }
}

/// Calls `f` with every multi-index of `shape` in row-major order.
pub fn for_each_index(shape: &[usize], mut f: impl FnMut(&[usize])) {
    if numel(shape) == 0 {
        return;
    }
    let Some((&row, lead)) = shape.split_last() else {
        return f(&[]);
    };
    // the last dim in a loop of its own, the carry through the others once a row
    let mut idx = vec![0usize; shape.len()];
    let last = lead.len();
    loop {
        for j in 0..row {
            idx[last] = j;
            f(&idx);
        }
        let mut d = last;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_message_names_dim() {
        let e = broadcast_shapes(&[3], &[2]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"
        );
        assert_eq!(broadcast_shapes(&[4, 1, 3], &[5, 1]).unwrap(), vec![4, 5, 3]);
    }

    #[test]
    fn contiguity_and_extent() {
        let l = Layout::contiguous(&[2, 3]);
        assert!(l.is_contiguous());
        let t = l.transpose(0, 1);
        assert!(!t.is_contiguous());
        assert_eq!(t.storage_extent(), 6);
        assert_eq!(l.slice(1, 0, 3, 2).shape, vec![2, 2]);
    }

    #[test]
    fn memory_order_sorts_dims_by_stride() {
        assert_eq!(Layout::contiguous(&[2, 3]).memory_order(), None);
        assert_eq!(Layout::contiguous(&[2, 3]).transpose(0, 1).memory_order(), Some(vec![1, 0]));
        let p = Layout::contiguous(&[2, 3, 4]).permute(&[2, 0, 1]); // strides [1, 12, 4]
        assert_eq!(p.memory_order(), Some(vec![1, 2, 0]));
        assert!(p.permute(&p.memory_order().unwrap()).is_contiguous());
        // a size-1 dim stays in its place whatever its stride
        let u = Layout { shape: vec![3, 1, 2], strides: vec![1, 99, 3], offset: 0 };
        assert_eq!(u.memory_order(), Some(vec![2, 1, 0]));
        assert_eq!(Layout { shape: vec![2, 1, 3], strides: vec![3, 99, 1], offset: 0 }.memory_order(), None);
        assert!(Layout::contiguous(&[3]).broadcast_to(&[2, 3]).unwrap().is_broadcast());
        assert!(!Layout::contiguous(&[1, 3]).broadcast_to(&[1, 3]).unwrap().is_broadcast());
    }

    #[test]
    fn reshape_view_of_transposed_needs_copy() {
        let t = Layout::contiguous(&[2, 3]).transpose(0, 1);
        assert!(t.reshape_view(&[6]).is_none());
        let v = t.reshape_view(&[3, 1, 2]).unwrap();
        assert_eq!((v.strides[0], v.strides[2]), (1, 3));
        let s = Layout::contiguous(&[4, 6]).slice(1, 0, 6, 2); // shape [4,3] strides [6,2]
        let v = s.reshape_view(&[2, 2, 3]).unwrap();
        assert_eq!(v.strides, vec![12, 6, 2]);
        assert_eq!(s.reshape_view(&[12]).unwrap().strides, vec![2]); // 6i+2j == 2(3i+j)
        let u = Layout::contiguous(&[4, 6]).slice(1, 0, 4, 1); // rows no longer adjacent
        assert!(u.reshape_view(&[16]).is_none());
    }
}
