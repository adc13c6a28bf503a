//! The tracer: thread-local, on between `begin` and `finish`. A traceable op calls `traced`, which runs
//! the op eagerly and, at the outermost traced call only (an op built from other traceable ops is one
//! node), records it. Off, `traced` costs one thread-local read.
use super::graph::Graph;
use super::ir::{Node, NodeKind, Operand, Replay, ReplayMany, Run};
use super::kernel::SliceKernel;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::{Tensor, TensorImpl};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

struct Trace {
    /// A known tensor record (by address) → its value id.
    ids: HashMap<*const TensorImpl, usize>,
    /// Every known record, kept alive so that no address is reused while the capture runs.
    known: Vec<Tensor>,
    n_inputs: usize,
    nodes: Vec<Node>,
    /// Every tensor record made while the capture runs: an unknown tensor made before it began is a tensor
    /// from outside the function (a closure's, a global's), which the graph reads as a constant.
    made: HashSet<*const TensorImpl>,
    /// Why the capture cannot be replayed (the first reason found).
    broken: Option<String>,
    /// The values every replay computes alike, by deterministic ops from Python values, deterministic
    /// factories and tensors from before the capture that need no gradient (listed with each value: the graph
    /// checks they are not written between calls), with no input or random draw behind them. Python may read
    /// them (`bool(mask.all())` on a causal mask a model keeps) without breaking the capture.
    fixed: HashMap<usize, Vec<Tensor>>,
    /// Tensors made from Python values (`note_literal`): constants that are fixed.
    literals: HashSet<*const TensorImpl>,
    /// Tensors from before the capture whose data Python read: the graph's `frozen` tensors.
    frozen: Vec<Tensor>,
    /// Tensors from before the capture that a node writes in place: Python's reading them is not stable.
    written: HashSet<*const TensorImpl>,
}

/// Whether a node's values can differ from one replay to the next with the same operands.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Draws {
    Deterministic,
    /// a random draw (each replay draws anew from the generator)
    Random,
}

thread_local! {
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    /// How many traced calls are running (only the outermost one records).
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    static TRACE: RefCell<Option<Trace>> = const { RefCell::new(None) };
}

/// What a capture gave: a graph to replay, or why there is none.
pub enum Capture {
    Graph(Graph),
    Break(String),
}

/// Whether a capture is on for this thread.
pub fn is_capturing() -> bool {
    ACTIVE.with(Cell::get)
}

/// Starts capturing on this thread; `inputs` are the values `0..n` (later duplicates of one record map to
/// the last position: callers guard on which inputs are the same tensor).
pub fn begin(inputs: &[Tensor]) -> Result<()> {
    if is_capturing() {
        crate::bail!(Runtime, "a capture is already running on this thread");
    }
    let mut trace = Trace {
        ids: HashMap::new(),
        known: Vec::new(),
        n_inputs: inputs.len(),
        nodes: Vec::new(),
        made: HashSet::new(),
        broken: None,
        fixed: HashMap::new(),
        literals: HashSet::new(),
        frozen: Vec::new(),
        written: HashSet::new(),
    };
    for (i, t) in inputs.iter().enumerate() {
        trace.ids.insert(Arc::as_ptr(&t.0), i);
        trace.known.push(t.clone());
    }
    TRACE.with(|cell| *cell.borrow_mut() = Some(trace));
    ACTIVE.with(|a| a.set(true));
    Ok(())
}

fn take() -> Option<Trace> {
    ACTIVE.with(|a| a.set(false));
    TRACE.with(|cell| cell.borrow_mut().take())
}

/// Stops capturing (the function raised): forgets the trace.
pub fn abort() {
    take();
}

/// Stops capturing and returns the graph whose outputs are `outputs`, or why it cannot be replayed.
pub fn finish(outputs: &[Tensor]) -> Result<Capture> {
    let Some(mut trace) = take() else { crate::bail!(Runtime, "no capture is running on this thread") };
    if let Some(reason) = trace.broken.take() {
        return Ok(Capture::Break(reason));
    }
    let mut ids = Vec::with_capacity(outputs.len());
    for t in outputs {
        match trace.ids.get(&Arc::as_ptr(&t.0)) {
            Some(&id) => ids.push(id),
            None => return Ok(Capture::Break(format!("an output {}", unknown_origin(t)))),
        }
    }
    if trace.frozen.iter().any(|t| trace.written.contains(&Arc::as_ptr(&t.0))) {
        return Ok(Capture::Break("reading the data of a tensor that the function writes in place".into()));
    }
    Ok(Capture::Graph(Graph::new(trace.n_inputs, trace.nodes, ids).reading(trace.frozen)))
}

/// Marks the running capture as not replayable (`what` cannot be captured: `Tensor.item()`, an in-place
/// write, a hook). Nothing happens when no capture is on.
pub fn unsupported(what: &str) {
    with_trace(|trace| {
        trace.broken.get_or_insert_with(|| format!("{what} cannot be captured"));
    });
}

/// `unsupported` for Python reading `t`'s data (`bool()`, `.item()`), unless every replay computes `t` alike (a
/// fixed value: a mask the function builds from constants), which Python may then read once, at the capture.
pub fn unsupported_read(t: &Tensor, what: &str) {
    with_trace(|trace| {
        let behind = match trace.ids.get(&Arc::as_ptr(&t.0)) {
            Some(id) => trace.fixed.get(id).cloned(),
            None if trace.literals.contains(&Arc::as_ptr(&t.0)) => Some(Vec::new()),
            None if is_outside_constant(trace, t) => Some(vec![t.clone()]),
            None => None,
        };
        match behind {
            Some(tensors) => tensors.iter().for_each(|t| add_once(&mut trace.frozen, t)),
            None => {
                trace.broken.get_or_insert_with(|| format!("{what} cannot be captured"));
            }
        }
    });
}

fn add_once(list: &mut Vec<Tensor>, t: &Tensor) {
    if !list.iter().any(|f| Arc::ptr_eq(&f.0, &t.0)) {
        list.push(t.clone());
    }
}

/// A tensor from before the capture that needs no gradient (a closure's, a module attribute's).
fn is_outside_constant(trace: &Trace, t: &Tensor) -> bool {
    !t.0.wrapped_number && !t.requires_grad() && is_from_before(trace, t) && !trace.ids.contains_key(&Arc::as_ptr(&t.0))
}

/// A tensor with no history that no op made while the capture runs: one from before it, which the graph reads
/// as a constant.
fn is_from_before(trace: &Trace, t: &Tensor) -> bool {
    t.grad_fn().is_none() && !trace.made.contains(&Arc::as_ptr(&t.0))
}

/// `unsupported`, unless a traced op is running (its replay repeats what it does: a write it makes).
pub fn unsupported_outside_ops(what: &str) {
    if ACTIVE.with(Cell::get) && DEPTH.with(Cell::get) == 0 {
        unsupported(what);
    }
}

/// Whether the running capture knows `t` (an input, a constant or a captured op's value); false when none runs.
pub fn knows(t: &Tensor) -> bool {
    let mut known = false;
    with_trace(|trace| known = trace.ids.contains_key(&Arc::as_ptr(&t.0)));
    known
}

/// Whether `t` is one of the running capture's inputs (or a tensor from before it, a constant): a tensor whose
/// Python object a replay does not reach, so an in-place op must not give it a new record (history).
pub fn is_outside_value(t: &Tensor) -> bool {
    let mut outside = false;
    with_trace(|trace| {
        outside = trace.ids.get(&Arc::as_ptr(&t.0)).is_none_or(|&id| id < trace.n_inputs);
    });
    outside
}

/// Notes a tensor record made on this thread while a capture runs (`Tensor::from_parts` calls it).
pub(crate) fn note_made(t: &Tensor) {
    with_trace(|trace| {
        trace.made.insert(Arc::as_ptr(&t.0));
    });
}

/// Declares `t`, made while a capture runs from Python values (a list used as an index), a constant of the
/// graph: every replay reads it as it is, as it reads a Python number. Nothing happens when no capture is on.
pub fn note_literal(t: &Tensor) {
    with_trace(|trace| {
        trace.made.remove(&Arc::as_ptr(&t.0));
        trace.literals.insert(Arc::as_ptr(&t.0));
    });
}

/// Declares `t`, a new record over the data of a value the capture knows (a saved output given back its history
/// when a rule unpacks it: the same storage, layout and dtype), that value. Only at the outermost level, where the
/// ops that read it record nodes; nothing happens when no capture is on or no known value matches.
pub(crate) fn note_alias(t: &Tensor) {
    if DEPTH.with(Cell::get) != 0 {
        return;
    }
    with_trace(|trace| {
        let ptr = Arc::as_ptr(&t.0);
        if trace.ids.contains_key(&ptr) {
            return;
        }
        let same = |k: &&Tensor| k.same_storage(t) && k.0.layout == t.0.layout && k.0.dtype == t.0.dtype;
        if let Some(id) = trace.known.iter().rev().find(same).map(|k| trace.ids[&Arc::as_ptr(&k.0)]) {
            trace.ids.insert(ptr, id);
            trace.known.push(t.clone());
        }
    });
}

/// `f` on this thread's running trace; nothing when no capture is on (then one thread-local read).
fn with_trace(f: impl FnOnce(&mut Trace)) {
    if !ACTIVE.with(Cell::get) {
        return;
    }
    TRACE.with(|cell| {
        if let Some(trace) = cell.borrow_mut().as_mut() {
            f(trace);
        }
    });
}

/// Runs an op eagerly; while a capture is on, `record_node` then records it, at the outermost traced call
/// only (the op's inner traced calls run deeper and record nothing).
fn run_and_record<T>(eager: impl FnOnce() -> Result<T>, record_node: impl FnOnce(&T)) -> Result<T> {
    if !ACTIVE.with(Cell::get) {
        return eager();
    }
    let (guard, outer) = DepthGuard::enter();
    let out = eager()?;
    drop(guard);
    if outer {
        record_node(&out);
    }
    Ok(out)
}

/// Where a tensor the graph does not know came from, as far as its history says.
fn unknown_origin(t: &Tensor) -> String {
    match t.grad_fn() {
        Some(node) => format!("was made by an op that is not captured ({})", node.name()),
        None => "was made outside the captured ops (by an op that is not captured, such as nonzero())".into(),
    }
}

struct DepthGuard;
impl DepthGuard {
    fn enter() -> (DepthGuard, bool) {
        let outer = DEPTH.with(|d| {
            let v = d.get();
            d.set(v + 1);
            v == 0
        });
        (DepthGuard, outer)
    }
}
impl Drop for DepthGuard {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get() - 1));
    }
}

/// Runs a traceable op: `eager()` computes it; while a capture is on, the outermost traced call also
/// records a node whose replay is `replay()` (the same entry point with the same attributes, over the
/// operands in `inputs`' order).
pub(crate) fn traced<F>(
    name: &'static str,
    kind: NodeKind,
    inputs: &[&Tensor],
    eager: impl FnOnce() -> Result<Tensor>,
    replay: impl FnOnce() -> F,
) -> Result<Tensor>
where
    F: Fn(&[&Tensor]) -> Result<Tensor> + Send + Sync + 'static,
{
    traced_fusable(name, kind, inputs, eager, replay, |_| None)
}

/// `traced` for an op that draws random numbers: its values are never fixed.
pub(crate) fn traced_random<F>(
    name: &'static str,
    inputs: &[&Tensor],
    eager: impl FnOnce() -> Result<Tensor>,
    replay: impl FnOnce() -> F,
) -> Result<Tensor>
where
    F: Fn(&[&Tensor]) -> Result<Tensor> + Send + Sync + 'static,
{
    traced_one(name, NodeKind::Opaque, inputs, eager, replay, |_| None, Draws::Random, |_| {})
}

/// `traced`, also capturing the op's slice kernel for the output's dtype (`kernel(out)`, asked only
/// when a node is recorded), so that `fuse.rs` can run the node inside a chain.
pub(crate) fn traced_fusable<F>(
    name: &'static str,
    kind: NodeKind,
    inputs: &[&Tensor],
    eager: impl FnOnce() -> Result<Tensor>,
    replay: impl FnOnce() -> F,
    kernel: impl FnOnce(&Tensor) -> Option<SliceKernel>,
) -> Result<Tensor>
where
    F: Fn(&[&Tensor]) -> Result<Tensor> + Send + Sync + 'static,
{
    traced_one(name, kind, inputs, eager, replay, kernel, Draws::Deterministic, |_| {})
}

/// `traced_fusable` for a unary op, also capturing `recorder`: the op's record over values its kernel made elsewhere
/// (a product's epilogue, `fuse/epilogue.rs`).
pub(crate) fn traced_unary<F>(
    name: &'static str,
    input: &Tensor,
    eager: impl FnOnce() -> Result<Tensor>,
    replay: impl FnOnce() -> F,
    kernel: impl FnOnce(&Tensor) -> Option<SliceKernel>,
    recorder: impl FnOnce() -> super::kernel::RecordFn,
) -> Result<Tensor>
where
    F: Fn(&[&Tensor]) -> Result<Tensor> + Send + Sync + 'static,
{
    let extend = |node: &mut Node| node.recorder = Some(recorder());
    traced_one(name, NodeKind::Elementwise, &[input], eager, replay, kernel, Draws::Deterministic, extend)
}

/// `traced` for a product op (`linear`, `addmm`, `convolution`) given as `op(inputs, map)`: eager and the replay call
/// it without a map, and the node also keeps it as its `ProductFn`, which `fuse/epilogue.rs` calls with an elementwise
/// map to run over the output as it is made, when such a map reads the product alone.
pub(crate) fn traced_product<F>(name: &'static str, inputs: &[&Tensor], op: F) -> Result<Tensor>
where
    F: Fn(&[&Tensor], Option<&mut super::kernel::MapAfter>) -> Result<Tensor> + Copy + Send + Sync + 'static,
{
    // the handle is made only when a node is recorded: eager calls allocate nothing for it
    let extend = |node: &mut Node| node.product = Some(Arc::new(move |x: &[&Tensor], map: &mut _| op(x, Some(map))));
    let replay = || move |x: &[&Tensor]| op(x, None);
    traced_one(name, NodeKind::Opaque, inputs, || op(inputs, None), replay, |_| None, Draws::Deterministic, extend)
}

/// What `traced_fusable`, `traced_random`, `traced_unary` and `traced_product` share: one output, its node recorded
/// with how it draws, then given what `extend` adds (a product's or a unary op's handles for epilogues).
#[allow(clippy::too_many_arguments)]
fn traced_one<F>(
    name: &'static str,
    kind: NodeKind,
    inputs: &[&Tensor],
    eager: impl FnOnce() -> Result<Tensor>,
    replay: impl FnOnce() -> F,
    kernel: impl FnOnce(&Tensor) -> Option<SliceKernel>,
    draws: Draws,
    extend: impl FnOnce(&mut Node),
) -> Result<Tensor>
where
    F: Fn(&[&Tensor]) -> Result<Tensor> + Send + Sync + 'static,
{
    run_and_record(eager, |out| {
        let run: Replay = Arc::new(replay());
        let kernel = kernel(out).filter(|k| fits(k, inputs, out));
        with_trace(|trace| {
            let (outs, before) = (std::slice::from_ref(out), trace.nodes.len());
            record(trace, name, kind, inputs, outs, Run::One(run), kernel, draws);
            if let Some(node) = trace.nodes.get_mut(before) {
                extend(node);
            }
        });
    })
}

/// `traced` for an op with several outputs (`split`, `max_pool2d`): one node for the op, then one `Output`
/// node for each further output, so that every output has a value id.
pub(crate) fn traced_many<F>(
    name: &'static str,
    inputs: &[&Tensor],
    eager: impl FnOnce() -> Result<Vec<Tensor>>,
    replay: impl FnOnce() -> F,
) -> Result<Vec<Tensor>>
where
    F: Fn(&[&Tensor]) -> Result<Vec<Tensor>> + Send + Sync + 'static,
{
    run_and_record(eager, |outs| {
        let run: ReplayMany = Arc::new(replay());
        with_trace(|trace| {
            record(trace, name, NodeKind::Opaque, inputs, outs, Run::Many(run), None, Draws::Deterministic)
        });
    })
}

/// `traced_many` for an op of two outputs (values and indices: `sort`, `topk`, `max(dim)`).
pub(crate) fn traced_pair<F>(
    name: &'static str,
    inputs: &[&Tensor],
    eager: impl FnOnce() -> Result<Vec<Tensor>>,
    replay: impl FnOnce() -> F,
) -> Result<(Tensor, Tensor)>
where
    F: Fn(&[&Tensor]) -> Result<Vec<Tensor>> + Send + Sync + 'static,
{
    let mut outs = traced_many(name, inputs, eager, replay)?.into_iter();
    match (outs.next(), outs.next()) {
        (Some(first), Some(second)) => Ok((first, second)),
        _ => crate::bail!(Runtime, "{name}() gave fewer than two outputs"),
    }
}

/// Whether a kernel's operands are what the fused loop gives it: the chunks it reads are tensors of the
/// output's dtype (and, for elementwise ops, of its shape or broadcast to it: the loop fills a broadcast operand's
/// chunks, `fuse/reads.rs`), every other operand a real number.
fn fits(kernel: &SliceKernel, inputs: &[&Tensor], out: &Tensor) -> bool {
    let reads = kernel.reads();
    let float = matches!(out.dtype(), DType::F32 | DType::F64);
    float
        && inputs.iter().enumerate().all(|(k, t)| {
            if reads.contains(&k) {
                !t.0.wrapped_number
                    && t.dtype() == out.dtype()
                    && (!kernel.is_elementwise()
                        || crate::layout::broadcast_shapes(t.shape(), out.shape()).is_ok_and(|s| s == out.shape()))
            } else {
                t.0.wrapped_number && !t.is_complex()
            }
        })
}

fn record(
    trace: &mut Trace,
    name: &'static str,
    kind: NodeKind,
    inputs: &[&Tensor],
    outs: &[Tensor],
    run: Run,
    kernel: Option<SliceKernel>,
    draws: Draws,
) {
    if trace.broken.is_some() {
        return;
    }
    if outs.is_empty() {
        trace.broken = Some(format!("{name}() with no outputs cannot be captured"));
        return;
    }
    let mut operands = Vec::with_capacity(inputs.len());
    for t in inputs {
        match trace.ids.get(&Arc::as_ptr(&t.0)) {
            Some(&id) => operands.push(Operand::Value(id)),
            // a Python number: a constant of the graph (callers guard on number arguments)
            None if t.0.wrapped_number && t.grad_fn().is_none() => operands.push(Operand::Constant((*t).clone())),
            // a tensor from before the capture (a closure's, a global's): every replay reads that same tensor, its
            // data as it is then (a leaf that requires grad still gets its gradient)
            None if is_from_before(trace, t) => operands.push(Operand::Constant((*t).clone())),
            None => {
                trace.broken = Some(format!("{name}() reads a tensor that {}", unknown_origin(t)));
                return;
            }
        }
    }
    // the tensors from outside behind the outputs, when they are fixed
    let mut behind: Option<Vec<Tensor>> = (draws == Draws::Deterministic).then(Vec::new);
    for op in &operands {
        let Some(list) = behind.as_mut() else { break };
        match op {
            Operand::Value(id) => match trace.fixed.get(id) {
                Some(more) => more.iter().for_each(|t| add_once(list, t)),
                None => behind = None,
            },
            Operand::Constant(t) if t.0.wrapped_number || trace.literals.contains(&Arc::as_ptr(&t.0)) => {}
            Operand::Constant(t) if !t.requires_grad() => add_once(list, t),
            Operand::Constant(_) => behind = None,
        }
    }
    // an in-place write (torch names in-place ops with a trailing underscore: `copy_`, `add_`, `relu_`)
    if name.ends_with('_') {
        if let Some(Operand::Constant(target)) = operands.first() {
            trace.written.insert(Arc::as_ptr(&target.0));
        }
        // of data that is not fixed: a view taken before may show it, so no value is fixed any more
        if behind.is_none() {
            trace.fixed.clear();
        }
    }
    // the kernel reads graph values and tensors from before the capture (a number read as a chunk would be a
    // broadcast; `fits` keeps numbers out of the reads)
    let chunks = |op: Option<&Operand>| match op {
        Some(Operand::Value(_)) => true,
        Some(Operand::Constant(t)) => !t.0.wrapped_number,
        None => false,
    };
    let mut kernel = kernel.filter(|k| k.reads().iter().all(|&i| chunks(operands.get(i))));
    let grad_enabled = crate::autograd::grad_mode::is_enabled();
    for (k, out) in outs.iter().enumerate() {
        let id = trace.n_inputs + trace.nodes.len();
        trace.ids.insert(Arc::as_ptr(&out.0), id);
        trace.known.push(out.clone());
        if let Some(list) = &behind {
            trace.fixed.insert(id, list.clone());
        }
        let (shape, dtype) = (out.shape().to_vec(), out.dtype());
        let (operands, run, kernel) = if k == 0 {
            (std::mem::take(&mut operands), run.clone(), kernel.take())
        } else {
            (Vec::new(), Run::Output, None)
        };
        let (product, recorder) = (None, None);
        trace.nodes.push(Node { name, kind, operands, run, shape, dtype, kernel, product, recorder, grad_enabled });
    }
}

/// Runs `node`'s replay over `inputs` while another capture is on (a fused chain's forward, run again for its
/// backward's capture), recording it as the node it is: the traced ops its replay calls record nothing, as inside
/// any traced op.
pub(crate) fn run_again(node: &Node, inputs: &[&Tensor], run: impl FnOnce() -> Result<Tensor>) -> Result<Tensor> {
    let (guard, _) = DepthGuard::enter();
    let out = run()?;
    drop(guard);
    with_trace(|trace| {
        let (run, kernel, before) = (node.run.clone(), node.kernel.clone(), trace.nodes.len());
        record(trace, node.name, node.kind, inputs, std::slice::from_ref(&out), run, kernel, Draws::Deterministic);
        if let Some(recorded) = trace.nodes.get_mut(before) {
            (recorded.product, recorded.recorder) = (node.product.clone(), node.recorder.clone());
        }
    });
    Ok(out)
}

/// An op's tensor arguments, some optional (a bias), as a node's operands: the given ones in order, and
/// which were given (captured with the node, so `optional_args` puts them back in their places).
pub(crate) fn operand_list<const N: usize>(args: [Option<&Tensor>; N]) -> (Vec<&Tensor>, [bool; N]) {
    (args.iter().flatten().copied().collect(), args.map(|a| a.is_some()))
}

/// The arguments `operand_list` made operands, back in their places.
pub(crate) fn optional_args<'a, const N: usize>(x: &[&'a Tensor], given: [bool; N]) -> [Option<&'a Tensor>; N] {
    let mut next = x.iter().copied();
    given.map(|g| if g { next.next() } else { None })
}

/// A factory called from Python (`zeros`, `ones`, `full`, `arange`): while a capture runs, a node without
/// operands, so that a tensor a function makes for itself (an LSTM's zero state) is part of its graph.
pub fn factory(
    name: &'static str,
    make: impl Fn() -> Result<Tensor> + Clone + Send + Sync + 'static,
) -> Result<Tensor> {
    let replay = make.clone();
    traced(name, NodeKind::Opaque, &[], make, || move |_: &[&Tensor]| replay())
}

/// `factory` for a random draw (`randn`, `rand`, `bernoulli(p)`): each replay draws anew.
pub fn random_factory(
    name: &'static str,
    make: impl Fn() -> Result<Tensor> + Clone + Send + Sync + 'static,
) -> Result<Tensor> {
    let replay = make.clone();
    traced_random(name, &[], make, || move |_: &[&Tensor]| replay())
}

/// What an effect does to its targets: why a graph has a node that computes nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// an optimizer's update of its parameters and state, in place
    OptimizerStep,
    /// `zero_grad()`: the parameters' `.grad` dropped or zeroed
    ZeroGrad,
}

impl Effect {
    pub fn name(self) -> &'static str {
        match self {
            Effect::OptimizerStep => "optimizer.step",
            Effect::ZeroGrad => "zero_grad",
        }
    }
}

/// A change Python asks for that the ops do not record (an optimizer's update, `zero_grad()`): runs `run` now
/// and, while a capture is on, records a node that runs it again at each replay, after the nodes before it. Its
/// value is `targets[0]` unchanged, so the ops that read the first target afterwards run after it.
pub fn effect(effect: Effect, targets: &[Tensor], run: impl Fn() -> Result<()> + Send + Sync + 'static) -> Result<()> {
    if !ACTIVE.with(Cell::get) || targets.is_empty() {
        return run();
    }
    // shared by the run now and the replays' copies of the closure
    let run = Arc::new(run);
    let once = move |x: &[&Tensor]| run().map(|()| x[0].clone());
    let replay = once.clone();
    let operands: Vec<&Tensor> = targets.iter().collect();
    traced(effect.name(), NodeKind::Opaque, &operands, || once(&operands), || replay).map(drop)
}
