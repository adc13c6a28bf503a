//! Row groups: an elementwise chain with sums or means over its last dim inside it (RMSNorm, LayerNorm written out,
//! their gradients) runs a block of whole rows at a time. Its nodes hold either the full shape `[.., C]` or one value
//! per row `[.., 1]` (a statistic); a reduction makes a statistic from a block's rows with the kernel eager's
//! last-dim sum calls for each row, and a full node reads a statistic stretched along its row. So the block's rows
//! stay in cache from the first node to the last, and no statistic or intermediate is written out unless a node
//! after the group reads it.
//!
//! Nodes between the group's that it does not run (a sum over the rows for a weight's gradient, a reshape) are
//! deferred after it when no node of the group reads them; the values they read are written out.
use super::chain_grad::Fusable;
use super::reads::{pattern, Chunks, Pattern};
use super::{position_of, read_for_the_last_time, reads_as_chunks, take_buffer, CapturedBackward, Gradients, Reader};
use super::{CHUNK, MIN_FUSED_ELEMENTS};
use crate::autograd::grad_mode;
use crate::compile::ir::{Node, Operand, Run};
use crate::compile::kernel::{Elementwise, RowReduction, SliceKernel};
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::kernels::sum::sum_run;
use crate::kernels::threads::{par_for, threads, OutPtr};
use crate::layout::numel;
use crate::ops::extreme::extreme_run;
use crate::tensor::Tensor;
use parking_lot::Mutex;
use std::mem::MaybeUninit;
use std::sync::Arc;

/// Rows longer than this are not grouped: a block is at least one row, and a few blocks' buffers must stay in cache.
const MAX_ROW: usize = 8 * CHUNK;
/// At most this many deferred nodes in a row between two of the group's.
const MAX_DEFERRED_RUN: usize = 4;
/// The ops a group may run after itself instead of in their place: they read values and make a new one, nothing else.
const DEFERRABLE: [&str; 5] = ["sum", "mean", "reshape", "view", "expand"];

#[cfg(test)]
thread_local! {
    /// How many times a row group ran fused on this thread (its fallback gives the same values, so tests count).
    pub(crate) static FUSED_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The shape a node of the group holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// The full shape `[.., C]`.
    Full,
    /// One value per row, `[.., 1]`.
    Stat,
}

/// What a node of the group computes over a block of rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    /// Its own elementwise slice kernel.
    Elementwise,
    /// Each row of its full operand reduced to one value.
    Reduce(RowReduction),
    /// `expand` of a statistic to the full shape.
    Stretch,
}

/// Where a node's block of values lives during a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// Scratch buffer `k` of its class, the worker's own.
    Scratch(Class, usize),
    /// The group's output `k`, written out (a node after the group reads it, or it is the graph's output).
    Output(usize),
}

#[derive(Debug)]
struct Member {
    node: usize,
    class: Class,
    op: Op,
    place: Place,
}

impl Member {
    /// The class its operands are read in: a reduction reads full rows, a stretch a statistic, an elementwise node
    /// its own shape.
    fn reads(&self) -> Class {
        match self.op {
            Op::Reduce(_) => Class::Full,
            Op::Stretch => Class::Stat,
            Op::Elementwise => self.class,
        }
    }
}

pub(crate) struct RowGroup {
    /// The first and last node the group runs; the nodes between are its members or `deferred`.
    pub(crate) first: usize,
    pub(crate) last: usize,
    members: Vec<Member>,
    /// The nodes between `first` and `last` that run after the group, in order.
    pub(crate) deferred: Vec<usize>,
    /// The members whose values are written out, in order.
    pub(crate) outputs: Vec<usize>,
    full: Vec<usize>,
    stat: Vec<usize>,
    row: usize,
    dtype: DType,
    /// How many scratch buffers of each class (full, stat) a worker needs.
    scratch: [usize; 2],
    pub(super) backward: Mutex<Vec<CapturedBackward>>,
}

fn class_index(class: Class) -> usize {
    match class {
        Class::Full => 0,
        Class::Stat => 1,
    }
}

/// The row length and statistic shape of the first row reduction from `first` on, before a node that is neither a
/// possible member nor deferrable.
fn rows_of(nodes: &[Node], first: usize) -> Option<(usize, Vec<usize>)> {
    for node in &nodes[first..] {
        match &node.kernel {
            Some(SliceKernel::RowReduce { row, .. }) => return Some((*row, node.shape.clone())),
            Some(k) if k.is_elementwise() => {}
            _ if node.name == "expand" || deferrable(node) => {}
            _ => return None,
        }
    }
    None
}

/// Whether a node may run after the group instead of in its place: one of the ops that only read values and make a
/// new one, or any node with a slice kernel (an elementwise op of another shape: a bias's gradient summed with
/// another), which is such an op too.
fn deferrable(node: &Node) -> bool {
    matches!(node.run, Run::One(_)) && (DEFERRABLE.contains(&node.name) || node.kernel.is_some())
}

/// The longest row group starting at `first`, if there is one.
pub(super) fn row_group_from(
    n_inputs: usize,
    nodes: &[Node],
    outputs: &[usize],
    last_use: &[Option<usize>],
    first: usize,
) -> Option<RowGroup> {
    let head = &nodes[first];
    let head_is_member = head.kernel.is_some();
    let (row, stat) = rows_of(nodes, first).filter(|_| head_is_member)?;
    let mut full = stat.clone();
    *full.last_mut()? = row;
    let dtype = head.dtype;
    if !(2..=MAX_ROW).contains(&row) || numel(&full) < MIN_FUSED_ELEMENTS || !matches!(dtype, DType::F32 | DType::F64) {
        return None;
    }
    // each node's class and op once it is a member (None: deferred)
    let mut class_of: Vec<Option<(Class, Op)>> = Vec::new();
    let (mut members, mut deferred, mut run_of_deferred) = (Vec::new(), Vec::new(), 0);
    for (i, node) in nodes.iter().enumerate().skip(first) {
        let inside = |v: usize| v.checked_sub(n_inputs + first).filter(|&k| k < class_of.len());
        let class = if node.shape == full {
            Class::Full
        } else if node.shape == stat {
            Class::Stat
        } else {
            Class::Full // not a member's shape: only deferrable
        };
        let shaped = node.shape == full || node.shape == stat;
        let op = match &node.kernel {
            Some(SliceKernel::RowReduce { row: r, reduction }) if *r == row && node.shape == stat => {
                Some(Op::Reduce(*reduction))
            }
            Some(k) if k.is_elementwise() && shaped => Some(Op::Elementwise),
            None if node.name == "expand" && node.shape == full => Some(Op::Stretch),
            _ => None,
        };
        // a member reads values made before the group, or members of its class (a full node a statistic too)
        let reads_fit = op.is_some_and(|op| {
            node.dtype == dtype
                && node.operands.iter().all(|o| match o {
                    Operand::Value(v) => match inside(*v) {
                        Some(k) => match (class_of[k], op) {
                            (None, _) => false,
                            // eager sums an expanded tensor's rows by multiplying: not a stretch's rows here
                            (Some((c, from)), Op::Reduce(_)) => c == Class::Full && from != Op::Stretch,
                            (Some((c, _)), Op::Stretch) => c == Class::Stat,
                            (Some((c, _)), Op::Elementwise) => c == class || c == Class::Stat,
                        },
                        None => op != Op::Stretch,
                    },
                    Operand::Constant(_) => op != Op::Stretch,
                })
        });
        if let (Some(op), true) = (op, reads_fit) {
            members.push((i, class, op));
            class_of.push(Some((class, op)));
            run_of_deferred = 0;
        } else if deferrable(node) && run_of_deferred < MAX_DEFERRED_RUN {
            deferred.push(i);
            class_of.push(None);
            run_of_deferred += 1;
        } else {
            break;
        }
    }
    let last = members.last()?.0;
    deferred.retain(|&d| d < last);
    if !members.iter().any(|(_, _, op)| matches!(op, Op::Reduce(_))) || members.len() < 2 {
        return None;
    }
    Some(RowGroup::new(n_inputs, nodes, outputs, last_use, first, members, deferred, full, stat, row, dtype))
}

impl RowGroup {
    #[allow(clippy::too_many_arguments)]
    fn new(
        n_inputs: usize,
        nodes: &[Node],
        outputs: &[usize],
        last_use: &[Option<usize>],
        first: usize,
        found: Vec<(usize, Class, Op)>,
        deferred: Vec<usize>,
        full: Vec<usize>,
        stat: Vec<usize>,
        row: usize,
        dtype: DType,
    ) -> RowGroup {
        let last = found.last().expect("a group has members").0;
        let read_by_deferred = |v: usize| {
            deferred.iter().any(|&d| nodes[d].operands.iter().any(|o| matches!(o, Operand::Value(w) if *w == v)))
        };
        let escapes = |v: usize| outputs.contains(&v) || last_use[v].is_some_and(|u| u > last) || read_by_deferred(v);
        // scratch buffers assigned like registers, one free list per class: a node's place is taken before the
        // buffers of the operands it reads for the last time are freed (a kernel never writes over its input)
        let (mut free, mut count): ([Vec<usize>; 2], [usize; 2]) = ([Vec::new(), Vec::new()], [0, 0]);
        let (mut members, mut written): (Vec<Member>, Vec<usize>) = (Vec::new(), Vec::new());
        for &(i, class, op) in &found {
            let place = if escapes(n_inputs + i) {
                written.push(i);
                Place::Output(written.len() - 1)
            } else {
                let c = class_index(class);
                Place::Scratch(class, take_buffer(&mut free[c], &mut count[c]))
            };
            members.push(Member { node: i, class, op, place });
            for v in read_for_the_last_time(&nodes[i], i, n_inputs + first, last_use) {
                if let Some(Place::Scratch(c, k)) = members.iter().find(|m| n_inputs + m.node == v).map(|m| m.place) {
                    free[class_index(c)].push(k);
                }
            }
        }
        RowGroup {
            first,
            last,
            members,
            deferred,
            outputs: written,
            full,
            stat,
            row,
            dtype,
            scratch: count,
            backward: Mutex::new(Vec::new()),
        }
    }

    fn shape_of(&self, class: Class) -> &[usize] {
        match class {
            Class::Full => &self.full,
            Class::Stat => &self.stat,
        }
    }

    fn member_of(&self, n_inputs: usize, v: usize) -> Option<&Member> {
        v.checked_sub(n_inputs).and_then(|i| self.members.iter().find(|m| m.node == i))
    }

    /// The values of `outputs` (in order), or None when these operands cannot be read fused.
    pub(crate) fn run(
        &self,
        n_inputs: usize,
        nodes: &[Node],
        values: &[Option<Tensor>],
    ) -> Result<Option<Vec<Tensor>>> {
        match self.outside_operands(n_inputs, nodes, values, Gradients::Refused) {
            Some(outside) => self.run_all(n_inputs, nodes, &outside).map(Some),
            None => Ok(None),
        }
    }

    /// Each outside operand's reads: (its position in `outside`, the class that reads it), once each.
    fn outside_reads(&self, n_inputs: usize, nodes: &[Node], outside: &[(Reader, Tensor)]) -> Vec<(usize, Class)> {
        let mut reads = Vec::new();
        for m in &self.members {
            for op in &nodes[m.node].operands {
                let Some(reader) = outside_reader(n_inputs, self.first, op) else { continue };
                let read = (position_of(outside, reader), m.reads());
                if !reads.contains(&read) {
                    reads.push(read);
                }
            }
        }
        reads
    }

    fn run_all(&self, n_inputs: usize, nodes: &[Node], outside: &[(Reader, Tensor)]) -> Result<Vec<Tensor>> {
        #[cfg(test)]
        FUSED_RUNS.with(|n| n.set(n.get() + 1));
        match self.dtype {
            DType::F32 => self.run_as::<f32>(n_inputs, nodes, outside, |k| match k {
                Some(SliceKernel::F32(e)) => Some(e),
                _ => None,
            }),
            DType::F64 => self.run_as::<f64>(n_inputs, nodes, outside, |k| match k {
                Some(SliceKernel::F64(e)) => Some(e),
                _ => None,
            }),
            dtype => crate::bail!(Runtime, "compiled graph: no row group over {}", dtype.name()),
        }
    }

    fn run_as<T: Element>(
        &self,
        n_inputs: usize,
        nodes: &[Node],
        outside: &[(Reader, Tensor)],
        kernel_of: impl Fn(&Option<SliceKernel>) -> Option<&Elementwise<T>>,
    ) -> Result<Vec<Tensor>> {
        let row = self.row;
        let rows = numel(&self.stat);
        let block_rows = (CHUNK / row).max(1);
        let guards: Vec<_> = outside.iter().map(|(_, t)| t.0.storage.read()).collect();
        let reads = self.outside_reads(n_inputs, nodes, outside);
        let chunks: Vec<(Class, Chunks<T>)> = reads
            .iter()
            .map(|&(k, class)| {
                let t = &outside[k].1;
                let data = &T::data(&guards[k]).expect("checked dtype").as_slice()[t.layout().offset..];
                let block = block_rows * if class == Class::Full { row } else { 1 };
                let pattern = pattern(t, self.shape_of(class)).expect("checked by outside_operands");
                (class, Chunks::new(data, pattern, block))
            })
            .collect();
        let steps: Vec<Step<T>> = self
            .members
            .iter()
            .map(|m| {
                let node = &nodes[m.node];
                let sources = node
                    .operands
                    .iter()
                    .map(|op| match op {
                        Operand::Value(v) if self.member_of(n_inputs, *v).is_some() => {
                            let from = self.member_of(n_inputs, *v).expect("a member");
                            let source = Source::Inside(from.place);
                            match (from.class, m.class, m.op) {
                                (Class::Stat, Class::Full, Op::Elementwise) => Source::Stretched(from.place),
                                _ => source,
                            }
                        }
                        Operand::Constant(t) if !reads_as_chunks(t) => Source::Number,
                        op => {
                            let reader = outside_reader(n_inputs, self.first, op).expect("read from outside");
                            let read = (position_of(outside, reader), m.reads());
                            Source::Outside(reads.iter().position(|r| *r == read).expect("collected"))
                        }
                    })
                    .collect();
                let kernel = match m.op {
                    Op::Elementwise => Kernel::Elementwise(kernel_of(&node.kernel).expect("a member's kernel")),
                    Op::Reduce(r) => Kernel::Reduce(r),
                    Op::Stretch => Kernel::Stretch,
                };
                Step { kernel, sources, class: m.class, place: m.place }
            })
            .collect();
        let mut outs: Vec<Vec<T>> = self.outputs.iter().map(|&i| crate::pool::take(numel(&nodes[i].shape))).collect();
        let out_ptrs: Vec<OutPtr<T>> = outs.iter_mut().map(|o| OutPtr(o.as_mut_ptr())).collect();
        let out_classes: Vec<Class> =
            self.members.iter().filter(|m| matches!(m.place, Place::Output(_))).map(|m| m.class).collect();
        let body = Body {
            steps: &steps,
            chunks: &chunks,
            outs: &out_ptrs,
            out_classes: &out_classes,
            scratch: self.scratch,
            row,
            block_rows,
        };
        let spans = if numel(&self.full) < super::PARALLEL_ABOVE { 1 } else { 4 * threads() };
        let per_span = rows.div_ceil(block_rows).div_ceil(spans).max(1) * block_rows;
        par_for(rows.div_ceil(per_span), &|s| body.run_rows(s * per_span, per_span.min(rows - s * per_span)));
        self.outputs
            .iter()
            .zip(outs)
            .map(|(&i, mut out)| {
                // Safety: every block of every span wrote its rows of each output (each kernel writes every slot).
                unsafe { out.set_len(numel(&nodes[i].shape)) };
                Tensor::from_vec(out, &nodes[i].shape)
            })
            .collect()
    }
}

/// How a member's operand is read from outside the group (None: a member's value or a number).
fn outside_reader(n_inputs: usize, first: usize, op: &Operand) -> Option<Reader> {
    match op {
        Operand::Value(v) if *v >= n_inputs + first => None,
        Operand::Value(v) => Some(Reader::Value(*v)),
        Operand::Constant(t) if reads_as_chunks(t) => Some(Reader::Constant(Arc::as_ptr(&t.0))),
        Operand::Constant(_) => None,
    }
}

impl Fusable for RowGroup {
    fn span(&self) -> Option<(usize, usize)> {
        // only a group that is one chain to its one output is recorded as one node
        (self.deferred.is_empty() && self.outputs == [self.last]).then_some((self.first, self.last))
    }

    fn captured(&self) -> &Mutex<Vec<CapturedBackward>> {
        &self.backward
    }

    /// The tensors the group reads from outside, in first-read order, or None when one cannot be read by rows (a
    /// layout, a dtype, a reduction over a broadcast operand) or, unless `gradients` allows it, needs a gradient.
    fn outside_operands(
        &self,
        n_inputs: usize,
        nodes: &[Node],
        values: &[Option<Tensor>],
        gradients: Gradients,
    ) -> Option<Vec<(Reader, Tensor)>> {
        let grad = gradients == Gradients::Refused && grad_mode::is_enabled();
        let mut outside: Vec<(Reader, Tensor)> = Vec::new();
        for m in &self.members {
            for op in &nodes[m.node].operands {
                let Some(reader) = outside_reader(n_inputs, self.first, op) else { continue };
                let t = match op {
                    Operand::Value(v) => values[*v].as_ref().expect("computed before its readers"),
                    Operand::Constant(t) => t,
                };
                // eager sums a broadcast operand's rows by multiplying: only a contiguous one is reduced here
                let fits = match pattern(t, self.shape_of(m.reads())) {
                    Some(p) => !matches!(m.op, Op::Reduce(_)) || p == Pattern::Run,
                    None => false,
                };
                if !fits || t.dtype() != self.dtype || t.is_complex() || (grad && t.requires_grad()) {
                    return None;
                }
                if !outside.iter().any(|(r, _)| *r == reader) {
                    outside.push((reader, t.clone()));
                }
            }
        }
        Some(outside)
    }

    fn run_over(&self, n_inputs: usize, nodes: &[Node], outside: &[(Reader, Tensor)]) -> Result<Tensor> {
        let mut outs = self.run_all(n_inputs, nodes, outside)?;
        Ok(outs.pop().expect("a recorded group has one output"))
    }
}

/// Where a member's operand block is read from.
#[derive(Clone, Copy)]
enum Source {
    Outside(usize),
    Inside(Place),
    /// A statistic member read by a full one: each row's value repeated along the row.
    Stretched(Place),
    Number,
}

enum Kernel<'a, T> {
    Elementwise(&'a Elementwise<T>),
    Reduce(RowReduction),
    Stretch,
}

struct Step<'a, T> {
    kernel: Kernel<'a, T>,
    sources: Vec<Source>,
    class: Class,
    place: Place,
}

/// One call's resolved group.
struct Body<'a, T> {
    steps: &'a [Step<'a, T>],
    chunks: &'a [(Class, Chunks<'a, T>)],
    outs: &'a [OutPtr<T>],
    out_classes: &'a [Class],
    scratch: [usize; 2],
    row: usize,
    block_rows: usize,
}

impl<T: Element> Body<'_, T> {
    /// Rows `start..start + len`, a block at a time, on this thread.
    fn run_rows(&self, start: usize, len: usize) {
        let (row, block) = (self.row, self.block_rows);
        let size = |class: Class| if class == Class::Full { block * row } else { block };
        let mut scratch: [Vec<Vec<T>>; 2] = [Class::Full, Class::Stat]
            .map(|c| (0..self.scratch[class_index(c)]).map(|_| vec![T::default(); size(c)]).collect());
        // every write goes through these (the buffers are not touched otherwise while they are in use)
        let scratch_ptrs: [Vec<*mut T>; 2] = [0, 1].map(|c| scratch[c].iter_mut().map(|b| b.as_mut_ptr()).collect());
        let mut fills: Vec<Vec<T>> = self
            .chunks
            .iter()
            .map(|(c, ch)| if ch.is_filled() { vec![T::default(); size(*c)] } else { Vec::new() })
            .collect();
        // a stretched statistic per operand slot
        let slots = self.steps.iter().map(|s| s.sources.len()).max().unwrap_or(0);
        let mut stretched: Vec<Vec<T>> = (0..slots).map(|_| vec![T::default(); block * row]).collect();
        for at in (0..len).step_by(block) {
            let r0 = start + at;
            let nr = block.min(len - at);
            let offset = |class: Class| if class == Class::Full { r0 * row } else { r0 };
            let length = |class: Class| if class == Class::Full { nr * row } else { nr };
            for ((class, chunks), buf) in self.chunks.iter().zip(&mut fills).filter(|((_, c), _)| c.is_filled()) {
                chunks.fill(offset(*class), &mut buf[..length(*class)]);
            }
            for step in self.steps {
                let m = length(step.class);
                let place_ptr = |place: Place| -> *mut T {
                    match place {
                        Place::Scratch(c, k) => scratch_ptrs[class_index(c)][k],
                        // Safety: within the output's buffer (this block's rows of it).
                        Place::Output(k) => unsafe { self.outs[k].0.add(offset(self.out_classes[k])) },
                    }
                };
                for (slot, source) in step.sources.iter().enumerate() {
                    if let Source::Stretched(place) = *source {
                        // Safety: a statistic's block holds `nr` values, written earlier in this block.
                        let stat = unsafe { std::slice::from_raw_parts(place_ptr(place), nr) };
                        let buf = &mut stretched[slot][..nr * row];
                        // Safety: MaybeUninit<T> has T's layout; only initialized values are written.
                        let buf = unsafe { &mut *(buf as *mut [T] as *mut [MaybeUninit<T>]) };
                        crate::kernels::simd::dispatch!(stretch_rows(buf, stat, row));
                    }
                }
                let read = |s: &Source, k: usize| -> *const T {
                    match *s {
                        Source::Outside(k) => match &self.chunks[k] {
                            (class, Chunks::Run(run)) => run[offset(*class)..].as_ptr(),
                            (_, Chunks::Fixed(values)) => values.as_ptr(),
                            (_, Chunks::Filled(..)) => fills[k].as_ptr(),
                        },
                        Source::Inside(place) => place_ptr(place),
                        Source::Stretched(_) => stretched[k].as_ptr(),
                        Source::Number => std::ptr::null(),
                    }
                };
                let dst_ptr = place_ptr(step.place);
                // Safety: `m` slots of the step's class at its place (a scratch buffer of the class's block size, or
                // this block's rows of an output, which no other worker writes); never a buffer the step reads
                // (`RowGroup::new` frees a buffer only after its reader's place is taken).
                let dst = unsafe { std::slice::from_raw_parts_mut(dst_ptr.cast::<MaybeUninit<T>>(), m) };
                // Safety: each source holds the block's values of its reader's class (`len` of them), initialized: an
                // outside operand's slice or filled buffer, a member's place written earlier in this block, or the
                // stretched buffer filled above.
                let src = |slot: usize, len: usize| unsafe {
                    std::slice::from_raw_parts(read(&step.sources[slot], slot), len)
                };
                match &step.kernel {
                    Kernel::Elementwise(Elementwise::Map { operand, f }) => f(dst, src(*operand, m)),
                    Kernel::Elementwise(Elementwise::Zip(f)) => f(dst, src(0, m), src(1, m)),
                    Kernel::Reduce(reduction) => {
                        let x = src(0, nr * row);
                        for (r, slot) in dst.iter_mut().enumerate() {
                            let run = &x[r * row..(r + 1) * row];
                            // eager's `from_f64s` of the row's f64 sum (divided by the count, for a mean)
                            slot.write(match *reduction {
                                RowReduction::Sum => T::from_f64(sum_run(run)),
                                RowReduction::Mean => T::from_f64(sum_run(run) / row as f64),
                                RowReduction::Extreme { is_max } => {
                                    extreme_run(run, is_max).expect("rows of 2 or more")
                                }
                            });
                        }
                    }
                    Kernel::Stretch => crate::kernels::simd::dispatch!(stretch_rows(dst, src(0, nr), row)),
                }
            }
        }
    }
}

/// Each statistic repeated along its row, compiled for the widest vectors (at the baseline's 16-byte stores these
/// fills took a third of a row group's own time).
#[inline(always)]
fn stretch_rows<T: Copy>(dst: &mut [MaybeUninit<T>], stat: &[T], row: usize) {
    for (out, &v) in dst.chunks_exact_mut(row).zip(stat) {
        for slot in out {
            slot.write(v);
        }
    }
}
