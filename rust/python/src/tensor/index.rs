//! Indexing ops, copies that reorder elements, and random draws.
use super::ints;
use super::{wrap, Out, PyTensor};
use crate::args::{int_list, operand_arg, tensor_arg};
use crate::errors::call;
use ferrograd_core::{compile, random, Tensor};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

pub(super) fn index_tensor(obj: &Bound<'_, PyAny>, func: &str, arg: &str) -> PyResult<Tensor> {
    tensor_arg(obj, func, arg)
}

#[pymethods]
impl PyTensor {
    /// `flip(*dims)`, `flip(dims)` or `flip(dims=...)`.
    #[pyo3(signature = (*args, dims=None))]
    fn flip(&self, py: Python<'_>, args: &Bound<'_, PyTuple>, dims: Option<&Bound<'_, PyAny>>) -> Out {
        let dims = match dims {
            None => int_list(args, "flip", "dims")?,
            Some(_) if !args.is_empty() => {
                return Err(pyo3::exceptions::PyTypeError::new_err("flip() got multiple values for argument 'dims'"))
            }
            Some(d) => int_list(&PyTuple::new(py, [d])?, "flip", "dims")?,
        };
        let a = self.get();
        wrap(py, call(|| a.flip(&dims))?)
    }

    fn fliplr(&self, py: Python<'_>) -> Out {
        wrap(py, call(|| self.get().fliplr())?)
    }

    fn flipud(&self, py: Python<'_>) -> Out {
        wrap(py, call(|| self.get().flipud())?)
    }

    #[pyo3(signature = (shifts, dims=None))]
    fn roll(&self, py: Python<'_>, shifts: &Bound<'_, PyAny>, dims: Option<&Bound<'_, PyAny>>) -> Out {
        let shifts = ints(shifts, "roll")?;
        let dims = match dims.filter(|d| !d.is_none()) {
            Some(d) => ints(d, "roll")?,
            None => vec![],
        };
        let a = self.get();
        wrap(py, call(|| a.roll(&shifts, &dims))?)
    }

    #[pyo3(signature = (*sizes))]
    fn repeat(&self, py: Python<'_>, sizes: &Bound<'_, PyTuple>) -> Out {
        let sizes = int_list(sizes, "repeat", "repeats")?;
        let a = self.get();
        wrap(py, call(|| a.repeat(&sizes))?)
    }

    #[pyo3(signature = (*dims))]
    fn tile(&self, py: Python<'_>, dims: &Bound<'_, PyTuple>) -> Out {
        let dims = int_list(dims, "tile", "dims")?;
        wrap(py, call(|| self.get().tile(&dims))?)
    }

    #[pyo3(signature = (diagonal=0))]
    fn tril(&self, py: Python<'_>, diagonal: isize) -> Out {
        let a = self.get();
        wrap(py, call(|| a.tri(diagonal, false))?)
    }

    #[pyo3(signature = (diagonal=0))]
    fn triu(&self, py: Python<'_>, diagonal: isize) -> Out {
        let a = self.get();
        wrap(py, call(|| a.tri(diagonal, true))?)
    }

    #[pyo3(signature = (diagonal=0))]
    fn diag(&self, py: Python<'_>, diagonal: isize) -> Out {
        wrap(py, call(|| self.get().diag(diagonal))?)
    }

    /// Each last-dim vector laid on diagonal `offset` of dims `dim1` and `dim2` of a new tensor.
    #[pyo3(signature = (offset=0, dim1=-2, dim2=-1), text_signature = "($self, offset=0, dim1=-2, dim2=-1)")]
    fn diag_embed(&self, py: Python<'_>, offset: isize, dim1: isize, dim2: isize) -> Out {
        wrap(py, call(|| self.get().diag_embed(offset, dim1, dim2))?)
    }

    #[pyo3(signature = (offset=0))]
    fn diagflat(&self, py: Python<'_>, offset: isize) -> Out {
        wrap(py, call(|| self.get().diagflat(offset))?)
    }

    /// The elements at `index`'s row-major positions, shaped as `index`.
    fn take(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> Out {
        let (a, i) = (self.get(), index_tensor(index, "take", "index")?);
        wrap(py, call(|| a.take(&i))?)
    }

    fn index_select(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        index: &Bound<'_, PyAny>,
    ) -> Out {
        let (a, i) = (self.get(), index_tensor(index, "index_select", "index")?);
        wrap(py, call(|| a.index_select(dim, &i))?)
    }

    fn gather(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::args::dim_arg)] dim: isize,
        index: &Bound<'_, PyAny>,
    ) -> Out {
        let (a, i) = (self.get(), index_tensor(index, "gather", "index")?);
        wrap(py, call(|| a.gather(dim, &i))?)
    }

    #[pyo3(signature = (indices, dim=None))]
    fn take_along_dim(&self, py: Python<'_>, indices: &Bound<'_, PyAny>, dim: Option<isize>) -> Out {
        let (a, i) = (self.get(), index_tensor(indices, "take_along_dim", "indices")?);
        wrap(py, call(|| a.take_along_dim(&i, dim))?)
    }

    #[pyo3(signature = (dim, index, src=None, value=None, *, reduce=None))]
    fn scatter(
        &self,
        py: Python<'_>,
        dim: isize,
        index: &Bound<'_, PyAny>,
        src: Option<&Bound<'_, PyAny>>,
        value: Option<&Bound<'_, PyAny>>,
        reduce: Option<&str>,
    ) -> Out {
        let out = scatter_impl(&self.get(), dim, index, src, value, reduce)?;
        wrap(py, out)
    }

    fn scatter_add(&self, py: Python<'_>, dim: isize, index: &Bound<'_, PyAny>, src: &Bound<'_, PyAny>) -> Out {
        let (a, i, s) =
            (self.get(), index_tensor(index, "scatter_add", "index")?, tensor_arg(src, "scatter_add", "src")?);
        wrap(py, call(|| a.scatter(dim, &i, &s, true, false))?)
    }

    #[pyo3(signature = (dim, index, source, *, alpha=1.0))]
    fn index_add(
        &self,
        py: Python<'_>,
        dim: isize,
        index: &Bound<'_, PyAny>,
        source: &Bound<'_, PyAny>,
        alpha: f64,
    ) -> Out {
        let (a, i, s) =
            (self.get(), index_tensor(index, "index_add", "index")?, tensor_arg(source, "index_add", "source")?);
        wrap(py, call(|| a.index_add(dim, &i, &s, alpha))?)
    }

    fn masked_fill(&self, py: Python<'_>, mask: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> Out {
        let (a, m, v) =
            (self.get(), tensor_arg(mask, "masked_fill", "mask")?, operand_arg(value, "masked_fill", "value")?);
        wrap(py, call(|| a.masked_fill(&m, &v))?)
    }

    fn masked_select(&self, py: Python<'_>, mask: &Bound<'_, PyAny>) -> Out {
        let (a, m) = (self.get(), tensor_arg(mask, "masked_select", "mask")?);
        wrap(py, call(|| a.masked_select(&m))?)
    }

    /// Draws 0/1 with probability `p` (or each element's value when `p` is None).
    #[pyo3(signature = (p=None, *, generator=None))]
    fn bernoulli(&self, py: Python<'_>, p: Option<f64>, generator: Option<&Bound<'_, PyAny>>) -> Out {
        let gen = crate::generator::generator_arg(generator, "bernoulli")?;
        let a = self.get();
        // nodes while a capture runs: each replay draws anew from the same generator
        let out = match p {
            None => call(|| random::bernoulli_traced(&gen, &a))?,
            Some(p) => {
                let (shape, dtype) = (a.shape().to_vec(), a.dtype());
                call(|| compile::random_factory("bernoulli", move || random::bernoulli_with(&gen, &shape, dtype, p)))?
            }
        };
        wrap(py, out)
    }

    #[pyo3(signature = (num_samples, replacement=false, *, generator=None))]
    fn multinomial(
        slf: &Bound<'_, Self>,
        num_samples: i64,
        replacement: bool,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> Out {
        crate::random::_multinomial(slf.py(), slf.as_any(), num_samples, replacement, generator)
    }

    #[pyo3(signature = (*, as_tuple=false))]
    fn nonzero(&self, py: Python<'_>, as_tuple: bool) -> PyResult<Py<PyAny>> {
        let a = self.get();
        if !as_tuple {
            return Ok(wrap(py, call(|| a.nonzero())?)?.into_any());
        }
        Ok(nonzero_tuple(py, &a)?.into_any())
    }
}

/// `nonzero(as_tuple=True)` and `where(condition)`: each dim's indices, as torch's, views of the index list (their
/// `_base`); a 0-d tensor's one index list stands alone.
pub(crate) fn nonzero_tuple(py: Python<'_>, a: &Tensor) -> PyResult<Py<PyTuple>> {
    let cols: Vec<Py<PyTensor>> = if a.ndim() == 0 {
        call(|| a.nonzero_per_dim())?.into_iter().map(|t| wrap(py, t)).collect::<PyResult<_>>()?
    } else {
        let list = wrap(py, call(|| a.nonzero())?)?.into_bound(py);
        let whole = list.get().get();
        (0..a.ndim()).map(|d| super::view_of(&list, call(|| whole.select(1, d as isize))?)).collect::<PyResult<_>>()?
    };
    Ok(PyTuple::new(py, cols)?.unbind())
}
pub(super) fn scatter_impl(
    a: &Tensor,
    dim: isize,
    index: &Bound<'_, PyAny>,
    src: Option<&Bound<'_, PyAny>>,
    value: Option<&Bound<'_, PyAny>>,
    reduce: Option<&str>,
) -> PyResult<Tensor> {
    if reduce.is_some() {
        return Err(PyValueError::new_err(
            "scatter(): reduce= is not supported yet; use scatter_add or scatter_reduce",
        ));
    }
    let i = index_tensor(index, "scatter", "index")?;
    let src =
        src.or(value).ok_or_else(|| PyTypeError::new_err("scatter() missing required argument 'src' or 'value'"))?;
    if let Ok(t) = src.cast::<PyTensor>() {
        let s = t.get().get();
        return call(|| a.scatter(dim, &i, &s, false, false));
    }
    let v = operand_arg(src, "scatter", "value")?;
    call(|| a.scatter(dim, &i, &v, false, true))
}
