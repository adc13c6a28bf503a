//! Ops that rearrange dims without copying: flatten, unflatten, movedim, narrow, and the transposes
//! of all dims (`T`) and of the last two (`mT`). Each result is a view of its input.
use crate::bail;
use crate::error::{Error, Result};
use crate::layout::wrap_dim;
use crate::ops::view::infer_shape;
use crate::tensor::Tensor;

impl Tensor {
    /// `flatten(start_dim, end_dim)`: those dims merged into one (this tensor itself when they are one).
    pub fn flatten(&self, start_dim: isize, end_dim: isize) -> Result<Tensor> {
        if self.ndim() == 0 {
            return self.reshape(&[1]);
        }
        let (s, e) = (wrap_dim(start_dim, self.ndim())?, wrap_dim(end_dim, self.ndim())?);
        if s > e {
            bail!(Runtime, "flatten() has invalid args: start_dim cannot come after end_dim");
        }
        if s == e {
            return Ok(self.clone());
        }
        let sh = self.shape();
        let mut shape: Vec<usize> = sh[..s].to_vec();
        shape.push(sh[s..=e].iter().product());
        shape.extend_from_slice(&sh[e + 1..]);
        self.reshape(&shape)
    }

    /// `unflatten(dim, sizes)`: dim `dim` split into `sizes` (one of them may be -1).
    pub fn unflatten(&self, dim: isize, sizes: &[isize]) -> Result<Tensor> {
        let d = crate::layout::wrap_sized_dim(dim, self.ndim())?;
        if sizes.is_empty() {
            bail!(Runtime, "unflatten: sizes must be non-empty");
        }
        let n = self.shape()[d];
        let inferred = infer_shape(sizes, n).map_err(|_| {
            Error::Runtime(format!(
                "unflatten: Provided sizes {sizes:?} don't multiply up to the size of dim {dim} ({n}) in the \
                input tensor"
            ))
        })?;
        let mut shape: Vec<isize> = self.shape()[..d].iter().map(|&x| x as isize).collect();
        shape.extend(inferred.iter().map(|&x| x as isize));
        shape.extend(self.shape()[d + 1..].iter().map(|&x| x as isize));
        self.view(&shape)
    }

    /// `movedim(source, destination)`: dims `source` moved to positions `destination`, the others
    /// keeping their order.
    pub fn movedim(&self, source: &[isize], destination: &[isize]) -> Result<Tensor> {
        let n = self.ndim();
        if source.len() != destination.len() {
            bail!(
                Runtime,
                "movedim: Invalid source or destination dims: source ({source:?} dims) should contain the same \
                number of dims as destination ({destination:?} dims)"
            );
        }
        let wrap = |v: &[isize], what: &str| -> Result<Vec<usize>> {
            let w: Vec<usize> = v.iter().map(|&d| wrap_dim(d, n)).collect::<Result<_>>()?;
            for (i, x) in w.iter().enumerate() {
                if w[..i].contains(x) {
                    bail!(Runtime, "movedim: repeated dim in `{what}` ({v:?})");
                }
            }
            Ok(w)
        };
        let (src, dst) = (wrap(source, "source")?, wrap(destination, "destination")?);
        if n == 0 {
            // a 0-dim tensor's dim 0 (or -1) is the tensor itself: moving it changes nothing
            return self.permute(&[]);
        }
        let mut perm: Vec<Option<usize>> = vec![None; n];
        for (&s, &d) in src.iter().zip(&dst) {
            perm[d] = Some(s);
        }
        let mut rest = (0..n).filter(|d| !src.contains(d));
        let perm: Vec<isize> =
            perm.into_iter().map(|p| p.unwrap_or_else(|| rest.next().expect("a dim left")) as isize).collect();
        self.permute(&perm)
    }

    /// `narrow(dim, start, length)`: `length` elements from `start` (negative: from the end).
    pub fn narrow(&self, dim: isize, start: isize, length: isize) -> Result<Tensor> {
        if self.ndim() == 0 {
            bail!(Runtime, "narrow() cannot be applied to a 0-dim tensor.");
        }
        let d = wrap_dim(dim, self.ndim())?;
        let n = self.shape()[d] as isize;
        if start < -n || start > n {
            bail!(Index, "start out of range (expected to be in range of [{}, {n}], but got {start})", -n);
        }
        let s = if start < 0 { start + n } else { start };
        if length < 0 {
            bail!(Runtime, "narrow(): length must be non-negative.");
        }
        if s + length > n {
            bail!(Runtime, "start ({s}) + length ({length}) exceeds dimension size ({n}).");
        }
        self.slice(d, s as usize, (s + length) as usize, 1)
    }

    /// `T`: every dim reversed.
    pub fn reversed_dims(&self) -> Result<Tensor> {
        let perm: Vec<isize> = (0..self.ndim() as isize).rev().collect();
        self.permute(&perm)
    }

    /// `mT`: the last two dims swapped.
    pub fn matrix_transpose(&self) -> Result<Tensor> {
        if self.ndim() < 2 {
            bail!(
                Runtime,
                "tensor.mT is only supported on matrices or batches of matrices. Got {}-D tensor.",
                self.ndim()
            );
        }
        self.transpose(-2, -1)
    }
}

#[cfg(test)]
mod tests {
    use crate::Tensor;

    fn arange(shape: &[usize]) -> Tensor {
        let n = shape.iter().product::<usize>();
        Tensor::from_vec((0..n).map(|v| v as f64).collect::<Vec<_>>(), shape).unwrap()
    }

    #[test]
    fn shape_ops_are_views_with_torch_shapes() {
        let x = arange(&[2, 3, 4]);
        assert_eq!(x.flatten(1, -1).unwrap().shape(), [2, 12]);
        assert!(x.flatten(1, 1).unwrap().same_tensor(&x), "nothing to merge: the tensor itself");
        assert_eq!(x.unflatten(2, &[2, -1]).unwrap().shape(), [2, 3, 2, 2]);
        let m = x.movedim(&[0], &[2]).unwrap();
        assert_eq!(m.shape(), [3, 4, 2]);
        assert_eq!(m.strides(), [4, 1, 12]);
        let n = x.narrow(1, -2, 2).unwrap();
        assert_eq!((n.shape(), n.storage_offset()), (&[2, 2, 4][..], 4));
        assert!(n.same_storage(&x));
        assert_eq!(x.reversed_dims().unwrap().shape(), [4, 3, 2]);
        assert_eq!(x.matrix_transpose().unwrap().shape(), [2, 4, 3]);
    }

    #[test]
    fn shape_op_errors_name_the_problem() {
        let x = arange(&[2, 3]);
        let err = |r: crate::Result<Tensor>| r.unwrap_err().to_string();
        assert!(err(x.flatten(1, 0)).contains("start_dim cannot come after end_dim"));
        assert!(err(x.unflatten(1, &[2, 2])).contains("don't multiply up to the size of dim 1 (3)"));
        assert!(err(x.movedim(&[0, 0], &[0, 1])).contains("repeated dim in `source`"));
        assert!(matches!(x.narrow(1, 4, 0), Err(crate::Error::Index(_))));
        assert!(err(x.narrow(1, 1, 3)).contains("start (1) + length (3) exceeds dimension size (3)."));
        assert!(err(Tensor::scalar(1.0).matrix_transpose()).contains("Got 0-D tensor"));
    }
}
