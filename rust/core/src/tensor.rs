//! The tensor: shared storage, a layout that reads it, and the autograd metadata that ties it to a graph.
use crate::autograd::{
    next_hook_id, CustomBackward, CustomFunctionBackward, Edge, GradMeta, Node, SavedTensor, TensorHook,
};
use crate::dtype::{DType, Priority, Scalar};
use crate::element::Element;
use crate::error::Result;
use crate::layout::{numel, Layout};
use crate::storage::{Buffer, Storage};
use crate::{bail, kernels, with_dtype};
use std::sync::Arc;

/// A cheap handle: clones share one immutable tensor record. Anything that "changes" a tensor (its
/// `requires_grad`, its `.data`) makes a new record; the Python object swaps which record it holds.
#[derive(Clone)]
pub struct Tensor(pub(crate) Arc<TensorImpl>);

pub struct TensorImpl {
    pub(crate) storage: Arc<Storage>,
    pub(crate) layout: Layout,
    pub(crate) dtype: DType,
    /// The node that made this tensor (non-leaves only).
    pub(crate) grad_fn: Option<Arc<Node>>,
    pub(crate) output_nr: u32,
    /// `.grad`, accumulator and hooks: leaves that require grad, and non-leaves that retain grad.
    pub(crate) meta: Option<Arc<GradMeta>>,
    /// `meta` is kept only for the leaf's `.grad`: the leaf does not require grad (switched off with a gradient in
    /// it, or given a `.grad` without requiring one), as torch keeps a `.grad` apart from `requires_grad`.
    pub(crate) grad_only: bool,
    /// A Python number turned into a 0-dim tensor: weakest in type promotion.
    pub(crate) wrapped_number: bool,
    /// Made by a view op from another tensor's storage (in-place writes to it need care).
    pub(crate) is_view: bool,
    /// Made under inference mode.
    pub(crate) is_inference: bool,
}

impl Tensor {
    // ---- construction ----

    pub(crate) fn from_parts(storage: Arc<Storage>, layout: Layout, dtype: DType) -> Tensor {
        let t = Tensor(Arc::new(TensorImpl {
            storage,
            layout,
            dtype,
            grad_fn: None,
            output_nr: 0,
            meta: None,
            grad_only: false,
            wrapped_number: false,
            is_view: false,
            is_inference: crate::autograd::grad_mode::is_inference(),
        }));
        crate::compile::note_made(&t);
        t
    }

    pub(crate) fn from_buffer(buffer: Buffer, shape: &[usize]) -> Tensor {
        debug_assert_eq!(buffer.len(), numel(shape));
        let dtype = buffer.dtype();
        Tensor::from_parts(Arc::new(Storage::new(buffer)), Layout::contiguous(shape), dtype)
    }

    pub fn from_vec<T: Element>(values: Vec<T>, shape: &[usize]) -> Result<Tensor> {
        if values.len() != numel(shape) {
            bail!(Runtime, "shape '{:?}' is invalid for input of size {}", shape, values.len());
        }
        Ok(Tensor::from_buffer(T::into_buffer(values), shape))
    }

    /// Wraps memory owned elsewhere (a numpy array) without copying.
    pub fn from_storage(storage: Arc<Storage>, layout: Layout) -> Result<Tensor> {
        if layout.storage_extent() > storage.len() {
            bail!(Runtime, "layout reaches past the end of its storage");
        }
        let dtype = storage.dtype();
        Ok(Tensor::from_parts(storage, layout, dtype))
    }

    /// A new tensor of `shape` holding `value`, or the error when the machine cannot hold it.
    pub fn try_full(shape: &[usize], value: Scalar, dtype: DType) -> Result<Tensor> {
        if dtype.is_complex() {
            return Tensor::complex_full(shape, value.to_f64(), 0.0, dtype);
        }
        let n = crate::alloc::check_new_shape(shape, dtype.itemsize())?;
        with_dtype!(dtype, T => {
            let v: T = match value {
                Scalar::Float(f) => T::from_f64(f),
                Scalar::Int(i) => T::from_i64(i),
                Scalar::Bool(b) => T::from_i64(b as i64),
            };
            // written by the threads: torch's `zeros` of 4 MB took half the time of one thread's fill; and in the
            // widest stores the CPU has (compiled for the baseline, the loop wrote 16 bytes a store: 37.5 µs for
            // 1000×1000 float32 zeros against torch's 24.8)
            let values = crate::kernels::simd::index_map_by(n, |out, _| crate::kernels::simd::dispatch!(fill(out, v)));
            Ok(Tensor::from_buffer(T::into_buffer(values), shape))
        })
    }

    /// `try_full` for shapes derived from existing tensors (see `pool::take` for an impossible one).
    pub fn full(shape: &[usize], value: Scalar, dtype: DType) -> Tensor {
        Tensor::try_full(shape, value, dtype).unwrap_or_else(|e| std::panic::resume_unwind(Box::new(e)))
    }

    pub fn zeros(shape: &[usize], dtype: DType) -> Tensor {
        Tensor::full(shape, Scalar::Int(0), dtype)
    }

    pub fn ones(shape: &[usize], dtype: DType) -> Tensor {
        Tensor::full(shape, Scalar::Int(1), dtype)
    }

    /// `arange`'s length and dtype, with torch's errors for bad bounds (a meta `arange` needs only these).
    pub fn arange_len(start: Scalar, end: Scalar, step: Scalar, dtype: Option<DType>) -> Result<(usize, DType)> {
        let any_float = [start, end, step].iter().any(|s| matches!(s, Scalar::Float(_)));
        let dtype = dtype.unwrap_or(if any_float { crate::dtype::default_float() } else { DType::I64 });
        if dtype.is_complex() {
            return Err(crate::dtype::complex_refusal(dtype));
        }
        let (s, e, st) = (start.to_f64(), end.to_f64(), step.to_f64());
        if st == 0.0 {
            bail!(Runtime, "step must be nonzero");
        }
        if (st > 0.0 && e < s) || (st < 0.0 && e > s) {
            bail!(Runtime, "upper bound and lower bound inconsistent with step sign");
        }
        // PyTorch's spelling of the values ("nan", not Rust's "NaN")
        let show = |v: f64| if v.is_nan() { "nan".to_string() } else { v.to_string() };
        if !st.is_finite() {
            bail!(Runtime, "step must be finite but got {}", show(st));
        }
        if !s.is_finite() || !e.is_finite() {
            bail!(Runtime, "unsupported range: {} -> {}", show(s), show(e));
        }
        let count = ((e - s) / st).ceil().max(0.0);
        if count >= isize::MAX as f64 {
            bail!(Runtime, "invalid size, possible overflow?");
        }
        Ok((count as usize, dtype))
    }

    /// `arange(start, end, step)`: int64 unless a bound or the step is a float (then the default dtype), or `dtype`.
    pub fn arange(start: Scalar, end: Scalar, step: Scalar, dtype: Option<DType>) -> Result<Tensor> {
        let (n, dtype) = Tensor::arange_len(start, end, step, dtype)?;
        let (s, st) = (start.to_f64(), step.to_f64());
        crate::alloc::check_new_shape(&[n], dtype.itemsize().max(8))?;
        // As torch's kernel: the length from the doubles, the values `start + step * i` in the dtype's
        // accumulate type (double for float32/64, float for the halves, int64 for the integers: a float
        // start and step are truncated first, so arange(-5.3, 2.1, 0.7, dtype=int64) is eleven -5s), in
        // torch's vector blocks (`float_range_blocks`) so that every value rounds as torch's does.
        match dtype {
            DType::F32 => {
                let round = |v: f64| v as f32 as f64;
                let at = |i: usize| st.mul_add(i as f64, s);
                let values = float_range_blocks(n, 8, at, |base, k| st.mul_add(k, round(base)), |v| v as f32);
                Tensor::from_vec(values, &[n])
            }
            DType::F64 => {
                let values =
                    float_range_blocks(n, 4, |i| st.mul_add(i as f64, s), |base, k| st.mul_add(k, base), |v| v);
                Tensor::from_vec(values, &[n])
            }
            DType::F16 | DType::BF16 => {
                let (s, st) = (s as f32, st as f32);
                let round = |v: f32| match dtype {
                    DType::F16 => half::f16::from_f32(v).to_f32(),
                    _ => half::bf16::from_f32(v).to_f32(),
                };
                let at = |i: usize| st.mul_add(i as f32, s);
                let values = float_range_blocks(n, 16, at, |base, k| st.mul_add(k, round(base)), |v| v);
                Tensor::from_vec(values, &[n])?.to_dtype(dtype)
            }
            _ => {
                let (s, st) = (start.to_i64_truncated(), step.to_i64_truncated());
                let values = crate::kernels::simd::index_map(n, |i| s.wrapping_add(st.wrapping_mul(i as i64)));
                Tensor::from_vec(values, &[n])?.to_dtype(dtype)
            }
        }
    }

    /// `linspace(start, end, steps)` in `dtype`, as torch's CPU kernel: the step in the dtype (float32 for
    /// float32), the first half `start + step·i` and the second `end - step·(steps - 1 - i)`, each one fused
    /// multiply-add rounded once, as torch's compiled kernel gives them. Other dtypes: those formulas in
    /// float64 (for an integer dtype from the bounds truncated), then converted.
    pub fn linspace(start: f64, end: f64, steps: usize, dtype: DType) -> Result<Tensor> {
        crate::alloc::check_new_shape(&[steps], dtype.itemsize().max(8))?;
        let half = steps / 2;
        if steps == 1 {
            return Tensor::from_vec(vec![start], &[1])?.to_dtype(dtype);
        }
        match dtype {
            DType::F32 => {
                let (s, e) = (start as f32, end as f32);
                let step = (e - s) / (steps - 1) as f32;
                let at = |i: usize| {
                    if i < half {
                        step.mul_add(i as f32, s)
                    } else {
                        (-step).mul_add((steps - 1 - i) as f32, e)
                    }
                };
                Tensor::from_vec((0..steps).map(at).collect(), &[steps])
            }
            _ => {
                // an integer dtype's bounds are integers first (linspace(-3.3, 17.9, dtype=int64) runs from -3 to 17)
                let (start, end) = if dtype.is_float() { (start, end) } else { (start.trunc(), end.trunc()) };
                let step = (end - start) / (steps - 1) as f64;
                let at = |i: usize| {
                    if i < half {
                        step.mul_add(i as f64, start)
                    } else {
                        (-step).mul_add((steps - 1 - i) as f64, end)
                    }
                };
                Tensor::from_vec((0..steps).map(at).collect::<Vec<f64>>(), &[steps])?.to_dtype(dtype)
            }
        }
    }

    /// A Python number as a 0-dim operand (`x + 2`), in the dtype it promotes with.
    pub fn wrapped_scalar(value: Scalar) -> Tensor {
        // a Python float keeps its full double, so float64 operands lose nothing
        let buffer = match value {
            Scalar::Float(f) => f64::into_buffer(vec![f]),
            Scalar::Int(i) => i64::into_buffer(vec![i]),
            Scalar::Bool(b) => bool::into_buffer(vec![b]),
        };
        let mut t = Tensor::from_buffer(buffer, &[]);
        Arc::get_mut(&mut t.0).expect("fresh tensor").wrapped_number = true;
        t
    }

    // ---- layout and data ----

    pub fn shape(&self) -> &[usize] {
        &self.0.layout.shape
    }
    pub fn strides(&self) -> &[usize] {
        &self.0.layout.strides
    }
    pub fn layout(&self) -> &Layout {
        &self.0.layout
    }
    pub fn storage(&self) -> &Arc<Storage> {
        &self.0.storage
    }
    pub fn storage_offset(&self) -> usize {
        self.0.layout.offset
    }
    pub fn dtype(&self) -> DType {
        self.0.dtype
    }
    pub fn ndim(&self) -> usize {
        self.0.layout.ndim()
    }
    pub fn numel(&self) -> usize {
        self.0.layout.numel()
    }
    pub fn is_contiguous(&self) -> bool {
        self.0.layout.is_contiguous()
    }
    pub fn version(&self) -> u64 {
        self.0.storage.version()
    }
    pub fn same_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.0.storage, &other.0.storage)
    }
    pub fn same_tensor(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The dtype that counts in promotion, and how strongly.
    pub(crate) fn promotion_key(&self) -> (DType, Priority) {
        if self.0.wrapped_number {
            // a Python float counts as the default dtype
            // (a Python complex as the default complex dtype)
            let dtype = match self.0.dtype {
                DType::F64 => crate::dtype::default_float(),
                DType::C128 => crate::dtype::default_float().to_complex(),
                d => d,
            };
            (dtype, Priority::Wrapped)
        } else if self.ndim() == 0 {
            (self.0.dtype, Priority::ZeroDim)
        } else {
            (self.0.dtype, Priority::Dimensioned)
        }
    }

    /// Runs `f` on this tensor's elements as `T`, casting into a temporary first when the dtype differs.
    pub(crate) fn with_data<T: Element, R>(&self, f: impl FnOnce(&Layout, &[T]) -> R) -> R {
        if self.0.dtype.is_complex() {
            // a complex tensor's storage holds (re, im) pairs: no element of it is a real number
            crate::dtype::refuse_complex(self.0.dtype);
        }
        let buf = self.0.storage.read();
        if let Some(d) = T::data(&buf) {
            return f(&self.0.layout, d.as_slice());
        }
        let cast = self.cast_to_vec::<T>(&buf);
        drop(buf);
        f(&Layout::contiguous(self.shape()), &cast)
    }

    /// The elements (in `buf`, this tensor's storage) converted to `T`, in row-major order. Kept apart
    /// from `with_data` (generic over `T` only): inside it, the ten-way dtype match was compiled once
    /// per caller's closure, which made ~5,000 copies of the strided map and most of the build time.
    fn cast_to_vec<T: Element>(&self, buf: &Buffer) -> Vec<T> {
        with_dtype!(self.0.dtype, S => {
            let s = S::data(buf).expect("storage dtype").as_slice();
            kernels::cast::convert(&self.0.layout, s)
                .unwrap_or_else(|| kernels::elementwise::map1(&self.0.layout, s, |v: S| v.cast::<T>()))
        })
    }

    /// These values in `dtype`, with no history (self when the dtype already matches): kernels that
    /// compute in a wider dtype (`DType::compute`) round or wrap their results back with it.
    pub(crate) fn cast_detached(&self, dtype: DType) -> Tensor {
        if dtype == self.dtype() {
            return self.clone();
        }
        with_dtype!(dtype, T => Tensor::from_buffer(T::into_buffer(self.to_vec::<T>()), self.shape()))
    }

    /// All elements in row-major order, converted to `T`.
    pub fn to_vec<T: Element>(&self) -> Vec<T> {
        if self.0.dtype.is_complex() {
            crate::dtype::refuse_complex(self.0.dtype);
        }
        let buf = self.0.storage.read();
        match T::data(&buf) {
            Some(d) => kernels::elementwise::dense_copy(&self.0.layout, d.as_slice()),
            // already a new row-major vector: not copied a second time
            None => self.cast_to_vec::<T>(&buf),
        }
    }

    /// The single element of a one-element tensor.
    pub fn item(&self) -> Result<Scalar> {
        if self.numel() != 1 {
            bail!(Runtime, "a Tensor with {} elements cannot be converted to Scalar", self.numel());
        }
        if self.is_meta() {
            bail!(Runtime, "Tensor.item() cannot be called on meta tensors");
        }
        Ok(match self.dtype() {
            DType::Bool => Scalar::Bool(self.to_vec::<bool>()[0]),
            d if d.is_int() => Scalar::Int(self.to_vec::<i64>()[0]),
            _ => Scalar::Float(self.to_vec::<f64>()[0]),
        })
    }

    // ---- autograd metadata ----

    pub fn requires_grad(&self) -> bool {
        self.0.grad_fn.is_some() || (self.0.meta.is_some() && !self.0.grad_only)
    }
    pub fn is_leaf(&self) -> bool {
        self.0.grad_fn.is_none()
    }
    pub fn grad_fn(&self) -> Option<&Arc<Node>> {
        self.0.grad_fn.as_ref()
    }
    pub fn output_nr(&self) -> u32 {
        self.0.output_nr
    }
    /// `.grad`, accumulator and hooks (leaves that require grad, non-leaves that retain grad).
    pub fn grad_meta(&self) -> Option<&Arc<GradMeta>> {
        self.0.meta.as_ref()
    }
    /// Made by a view op from another tensor's storage.
    pub fn is_view(&self) -> bool {
        self.0.is_view
    }

    /// The same data with no history: shares storage (and so the version counter).
    pub fn detach(&self) -> Tensor {
        Tensor::from_parts(self.0.storage.clone(), self.0.layout.clone(), self.0.dtype)
    }

    /// This leaf with `requires_grad` switched; errors follow PyTorch.
    pub fn with_requires_grad(&self, requires_grad: bool) -> Result<Tensor> {
        if !self.is_leaf() {
            if requires_grad {
                return Ok(self.clone());
            }
            bail!(
                Runtime,
                "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in \
                    a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
            );
        }
        if requires_grad && !(self.dtype().is_float() || self.is_complex()) {
            bail!(Runtime, "Only Tensors of floating point and complex dtype can require gradients");
        }
        if requires_grad == self.requires_grad() {
            return Ok(self.clone());
        }
        // a gradient already in `.grad` stays there either way, as in torch
        let kept = self.0.meta.clone().filter(|m| m.grad.lock().is_some());
        let mut imp = self.detach();
        let inner = Arc::get_mut(&mut imp.0).expect("fresh tensor");
        inner.meta = if requires_grad { Some(kept.unwrap_or_default()) } else { kept };
        inner.grad_only = !requires_grad && inner.meta.is_some();
        Ok(imp)
    }

    /// This leaf with `.grad` set to `grad` when it does not require grad: torch keeps a `.grad` on any leaf.
    pub fn with_grad_only(&self, grad: Tensor) -> Result<Tensor> {
        if !self.is_leaf() {
            bail!(Runtime, "cannot set .grad of a tensor that does not require grad");
        }
        let mut imp = self.detach();
        let inner = Arc::get_mut(&mut imp.0).expect("fresh tensor");
        inner.meta = Some(Arc::default());
        inner.grad_only = true;
        imp.set_grad(Some(grad))?;
        Ok(imp)
    }

    /// The same autograd identity (grad_fn, leaf `.grad`) over other data: PyTorch's `x.data = y`.
    pub fn with_data_of(&self, data: &Tensor) -> Result<Tensor> {
        if self.requires_grad() && !(data.dtype().is_float() || data.is_complex()) {
            bail!(Runtime, "data set to a tensor that requires gradients must be floating point or complex dtype");
        }
        let t = Tensor(Arc::new(TensorImpl {
            storage: data.0.storage.clone(),
            layout: data.0.layout.clone(),
            dtype: data.0.dtype,
            grad_fn: self.0.grad_fn.clone(),
            output_nr: self.0.output_nr,
            meta: self.0.meta.clone(),
            grad_only: self.0.grad_only,
            wrapped_number: false,
            is_view: data.0.is_view,
            is_inference: data.0.is_inference,
        }));
        crate::compile::note_made(&t);
        Ok(t)
    }

    /// A leaf's accumulated gradient.
    pub fn grad(&self) -> Option<Tensor> {
        self.0.meta.as_ref().and_then(|m| m.grad.lock().clone())
    }

    pub fn set_grad(&self, grad: Option<Tensor>) -> Result<()> {
        if let Some(g) = &grad {
            if g.shape() != self.shape() {
                bail!(
                    Runtime,
                    "attempting to assign a gradient of size '{:?}' to a tensor of size '{:?}'. Please ensure that the \
                    gradient and the tensor are the same size",
                    g.shape(),
                    self.shape()
                );
            }
            if g.dtype() != self.dtype() {
                bail!(
                    Runtime,
                    "attempting to assign a gradient with dtype '{}' to a tensor with grad_dtype '{}'. The gradient \
                    must match the tensor's grad_dtype (defaults to the tensor's dtype).",
                    g.dtype().cpp_name(),
                    self.dtype().scalar_type_name()
                );
            }
        }
        match &self.0.meta {
            Some(m) => *m.grad.lock() = grad,
            None if grad.is_none() => {}
            None => bail!(Runtime, "cannot set .grad of a tensor that does not require grad"),
        }
        Ok(())
    }

    /// Registers `hook` on this tensor's gradient; returns the id to remove it with.
    pub fn register_hook(&self, hook: TensorHook) -> Result<u64> {
        if let Some(node) = &self.0.grad_fn {
            return Ok(node.add_tensor_hook(self.0.output_nr, hook));
        }
        match &self.0.meta {
            Some(meta) if !self.0.grad_only => {
                let id = next_hook_id();
                meta.hooks.lock().push((id, hook));
                Ok(id)
            }
            _ => bail!(Runtime, "cannot register a hook on a tensor that doesn't require gradient"),
        }
    }

    /// `register_post_accumulate_grad_hook`: `hook` runs each time this leaf's `.grad` takes a new sum.
    pub fn register_post_accumulate_hook(&self, hook: crate::autograd::PostAccumulateHook) -> Result<u64> {
        match &self.0.meta {
            _ if !self.requires_grad() => {
                bail!(Runtime, "cannot register a hook on a tensor that doesn't require gradient")
            }
            Some(meta) if self.is_leaf() => Ok(meta.add_post_accumulate_hook(hook)),
            _ => bail!(Runtime, "post accumulate grad hooks cannot be registered on non-leaf tensors"),
        }
    }

    pub fn remove_hook(&self, id: u64) -> bool {
        let in_meta = self.0.meta.as_ref().is_some_and(|m| {
            let mut hooks = m.hooks.lock();
            let before = hooks.len();
            hooks.retain(|h| h.0 != id);
            let mut post = m.post_accumulate_hooks.lock();
            let before_post = post.len();
            post.retain(|h| h.0 != id);
            before != hooks.len() || before_post != post.len()
        });
        in_meta || self.0.grad_fn.as_ref().is_some_and(|n| n.remove_hook(id))
    }

    /// `retain_grad()`: a non-leaf keeps its gradient in `.grad` from now on (a no-op for leaves).
    pub fn retain_grad(&self) -> Result<Tensor> {
        let Some(node) = &self.0.grad_fn else {
            if !self.requires_grad() {
                bail!(Runtime, "can't retain_grad on Tensor that has requires_grad=False");
            }
            return Ok(self.clone());
        };
        if self.0.meta.is_some() {
            return Ok(self.clone());
        }
        let meta = Arc::new(GradMeta::default());
        let slot = Arc::downgrade(&meta);
        node.add_tensor_hook(
            self.0.output_nr,
            Arc::new(move |g: &Tensor| {
                if let Some(meta) = slot.upgrade() {
                    crate::autograd::accumulate_grad(&meta, g.clone(), crate::autograd::grad_mode::is_enabled())?;
                }
                Ok(None)
            }),
        );
        let mut t = self.detach();
        let inner = Arc::get_mut(&mut t.0).expect("fresh tensor");
        inner.grad_fn = self.0.grad_fn.clone();
        inner.output_nr = self.0.output_nr;
        inner.meta = Some(meta);
        inner.is_view = self.0.is_view;
        Ok(t)
    }

    pub fn is_inference(&self) -> bool {
        self.0.is_inference
    }

    pub fn retains_grad(&self) -> bool {
        !self.is_leaf() && self.0.meta.is_some()
    }

    /// Outputs of a custom function, all made by one node that calls `function`'s backward.
    pub fn attach_custom(
        outputs: Vec<Tensor>,
        inputs: &[&Tensor],
        function: Arc<dyn CustomBackward>,
        saved: Vec<SavedTensor>,
    ) -> Vec<Tensor> {
        crate::autograd::record_outputs(outputs, inputs, CustomFunctionBackward::new(function, saved))
    }

    /// Where a gradient for this tensor goes: its grad_fn, or its leaf accumulator.
    pub(crate) fn gradient_edge(&self) -> Option<Edge> {
        if let Some(node) = &self.0.grad_fn {
            return Some(Edge::new(node.clone(), self.0.output_nr, self));
        }
        let meta = self.0.meta.as_ref().filter(|_| !self.0.grad_only)?;
        Some(Edge::new(meta.accumulator(meta), 0, self))
    }

    /// This data as output `0` of `node`.
    pub(crate) fn with_grad_fn(self, node: Arc<Node>) -> Tensor {
        self.with_grad_fn_nr(node, 0)
    }

    /// This data as output `output_nr` of `node`.
    pub(crate) fn with_grad_fn_nr(self, node: Arc<Node>, output_nr: u32) -> Tensor {
        let mut t = self;
        if Arc::get_mut(&mut t.0).is_none() {
            t = t.detach();
        }
        let inner = Arc::get_mut(&mut t.0).expect("a fresh record is unique");
        inner.grad_fn = Some(node);
        inner.output_nr = output_nr;
        inner.meta = None;
        t
    }
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tensor({:?}, shape={:?}, dtype={})", self.to_vec::<f64>(), self.shape(), self.dtype())
    }
}

/// The values of a float range as torch's CPU kernels write them (`arange`), `store(value)` each: torch splits the
/// range into one piece a thread (pieces of at least 32768 values); in each piece, runs of `lanes` values (one
/// 256-bit vector of the dtype, a power of two), two runs a loop, each run counting on from its first value,
/// `lane(first, k)`, and the values past the piece's last pair of runs one by one, `at(i)`. So a value's rounding
/// depends on its place in a run, as torch's does: one rounding of `start + step·i` differs from torch in a fifth
/// of float32 `arange(-5, 5, 0.1)`. Each value is computed from its index alone, so the runs vectorize and the
/// pieces thread (a run at a time pushed to a vector made `arange(1e6)` 3.6 ms, torch 0.25).
pub(crate) fn float_range_blocks<T, U>(
    n: usize,
    lanes: usize,
    at: impl Fn(usize) -> T + Sync,
    lane: impl Fn(T, T) -> T + Sync,
    store: impl Fn(T) -> U + Sync,
) -> Vec<U>
where
    T: Copy + From<u8>,
    U: Send + 'static,
{
    const GRAIN: usize = 32768; // at::internal::GRAIN_SIZE
    debug_assert!(lanes.is_power_of_two() && lanes <= 128);
    let piece = n.div_ceil(crate::kernels::threads::threads().max(1)).max(GRAIN);
    crate::kernels::simd::index_map_by(n, |out, first| {
        let end = first + out.len();
        let mut i = first;
        while i < end {
            let begin = i / piece * piece;
            let piece_end = (begin + piece).min(n);
            let blocks_end = (begin + (piece_end - begin) / (2 * lanes) * (2 * lanes)).clamp(i, end);
            let in_block = |j: usize| {
                let k = (j - begin) & (lanes - 1);
                store(lane(at(j - k), T::from(k as u8)))
            };
            crate::kernels::simd::index_into(&mut out[i - first..blocks_end - first], i, &in_block);
            let stop = piece_end.min(end);
            crate::kernels::simd::index_into(&mut out[blocks_end - first..stop - first], blocks_end, &|j| store(at(j)));
            i = stop;
        }
    })
}

/// `value` into every slot of `out`.
#[inline(always)]
fn fill<T: Copy>(out: &mut [std::mem::MaybeUninit<T>], value: T) {
    out.iter_mut().for_each(|o| _ = o.write(value));
}
