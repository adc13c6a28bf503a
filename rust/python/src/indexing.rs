//! Basic indexing: ints, slices with steps, None and `...`, read and written.
use crate::args::{operand, type_name};
use crate::errors::call;
use crate::py_tensor::PyTensor;
use ferrograd_core::autograd::grad_mode::GradModeGuard;
use ferrograd_core::index::IndexPutBackward0;
use ferrograd_core::index_write::IndexFillBackward0;
use ferrograd_core::{Layout, Tensor};
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyEllipsis, PyInt, PyList, PyNone, PyRange, PySlice, PySliceMethods, PyTuple};

enum Item<'py> {
    Int(isize),
    Slice(Bound<'py, PyAny>),
    NewAxis,
    Ellipsis,
    /// An integer tensor (or list): advanced indexing of one dim.
    Adv(Tensor),
    /// A bool tensor: advanced indexing of as many dims as it has.
    Mask(Tensor),
    /// A Python bool or 0-dim bool tensor: as torch, a new dim of size 1 indexed by `[0]` (true) or by
    /// nothing (false), so the result is a copy with that dim of size 1 or 0.
    Bool(bool),
}

impl Item<'_> {
    /// How many dims of the indexed tensor this item uses up.
    fn consumes(&self) -> usize {
        match self {
            Item::Int(_) | Item::Slice(_) | Item::Adv(_) => 1,
            Item::Mask(m) => m.ndim(),
            Item::NewAxis | Item::Ellipsis | Item::Bool(_) => 0,
        }
    }
}

fn index_item<'py>(py: Python<'py>, t: Tensor) -> PyResult<Item<'py>> {
    use ferrograd_core::DType;
    match t.dtype() {
        DType::I64 if t.ndim() == 0 => Ok(Item::Int(call(|| t.item())?.to_f64() as isize)),
        DType::I64 => Ok(Item::Adv(t)),
        // an int32 index is a long one (torch takes both; a numpy int32 array is one)
        DType::I32 => index_item(py, call(|| t.to_dtype(DType::I64))?),
        DType::Bool if t.ndim() > 0 => Ok(Item::Mask(t)),
        DType::Bool => Ok(Item::Bool(call(|| t.item())?.to_f64() != 0.0)),
        DType::U8 => {
            // the pre-bool masks: still read as a mask, with torch's warning
            let category = py.import("builtins")?.getattr("UserWarning")?;
            py.import("warnings")?.call_method1(
                "warn",
                (
                    "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                    category,
                    1,
                ),
            )?;
            index_item(py, call(|| t.to_dtype(DType::Bool))?)
        }
        _ => Err(PyIndexError::new_err("tensors used as indices must be long, int, byte or bool tensors")),
    }
}

/// A sequence used as an index, as a tensor: a mask if its values are bools (or bytes), else long indices, so
/// that float values are truncated as torch's `indexing_tensor_from_data` does (`x[[1.5]]` is `x[[1]]`).
fn sequence_index(sequence: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    use ferrograd_core::DType;
    let t = crate::convert::tensor_from_data(sequence, None)?;
    // Python's values: a compiled graph reads them as they were at capture, as a Python int index
    ferrograd_core::compile::note_literal(&t);
    match t.dtype() {
        DType::Bool | DType::U8 | DType::I64 => Ok(t),
        _ => call(|| t.to_dtype(DType::I64)),
    }
}

/// torch (still) reads a short list holding a sequence, tensor, slice, `...` or None as a tuple of indices,
/// warning that this is deprecated: `x[[[0, 1], [3, 3]]]` is `x[[0, 1], [3, 3]]`.
fn list_read_as_tuple(key: &Bound<'_, PyAny>) -> PyResult<bool> {
    const LONGEST: usize = 32;
    let Ok(list) = key.cast::<PyList>() else { return Ok(false) };
    if list.len() >= LONGEST {
        return Ok(false);
    }
    let tuple_like = list.iter().any(|it| {
        it.is_instance_of::<PyList>()
            || it.is_instance_of::<PyTuple>()
            || it.is_instance_of::<PySlice>()
            || it.is_instance_of::<PyEllipsis>()
            || it.is_instance_of::<PyNone>()
            || it.cast::<PyTensor>().is_ok()
    });
    if tuple_like {
        let py = key.py();
        let category = py.import("builtins")?.getattr("UserWarning")?;
        py.import("warnings")?.call_method1(
            "warn",
            (
                "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in \
                pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor \
                index, x[torch.tensor(seq)], which will result either in an error or a different result",
                category,
                2,
            ),
        )?;
    }
    Ok(tuple_like)
}

fn parse_items<'py>(key: &Bound<'py, PyAny>) -> PyResult<Vec<Item<'py>>> {
    let items: Vec<Bound<'py, PyAny>> = if key.is_instance_of::<PyTuple>() || list_read_as_tuple(key)? {
        key.try_iter()?.collect::<PyResult<_>>()?
    } else {
        vec![key.clone()]
    };
    items
        .iter()
        .map(|it| {
            if it.is_instance_of::<PyNone>() {
                Ok(Item::NewAxis)
            } else if it.is_instance_of::<PyEllipsis>() {
                Ok(Item::Ellipsis)
            } else if it.is_instance_of::<PySlice>() {
                // kept as a Python slice: `indices()` needs the dim's length
                Ok(Item::Slice(it.clone()))
            } else if it.is_instance_of::<PyBool>() {
                Ok(Item::Bool(it.extract::<bool>()?))
            } else if it.is_instance_of::<PyInt>() {
                Ok(Item::Int(it.extract::<isize>()?))
            } else if let Ok(t) = it.cast::<PyTensor>() {
                index_item(it.py(), t.get().get())
            } else if it.is_instance_of::<PyList>() || it.is_instance_of::<PyTuple>() {
                let t = sequence_index(it)?;
                if t.ndim() == 0 {
                    return Ok(Item::Adv(call(|| t.reshape(&[1]))?));
                }
                index_item(it.py(), t)
            } else if let Ok(i) = it.call_method0("__index__") {
                Ok(Item::Int(i.extract::<isize>()?))
            } else if it.is_instance_of::<PyRange>() || it.hasattr(intern!(it.py(), "__array__"))? {
                // a `range` or a numpy array is a sequence of indices, as a list is (torch reads any sequence)
                index_item(it.py(), sequence_index(it)?)
            } else {
                Err(PyIndexError::new_err(format!(
                    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices \
                        (got {})",
                    type_name(it)
                )))
            }
        })
        .collect()
}

/// What basic indexing walks: a tensor (making views) or a bare layout (computing where they read).
trait Indexable: Sized {
    fn shape(&self) -> &[usize];
    fn select(&self, dim: usize, index: isize) -> PyResult<Self>;
    fn slice(&self, dim: usize, start: usize, stop: usize, step: usize) -> PyResult<Self>;
    fn unsqueeze(&self, dim: usize) -> PyResult<Self>;
}

impl Indexable for Tensor {
    fn shape(&self) -> &[usize] {
        Tensor::shape(self)
    }
    fn select(&self, dim: usize, index: isize) -> PyResult<Self> {
        call(|| Tensor::select(self, dim as isize, index))
    }
    fn slice(&self, dim: usize, start: usize, stop: usize, step: usize) -> PyResult<Self> {
        call(|| Tensor::slice(self, dim, start, stop, step))
    }
    fn unsqueeze(&self, dim: usize) -> PyResult<Self> {
        call(|| Tensor::unsqueeze(self, dim as isize))
    }
}

impl Indexable for Layout {
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn select(&self, dim: usize, index: isize) -> PyResult<Self> {
        let size = self.shape[dim] as isize;
        if index < -size || index >= size {
            return Err(PyIndexError::new_err(format!(
                "index {index} is out of bounds for dimension {dim} with size {size}"
            )));
        }
        Ok(Layout::select(self, dim, if index < 0 { index + size } else { index } as usize))
    }
    fn slice(&self, dim: usize, start: usize, stop: usize, step: usize) -> PyResult<Self> {
        Ok(Layout::slice(self, dim, start, stop, step))
    }
    fn unsqueeze(&self, dim: usize) -> PyResult<Self> {
        Ok(Layout::unsqueeze(self, dim))
    }
}

fn index_items<T: Indexable + Clone>(t: &T, items: &[Item<'_>]) -> PyResult<T> {
    let ndim = t.shape().len();
    let consuming: usize = items.iter().map(Item::consumes).sum();
    if items.iter().filter(|i| matches!(i, Item::Ellipsis)).count() > 1 {
        return Err(PyIndexError::new_err("an index can only have a single ellipsis ('...')"));
    }
    if ndim == 0 && items.iter().any(|i| matches!(i, Item::Int(_))) {
        return Err(PyIndexError::new_err(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or \
            `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number",
        ));
    }
    if consuming > ndim {
        return Err(PyIndexError::new_err(format!("too many indices for tensor of dimension {ndim}")));
    }
    let mut out = t.clone();
    let mut dim = 0usize;
    for item in items {
        match item {
            Item::NewAxis | Item::Bool(_) => {
                out = out.unsqueeze(dim)?;
                dim += 1;
            }
            Item::Ellipsis => dim += ndim - consuming,
            Item::Int(i) => out = out.select(dim, *i)?,
            // advanced indices are applied afterwards, over the dims they keep here
            Item::Adv(_) => dim += 1,
            Item::Mask(m) => dim += m.ndim(),
            Item::Slice(s) => {
                let s = s.cast::<PySlice>()?;
                let len = out.shape()[dim];
                let ind = s.indices(len as isize)?;
                if ind.step <= 0 {
                    return Err(PyValueError::new_err("step must be greater than zero"));
                }
                let start = ind.start.clamp(0, len as isize) as usize;
                let stop = (ind.stop.clamp(0, len as isize) as usize).max(start);
                out = out.slice(dim, start, stop, ind.step as usize)?;
                dim += 1;
            }
        }
    }
    Ok(out)
}

fn has_advanced(items: &[Item<'_>]) -> bool {
    items.iter().any(|i| matches!(i, Item::Adv(_) | Item::Mask(_) | Item::Bool(_)))
}

/// For a key with advanced indices: the flat positions (into `shape`'s contiguous order) it selects,
/// and the result's shape.
fn advanced(shape: &[usize], items: &[Item<'_>]) -> PyResult<(ferrograd_core::index::Positions, Vec<usize>)> {
    let (geom, adv) = advanced_key(shape, items)?;
    call(|| Tensor::advanced_positions(&geom, &adv))
}

/// An advanced key as the core reads it: the region its basic items leave of a contiguous tensor of `shape`,
/// and each index tensor with the dim of that region it picks along (a mask as one index tensor a dim).
fn advanced_key(shape: &[usize], items: &[Item<'_>]) -> PyResult<(Layout, Vec<(usize, Tensor)>)> {
    let geom = index_items(&Layout::contiguous(shape), items)?;
    // where each item's dims land in `geom`
    let ndim = shape.len();
    let consuming: usize = items.iter().map(Item::consumes).sum();
    let (mut gdim, mut tdim) = (0usize, 0usize);
    let mut adv: Vec<(usize, Tensor)> = Vec::new();
    for item in items {
        match item {
            Item::NewAxis | Item::Slice(_) => {
                gdim += 1;
                tdim += usize::from(matches!(item, Item::Slice(_)));
            }
            Item::Ellipsis => {
                gdim += ndim - consuming;
                tdim += ndim - consuming;
            }
            Item::Int(_) => tdim += 1,
            Item::Bool(keep) => {
                let index: Vec<i64> = if *keep { vec![0] } else { vec![] };
                let len = index.len();
                let index = call(|| Tensor::from_vec(index, &[len]))?;
                ferrograd_core::compile::note_literal(&index);
                adv.push((gdim, index));
                gdim += 1;
            }
            Item::Adv(t) => {
                adv.push((gdim, t.clone()));
                gdim += 1;
                tdim += 1;
            }
            Item::Mask(m) => {
                let k = m.ndim();
                for j in 0..k {
                    if m.shape()[j] != shape[tdim + j] {
                        return Err(PyIndexError::new_err(format!(
                            "The shape of the mask {:?} at index {j} does not match the shape of the indexed tensor \
                                {:?} at index {}",
                            m.shape(),
                            shape,
                            tdim + j
                        )));
                    }
                }
                ferrograd_core::compile::unsupported("indexing with a boolean mask (a data-dependent shape)");
                let nz = call(|| m.nonzero())?;
                for j in 0..k {
                    adv.push((gdim + j, call(|| nz.select(1, j as isize)?.contiguous_copy())?));
                }
                gdim += k;
                tdim += k;
            }
        }
    }
    Ok((geom, adv))
}

/// `t[key]`: a view (recording Select/Slice/Unsqueeze nodes like PyTorch) for basic keys; a copy
/// (IndexBackward0) for keys with integer tensors, lists or masks.
pub fn apply_index(t: &Tensor, key: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let items = parse_items(key)?;
    if let [Item::Mask(mask)] = items.as_slice() {
        if t.numel() > 0 && !t.is_complex() && mask.ndim() <= t.ndim() {
            ferrograd_core::compile::unsupported("indexing with a boolean mask (a data-dependent shape)");
            return call(|| t.index_mask(mask));
        }
    }
    if has_advanced(&items) {
        let (region, indices) = advanced_key(t.shape(), &items)?;
        return call(|| t.index_advanced(&region, &indices));
    }
    let mut out = index_items(t, &items)?;
    if items.is_empty() || (items.len() == 1 && matches!(items[0], Item::Ellipsis)) {
        // `t[()]` and `t[...]` are views of the whole tensor
        out = call(|| out.reshape(t.shape()))?;
    }
    Ok(out)
}

/// Whether PyTorch writes a number at this key with index_fill: one integer index tensor, every other
/// item `...` or a slice of a whole dim (which PyTorch does not turn into a view).
fn is_index_fill(items: &[Item<'_>]) -> PyResult<bool> {
    let mut tensors = 0;
    for item in items {
        match item {
            Item::Adv(t) if t.ndim() >= 1 => tensors += 1,
            Item::Ellipsis => {}
            Item::Slice(s) => {
                for part in ["start", "stop", "step"] {
                    if !s.getattr(part)?.is_none() {
                        return Ok(false);
                    }
                }
            }
            _ => return Ok(false),
        }
    }
    Ok(tensors == 1)
}

/// The dim and index tensor of an index-fill key (`is_index_fill`): the one index tensor's item, counted past
/// an ellipsis's dims.
fn index_fill_dim(items: &[Item<'_>], ndim: usize) -> Option<(usize, Tensor)> {
    let mut dim = 0;
    for item in items {
        match item {
            Item::Adv(t) => return Some((dim, t.clone())),
            Item::Ellipsis => dim += (ndim + 1).saturating_sub(items.len()),
            _ => dim += 1,
        }
    }
    None
}

/// The index tensors of an advanced key, in order (torch's `_saved_indices`, without its Nones).
fn advanced_tensors(items: &[Item<'_>]) -> Vec<Tensor> {
    items.iter().filter_map(|item| if let Item::Adv(t) = item { Some(t.clone()) } else { None }).collect()
}

/// `t[key] = value`, written in place. On a tensor in a graph (or with a value that requires grad) the
/// write is differentiable: the tensor takes a CopySlices history.
pub fn assign_index(target: &Bound<'_, PyTensor>, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
    let t = target.get().get();
    let src = match operand(value) {
        Some(v) => v,
        None => crate::convert::tensor_from_data(value, Some(t.dtype())).map_err(|_| {
            PyTypeError::new_err(format!("can't assign a {} to a {}", type_name(value), t.dtype().legacy_name()))
        })?,
    };
    // as PyTorch (slicePrefix1sDims): the value's leading size-1 dims are dropped before it is broadcast, so a
    // [1] tensor can be written at an int index
    let ones = src.shape().iter().take_while(|&&d| d == 1).count();
    let src = if ones > 0 { call(|| src.reshape(&src.shape()[ones..]))? } else { src };
    let recording = ferrograd_core::autograd::grad_mode::is_enabled() && (t.requires_grad() || src.requires_grad());
    let items = parse_items(key)?;
    if has_advanced(&items) {
        // a Python number is filled in, as in PyTorch: masked_fill for a whole-tensor mask, index_fill for
        // one index tensor among whole-dim slices; anything else (a tensor value too) is index_put
        let number = value.cast::<PyTensor>().is_err();
        let fill_mask = match items.as_slice() {
            [Item::Mask(m)] if m.shape() == t.shape() && number => Some(m.clone()),
            _ => None,
        };
        let index_fill = if number && is_index_fill(&items)? { index_fill_dim(&items, t.ndim()) } else { None };
        let (pos, shape) = advanced(t.shape(), &items)?;
        let put = |old: &Tensor| match (&fill_mask, &index_fill) {
            (Some(m), _) => old.masked_fill(m, &src),
            (None, Some((dim, index))) => {
                old.put_flat(pos.clone(), &src.expand(&shape)?, false, IndexFillBackward0::node(*dim, index))
            }
            (None, None) => {
                let indices: Vec<Tensor> = advanced_tensors(&items);
                old.put_flat(pos.clone(), &src.expand(&shape)?, false, IndexPutBackward0::node(false, &indices))
            }
        };
        if !recording {
            let _no_grad = GradModeGuard::new(false);
            let new = call(|| put(&t))?;
            return call(|| t.copy_from(&new));
        }
        if t.is_leaf() && t.requires_grad() {
            return Err(PyRuntimeError::new_err(
                "a leaf Variable that requires grad is being used in an in-place operation.",
            ));
        }
        return crate::py_tensor::inplace_with(target, src.requires_grad(), put).map(|_| ());
    }
    if !recording {
        let _no_grad = GradModeGuard::new(false);
        let view = apply_index(&t, key)?;
        return call(|| view.copy_from(&src));
    }
    if t.is_leaf() && t.requires_grad() {
        return Err(PyRuntimeError::new_err(
            "a view of a leaf Variable that requires grad is being used in an in-place operation.",
        ));
    }
    let geom = index_items(&Layout::contiguous(t.shape()), &items)?;
    crate::py_tensor::inplace_with(target, src.requires_grad(), |old| old.copy_slices(&geom, &src)).map(|_| ())
}
