//! Fusion without a second implementation: a chain of elementwise nodes that carry slice kernels (the
//! very functions eager's contiguous paths call, `kernel.rs`) runs chunk by chunk: each worker walks its
//! share of the elements `CHUNK` at a time, each node's kernel writing into one of a few scratch buffers
//! reused for every chunk, so the chain's intermediates never leave L1/L2 and no tensor, autograd record
//! or allocation is made per chunk. A chain closed by a full sum/amax/amin reduces each chunk with the
//! reduction's run kernel and combines the chunks' results in chunk order (`combine`); a chain without
//! one writes its last node straight into the one output buffer.
//!
//! A group is chosen when the graph is built (its shapes and dtypes are the capture's, which guards
//! keep); whether it runs fused is decided per call: every operand it reads from outside must be
//! contiguous, of the chain's shape and dtype, and need no gradient, else the replay runs its nodes one
//! by one (so autograd records eager's rules wherever a gradient is wanted).
use super::ir::{Node, Operand};
use super::kernel::{Elementwise, Reduction, SliceKernel};
use crate::autograd::grad_mode;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::kernels::threads::{par_chunks_mut, threads};
use crate::layout::numel;
use crate::ops::extreme::{better, extreme_run};
use crate::tensor::Tensor;
use chain_grad::{ChainBackward, Fusable};
use parking_lot::Mutex;
use reads::{pattern, Chunks};
use std::mem::MaybeUninit;
use std::sync::Arc;

mod chain_grad;
mod epilogue;
mod reads;
mod rows;

pub(crate) use chain_grad::run_recorded;
pub(crate) use epilogue::ProductEpilogue;
#[cfg(test)]
pub(crate) use epilogue::EPILOGUE_RUNS;
pub(crate) use rows::RowGroup;
#[cfg(test)]
pub(crate) use rows::FUSED_RUNS;

/// Elements per chunk: 2 K float32 is 8 KiB a buffer, so a chain's live buffers and the chunks it reads
/// stay in a 32 KiB L1 (1e6-element chain, one thread: 1 K 0.380 ms, 2 K 0.378, 4 K 0.432, 8 K 0.496).
const CHUNK: usize = 1 << 11;
/// Below this many elements a chain is replayed node by node (fusing would only add its setup cost).
const MIN_FUSED_ELEMENTS: usize = 8 * CHUNK;
/// Below this many elements a fused chain runs on the calling thread (eager's elementwise threshold).
const PARALLEL_ABOVE: usize = crate::kernels::split::ELEMENTWISE_ELEMENTS;

/// Which of a chain's outside operands want a gradient, and the backward captured for them (None: not capturable).
pub(super) type CapturedBackward = (Vec<bool>, Option<Arc<ChainBackward>>);

/// One step of a replay.
pub(crate) enum Step {
    Node(usize),
    Fused(Group),
    /// A row group, then its deferred nodes.
    Rows(RowGroup),
    /// A product with an elementwise op run over its output as it is made.
    Epilogue(ProductEpilogue),
}

/// Where a fused node's chunk comes from or goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// Scratch buffer `k` of the worker.
    Scratch(usize),
    /// The chain's output (a chain without a reduction: its last node).
    Output,
}

/// Nodes `first..=last`: elementwise nodes with slice kernels, then either a full reduction `last` that
/// reads the chain's end, or nothing (`last` is the chain's end, whose value is the group's output).
pub(crate) struct Group {
    pub(crate) first: usize,
    pub(crate) last: usize,
    /// Whether `last` is a full reduction.
    reduces: bool,
    /// The chain's shape and dtype (every elementwise node's).
    shape: Vec<usize>,
    dtype: DType,
    /// Each elementwise node's output place (`first..` in order).
    places: Vec<Place>,
    scratch_buffers: usize,
    /// The chain's backward for each set of outside operands wanting a gradient, captured at the first call that
    /// needs it (None: eager's rules could not be captured; the chain then replays node by node).
    pub(super) backward: Mutex<Vec<CapturedBackward>>,
}

/// The replay's steps: nodes in capture order, with each fusable chain as one group.
pub(crate) fn plan(n_inputs: usize, nodes: &[Node], outputs: &[usize], last_use: &[Option<usize>]) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut i = 0;
    while i < nodes.len() {
        if let Some(epilogue) = epilogue::epilogue_from(n_inputs, nodes, outputs, last_use, i) {
            i += 2;
            steps.push(Step::Epilogue(epilogue));
            continue;
        }
        if let Some(group) = rows::row_group_from(n_inputs, nodes, outputs, last_use, i) {
            i = group.last + 1;
            steps.push(Step::Rows(group));
            continue;
        }
        match group_from(n_inputs, nodes, outputs, last_use, i) {
            Some(group) => {
                i = group.last + 1;
                steps.push(Step::Fused(group));
            }
            None => {
                steps.push(Step::Node(i));
                i += 1;
            }
        }
    }
    steps
}

fn elementwise_kernel(node: &Node) -> bool {
    node.kernel.as_ref().is_some_and(SliceKernel::is_elementwise)
}

/// The longest fusable chain starting at `first`, if there is one.
fn group_from(
    n_inputs: usize,
    nodes: &[Node],
    outputs: &[usize],
    last_use: &[Option<usize>],
    first: usize,
) -> Option<Group> {
    let head = &nodes[first];
    if !elementwise_kernel(head) || numel(&head.shape) < MIN_FUSED_ELEMENTS {
        return None;
    }
    let (shape, dtype) = (head.shape.clone(), head.dtype);
    let mut end = first;
    while end + 1 < nodes.len()
        && elementwise_kernel(&nodes[end + 1])
        && nodes[end + 1].shape == shape
        && nodes[end + 1].dtype == dtype
    {
        end += 1;
    }
    // a value made inside the chain and read after `until` (or returned) must be materialized
    let escapes = |v: usize, until: usize| outputs.contains(&v) || last_use[v].is_some_and(|u| u > until);
    let closed = nodes.get(end + 1).is_some_and(|r| {
        matches!(r.kernel, Some(SliceKernel::Reduce(_)))
            && r.dtype == dtype
            && matches!(r.operands.as_slice(), [Operand::Value(v)] if *v == n_inputs + end)
    });
    if closed && !(first..=end).any(|i| escapes(n_inputs + i, end + 1)) {
        return Some(Group::new(n_inputs, nodes, last_use, first, end + 1, true, shape, dtype));
    }
    // no reduction: the chain's end is the output; cut the chain before the first value read later
    while let Some(i) = (first..end).find(|&i| escapes(n_inputs + i, end)) {
        end = i;
    }
    (end > first).then(|| Group::new(n_inputs, nodes, last_use, first, end, false, shape, dtype))
}

impl Group {
    #[allow(clippy::too_many_arguments)]
    fn new(
        n_inputs: usize,
        nodes: &[Node],
        last_use: &[Option<usize>],
        first: usize,
        last: usize,
        reduces: bool,
        shape: Vec<usize>,
        dtype: DType,
    ) -> Group {
        let end = if reduces { last - 1 } else { last };
        // scratch buffers assigned like registers: a node's output takes a free buffer before the buffers
        // of the operands it reads for the last time are freed (a kernel never writes over its input)
        let (mut places, mut free, mut count) = (Vec::new(), Vec::new(), 0);
        for (i, node) in nodes.iter().enumerate().take(end + 1).skip(first) {
            places.push(if !reduces && i == end {
                Place::Output
            } else {
                Place::Scratch(take_buffer(&mut free, &mut count))
            });
            for v in read_for_the_last_time(node, i, n_inputs + first, last_use) {
                if let Place::Scratch(k) = places[v - n_inputs - first] {
                    free.push(k);
                }
            }
        }
        let backward = Mutex::new(Vec::new());
        Group { first, last, reduces, shape, dtype, places, scratch_buffers: count, backward }
    }

    /// The group's value (the reduction's, or the chain end's), or None when these operands cannot be fused.
    pub(crate) fn run(&self, n_inputs: usize, nodes: &[Node], values: &[Option<Tensor>]) -> Result<Option<Tensor>> {
        match self.outside_operands(n_inputs, nodes, values, Gradients::Refused) {
            Some(outside) => self.run_over(n_inputs, nodes, &outside).map(Some),
            None => Ok(None),
        }
    }

    fn run_as<T: Element>(
        &self,
        n_inputs: usize,
        nodes: &[Node],
        outside: &[(Reader, Tensor)],
        kernel_of: impl Fn(&Option<SliceKernel>) -> &Elementwise<T>,
    ) -> Result<Tensor> {
        let end = self.end();
        let guards: Vec<_> = outside.iter().map(|(_, t)| t.0.storage.read()).collect();
        let slices: Vec<Chunks<T>> = outside
            .iter()
            .zip(&guards)
            .map(|((_, t), g)| {
                let data = &T::data(g).expect("checked dtype").as_slice()[t.layout().offset..];
                Chunks::new(data, pattern(t, &self.shape).expect("checked by outside_operands"), CHUNK)
            })
            .collect();
        // each node's kernel and where its chunks come from, resolved once per call
        let steps: Vec<(&Elementwise<T>, Vec<Source>, Place)> = (self.first..=end)
            .map(|i| {
                let sources = nodes[i]
                    .operands
                    .iter()
                    .map(|op| match op {
                        Operand::Value(v) if *v >= n_inputs + self.first => {
                            match self.places[*v - n_inputs - self.first] {
                                Place::Scratch(k) => Source::Scratch(k),
                                Place::Output => unreachable!("the output is the chain's last value"),
                            }
                        }
                        Operand::Value(v) => Source::Outside(position_of(outside, Reader::Value(*v))),
                        Operand::Constant(t) if reads_as_chunks(t) => {
                            Source::Outside(position_of(outside, Reader::Constant(Arc::as_ptr(&t.0))))
                        }
                        Operand::Constant(_) => Source::Number,
                    })
                    .collect();
                (kernel_of(&nodes[i].kernel), sources, self.places[i - self.first])
            })
            .collect();
        let chain = Chain { steps: &steps, slices: &slices, scratch_buffers: self.scratch_buffers };
        let n = numel(&self.shape);
        // four spans per thread, taken as threads free up (as eager's parts are), so a thread slowed by
        // other work does not hold the call; whole chunks per span, so that chunk boundaries (and the
        // summation order) do not depend on the split
        let spans = if n < PARALLEL_ABOVE { 1 } else { 4 * threads() };
        let per_worker = n.div_ceil(CHUNK).div_ceil(spans).max(1) * CHUNK;
        if !self.reduces {
            let mut out: Vec<T> = crate::pool::take(n);
            par_chunks_mut(&mut out.spare_capacity_mut()[..n], per_worker, &|w, part| {
                chain.run_span(w * per_worker, part.len(), Some(part), |_, _| {});
            });
            // Safety: every chunk of every part was written by the chain's last kernel (which writes each
            // slot it is given).
            unsafe { out.set_len(n) };
            return Tensor::from_vec(out, &self.shape);
        }
        let Some(SliceKernel::Reduce(reduction)) = nodes[self.last].kernel else {
            unreachable!("a closed group ends in a reduction")
        };
        let (last_place, chunks) = (self.places[end - self.first], n.div_ceil(CHUNK));
        let mut partials = vec![Partial::<T>::Sum(0.0); chunks];
        let per_worker_chunks = per_worker / CHUNK;
        par_chunks_mut(&mut partials, per_worker_chunks, &|w, part| {
            let first_chunk = w * per_worker_chunks;
            let len = (part.len() * CHUNK).min(n - first_chunk * CHUNK);
            chain.run_span(first_chunk * CHUNK, len, None, |c, scratch| {
                let Place::Scratch(k) = last_place else { unreachable!("a closed chain ends in scratch") };
                let run = &scratch[k][..CHUNK.min(len - c * CHUNK)];
                part[c] = match reduction {
                    Reduction::Sum => Partial::Sum(crate::kernels::sum::sum_run(run)),
                    Reduction::Extreme { is_max } => Partial::Extreme(extreme_run(run, is_max)),
                };
            });
        });
        let value = combine(&partials, reduction);
        Tensor::from_vec(vec![value], &nodes[self.last].shape)
    }

    /// The last elementwise node (before the closing reduction, if any).
    pub(super) fn end(&self) -> usize {
        if self.reduces {
            self.last - 1
        } else {
            self.last
        }
    }
}

impl Fusable for Group {
    fn span(&self) -> Option<(usize, usize)> {
        Some((self.first, self.last))
    }

    fn captured(&self) -> &Mutex<Vec<CapturedBackward>> {
        &self.backward
    }

    /// The tensors the chain reads from outside (values before it, and tensors from before the capture), in
    /// first-read order, or None when one cannot be read as chunks (a layout, a dtype, a shape) or, unless
    /// `gradients` allows it, needs a gradient.
    fn outside_operands(
        &self,
        n_inputs: usize,
        nodes: &[Node],
        values: &[Option<Tensor>],
        gradients: Gradients,
    ) -> Option<Vec<(Reader, Tensor)>> {
        let grad = gradients == Gradients::Refused && grad_mode::is_enabled();
        let mut outside: Vec<(Reader, Tensor)> = Vec::new();
        for node in &nodes[self.first..=self.end()] {
            for op in &node.operands {
                let (reader, t) = match op {
                    Operand::Value(v) if *v >= n_inputs + self.first => continue,
                    Operand::Value(v) => (Reader::Value(*v), values[*v].as_ref().expect("computed before its readers")),
                    Operand::Constant(t) if reads_as_chunks(t) => (Reader::Constant(Arc::as_ptr(&t.0)), t),
                    Operand::Constant(_) => continue,
                };
                if outside.iter().any(|(r, _)| *r == reader) {
                    continue;
                }
                let fits = t.dtype() == self.dtype && pattern(t, &self.shape).is_some();
                if !fits || t.is_complex() || (grad && t.requires_grad()) {
                    return None;
                }
                outside.push((reader, t.clone()));
            }
        }
        Some(outside)
    }

    /// The group's value over `outside` (from `outside_operands`), without history.
    fn run_over(&self, n_inputs: usize, nodes: &[Node], outside: &[(Reader, Tensor)]) -> Result<Tensor> {
        match self.dtype {
            DType::F32 => self.run_as::<f32>(n_inputs, nodes, outside, |k| match k {
                Some(SliceKernel::F32(e)) => e,
                _ => unreachable!("a float32 chain's nodes carry float32 kernels"),
            }),
            DType::F64 => self.run_as::<f64>(n_inputs, nodes, outside, |k| match k {
                Some(SliceKernel::F64(e)) => e,
                _ => unreachable!("a float64 chain's nodes carry float64 kernels"),
            }),
            dtype => crate::bail!(Runtime, "compiled graph: no fused chain over {}", dtype.name()),
        }
    }
}

/// A free scratch buffer, or a new one (`count` of them so far): buffers are assigned like registers.
fn take_buffer(free: &mut Vec<usize>, count: &mut usize) -> usize {
    free.pop().unwrap_or_else(|| {
        *count += 1;
        *count - 1
    })
}

/// The values made inside a group (ids from `first_value` on) that node `i` reads for the last time, once each: their
/// buffers are free once the node's own place is taken (a kernel never writes over its input).
fn read_for_the_last_time(node: &Node, i: usize, first_value: usize, last_use: &[Option<usize>]) -> Vec<usize> {
    let mut read: Vec<usize> = node
        .operands
        .iter()
        .filter_map(|op| match op {
            Operand::Value(v) if *v >= first_value && last_use[*v] == Some(i) => Some(*v),
            _ => None,
        })
        .collect();
    read.sort_unstable();
    read.dedup();
    read
}

/// Whether a fused run may read a tensor that needs a gradient (`chain_grad.rs` then records one node for the chain).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Gradients {
    Refused,
    Allowed,
}

/// A tensor a chain reads from outside: a value of the graph before the chain, or a tensor from before the capture
/// (a closure's or a global's, read as it is at each call, as the node-by-node replay reads it).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Reader {
    Value(usize),
    Constant(*const crate::tensor::TensorImpl),
}

/// Whether a constant operand is a tensor read chunk by chunk, not a number folded into its node's kernel.
pub(super) fn reads_as_chunks(t: &Tensor) -> bool {
    !t.0.wrapped_number
}

pub(super) fn position_of(outside: &[(Reader, Tensor)], reader: Reader) -> usize {
    outside.iter().position(|(r, _)| *r == reader).expect("collected by outside_operands")
}

/// Where an operand's chunk is read from.
#[derive(Clone, Copy)]
enum Source {
    Outside(usize),
    Scratch(usize),
    /// A number folded into the kernel.
    Number,
}

/// A chunk's result of the closing reduction.
#[derive(Clone, Copy)]
enum Partial<T> {
    Sum(f64),
    Extreme(Option<T>),
}

/// The chunks' results combined in chunk order: sums added one after another in f64 (each chunk's sum is
/// `sum_run`'s, itself accumulated in f64 lanes), then rounded once to the dtype, as eager's `sum` rounds
/// its f64 total; extremes by `better` (NaN wins), as eager's fold.
fn combine<T: Element>(partials: &[Partial<T>], reduction: Reduction) -> T {
    match reduction {
        Reduction::Sum => {
            T::from_f64(partials.iter().map(|p| if let Partial::Sum(s) = p { *s } else { 0.0 }).sum::<f64>())
        }
        Reduction::Extreme { is_max } => partials
            .iter()
            .filter_map(|p| if let Partial::Extreme(e) = p { *e } else { None })
            .fold(None, |best, v| match best {
                Some(b) if !better(v, b, is_max) => Some(b),
                _ => Some(v),
            })
            .expect("a fused chain has elements"),
    }
}

/// One call's resolved chain: the kernels, the outside operands' data and the scratch count.
struct Chain<'a, T> {
    steps: &'a [(&'a Elementwise<T>, Vec<Source>, Place)],
    slices: &'a [Chunks<'a, T>],
    scratch_buffers: usize,
}

impl<T: Element> Chain<'_, T> {
    /// Elements `start..start + len` chunk by chunk on this thread: the nodes' kernels into this worker's
    /// scratch buffers (and `out`, the output's part for this span, for a chain without a reduction),
    /// then `each(chunk index within the span, scratch)`.
    fn run_span(
        &self,
        start: usize,
        len: usize,
        mut out: Option<&mut [MaybeUninit<T>]>,
        mut each: impl FnMut(usize, &[Vec<T>]),
    ) {
        let mut scratch: Vec<Vec<T>> = (0..self.scratch_buffers).map(|_| vec![T::default(); CHUNK]).collect();
        // this worker's chunk of each broadcast operand filled chunk by chunk
        let mut fills: Vec<Vec<T>> =
            self.slices.iter().map(|c| if c.is_filled() { vec![T::default(); CHUNK] } else { Vec::new() }).collect();
        for (c, at) in (0..len).step_by(CHUNK).enumerate() {
            let m = CHUNK.min(len - at);
            for (chunks, buf) in self.slices.iter().zip(&mut fills).filter(|(c, _)| c.is_filled()) {
                chunks.fill(start + at, &mut buf[..m]);
            }
            for (kernel, sources, place) in self.steps {
                let read = |s: &Source, scratch: &[Vec<T>]| -> *const T {
                    match *s {
                        Source::Outside(k) => match &self.slices[k] {
                            Chunks::Run(run) => run[start + at..][..m].as_ptr(),
                            Chunks::Fixed(values) => values.as_ptr(),
                            Chunks::Filled(..) => fills[k].as_ptr(),
                        },
                        Source::Scratch(k) => scratch[k].as_ptr(),
                        Source::Number => std::ptr::null(),
                    }
                };
                let dst: &mut [MaybeUninit<T>] = match place {
                    Place::Output => {
                        &mut out.as_deref_mut().expect("a chain without a reduction has an output")[at..][..m]
                    }
                    // Safety: MaybeUninit<T> has T's layout, and the kernel writes only initialized values.
                    Place::Scratch(k) => unsafe {
                        std::slice::from_raw_parts_mut(scratch[*k].as_mut_ptr().cast::<MaybeUninit<T>>(), m)
                    },
                };
                // Safety: every source is `m` initialized elements (an outside slice, or a scratch, fill or fixed
                // buffer of CHUNK ≥ m elements) and never the buffer being written (`Group::new` frees a buffer only
                // after its reader's output is placed).
                let src = |s: &Source| unsafe { std::slice::from_raw_parts(read(s, &scratch), m) };
                match kernel {
                    Elementwise::Map { operand, f } => f(dst, src(&sources[*operand])),
                    Elementwise::Zip(f) => f(dst, src(&sources[0]), src(&sources[1])),
                }
            }
            each(c, &scratch);
        }
    }
}
