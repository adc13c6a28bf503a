//! Graph nodes: what each holds, how they are made, and how a long chain is freed without recursion.
//!
//! Ownership runs one way, from outputs back to inputs: a tensor owns its grad_fn, a node owns the
//! edges to the nodes of its inputs and the tensors it saved. A saved *output* is stored without its
//! grad_fn (it would point back at this node) and re-attached when unpacked. A leaf owns its `GradMeta`;
//! the leaf's `AccumulateGrad` node holds that meta strongly and the meta holds the node only weakly.
use super::formulas::BackwardOp;
use super::grad_mode;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

static NEXT_SEQUENCE_NR: AtomicU64 = AtomicU64::new(0);

/// Where a gradient flows: input number `input_nr` of `node`, with the shape and dtype the gradient
/// must have when it arrives.
pub struct Edge {
    pub node: Arc<Node>,
    pub input_nr: u32,
    pub shape: Vec<usize>,
    pub dtype: DType,
}

impl Edge {
    pub(crate) fn new(node: Arc<Node>, input_nr: u32, t: &Tensor) -> Edge {
        Edge { node, input_nr, shape: t.shape().to_vec(), dtype: t.dtype() }
    }
}

/// A hook on the gradient of one tensor: may return a replacement.
pub type TensorHook = Arc<dyn Fn(&Tensor) -> Result<Option<Tensor>> + Send + Sync>;
/// A hook on a node's incoming gradients (one per output of the op): may return replacements.
pub type PreHook = Arc<dyn Fn(&[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>> + Send + Sync>;
/// A hook after a node ran, given (gradients for its inputs, gradients of its outputs).
pub type PostHook =
    Arc<dyn Fn(&[Option<Tensor>], &[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>> + Send + Sync>;

static NEXT_HOOK_ID: AtomicU64 = AtomicU64::new(1);

pub fn next_hook_id() -> u64 {
    NEXT_HOOK_ID.fetch_add(1, Ordering::Relaxed)
}

#[derive(Default)]
pub struct GradMeta {
    pub(crate) grad: Mutex<Option<Tensor>>,
    accumulator: Mutex<Weak<Node>>,
    /// Hooks of a leaf's gradient, run before it is accumulated or captured.
    pub(crate) hooks: Mutex<Vec<(u64, TensorHook)>>,
}

impl GradMeta {
    /// The leaf's one AccumulateGrad node, made again if every graph that used it is gone.
    pub(crate) fn accumulator(&self, this: &Arc<GradMeta>) -> Arc<Node> {
        let mut slot = self.accumulator.lock();
        if let Some(node) = slot.upgrade() {
            return node;
        }
        let node = Arc::new(Node::new(BackwardOp::AccumulateGrad(this.clone()), vec![], vec![], u64::MAX));
        *slot = Arc::downgrade(&node);
        node
    }
}

/// A tensor kept for backward, with the storage version it had when saved.
pub struct SavedTensor {
    tensor: Tensor,
    version: u64,
    /// An output of the node that saves it: kept without history, re-attached on unpack.
    is_output: bool,
    /// Saved only for a gradient that is not needed: later in-place writes to it are harmless.
    check_version: bool,
}

impl SavedTensor {
    pub fn input(t: &Tensor) -> SavedTensor {
        SavedTensor { tensor: t.clone(), version: t.version(), is_output: false, check_version: true }
    }
    /// An input that only some gradient needs: version-checked only when `needed`.
    pub fn input_if(needed: bool, t: &Tensor) -> SavedTensor {
        SavedTensor { check_version: needed, ..SavedTensor::input(t) }
    }
    pub fn output(t: &Tensor) -> SavedTensor {
        SavedTensor { tensor: t.detach(), version: t.version(), is_output: true, check_version: true }
    }

    fn unpack(&self, node: &Arc<Node>) -> Result<Tensor> {
        if self.check_version && self.tensor.version() != self.version {
            let t = &self.tensor;
            return Err(Error::Runtime(format!(
                "one of the variables needed for gradient computation has been modified by an inplace operation: \
                    [ferrograd.{} {:?}]{}, is at version {}; expected version {} instead. Hint: enable anomaly \
                    detection to find the operation that failed to compute its gradient, with \
                    ferrograd.autograd.set_detect_anomaly(True).",
                t.dtype().legacy_name(),
                t.shape(),
                if self.is_output { format!(", which is output 0 of {}", node.name()) } else { String::new() },
                t.version(),
                self.version
            )));
        }
        Ok(if self.is_output { self.tensor.clone().with_grad_fn(node.clone()) } else { self.tensor.clone() })
    }
}

enum Saved {
    Live(Vec<SavedTensor>),
    Freed,
}

#[derive(Default)]
pub(crate) struct NodeHooks {
    /// Tensor hooks of this node's outputs, by output number.
    pub(crate) tensor: Vec<(u64, u32, TensorHook)>,
    pub(crate) pre: Vec<(u64, PreHook)>,
    pub(crate) post: Vec<(u64, PostHook)>,
}

impl NodeHooks {
    pub(crate) fn remove(&mut self, id: u64) -> bool {
        let before = self.tensor.len() + self.pre.len() + self.post.len();
        self.tensor.retain(|h| h.0 != id);
        self.pre.retain(|h| h.0 != id);
        self.post.retain(|h| h.0 != id);
        before != self.tensor.len() + self.pre.len() + self.post.len()
    }
}

pub struct Node {
    pub(crate) op: BackwardOp,
    /// One per differentiable input, None where that input needs no gradient.
    pub(crate) next: Vec<Option<Edge>>,
    saved: Mutex<Saved>,
    /// Creation order: later nodes run first in backward.
    pub(crate) sequence_nr: u64,
    /// Boxed so nodes without hooks stay small.
    pub(crate) hooks: Mutex<Option<Box<NodeHooks>>>,
    /// The forward call's traceback, kept in anomaly-detection mode.
    pub(crate) creation_trace: Option<Box<str>>,
    pub(crate) num_outputs: u32,
}

impl Node {
    fn new(op: BackwardOp, next: Vec<Option<Edge>>, saved: Vec<SavedTensor>, sequence_nr: u64) -> Node {
        let creation_trace = if grad_mode::is_anomaly_enabled() {
            grad_mode::creation_trace().map(String::into_boxed_str)
        } else {
            None
        };
        Node {
            op,
            next,
            saved: Mutex::new(Saved::Live(saved)),
            sequence_nr,
            hooks: Mutex::new(None),
            num_outputs: 1,
            creation_trace,
        }
    }

    pub fn add_tensor_hook(&self, output_nr: u32, hook: TensorHook) -> u64 {
        let id = next_hook_id();
        self.hooks.lock().get_or_insert_with(Default::default).tensor.push((id, output_nr, hook));
        id
    }

    pub fn add_pre_hook(&self, hook: PreHook) -> u64 {
        let id = next_hook_id();
        self.hooks.lock().get_or_insert_with(Default::default).pre.push((id, hook));
        id
    }

    pub fn add_post_hook(&self, hook: PostHook) -> u64 {
        let id = next_hook_id();
        self.hooks.lock().get_or_insert_with(Default::default).post.push((id, hook));
        id
    }

    pub fn remove_hook(&self, id: u64) -> bool {
        self.hooks.lock().as_mut().is_some_and(|h| h.remove(id))
    }

    pub(crate) fn has_post_hooks(&self) -> bool {
        self.hooks.lock().as_ref().is_some_and(|h| !h.post.is_empty())
    }

    pub fn num_outputs(&self) -> u32 {
        self.num_outputs
    }

    pub fn name(&self) -> &'static str {
        self.op.name()
    }

    pub fn next_edges(&self) -> &[Option<Edge>] {
        &self.next
    }

    pub fn sequence_nr(&self) -> u64 {
        self.sequence_nr
    }

    /// The saved tensors, checked against their versions; freed after a backward without retain_graph.
    pub(crate) fn unpack_saved(self: &Arc<Self>) -> Result<Vec<Tensor>> {
        match &*self.saved.lock() {
            Saved::Live(saved) => saved.iter().map(|s| s.unpack(self)).collect(),
            Saved::Freed => Err(Error::Runtime(
                "Trying to backward through the graph a second time (or directly access saved tensors after they have \
                    already been freed). Saved intermediate values of the graph are freed when you call .backward() \
                    or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second \
                    time or if you need to access saved tensors after calling backward."
                    .into(),
            )),
        }
    }

    /// Frees saved tensors, but only for nodes that had some (PyTorch lets nodes without saved values
    /// run again).
    pub(crate) fn release_saved(&self) {
        let mut saved = self.saved.lock();
        if matches!(&*saved, Saved::Live(v) if !v.is_empty()) {
            let old = std::mem::replace(&mut *saved, Saved::Freed);
            drop(saved);
            drop_graph(vec![], old.into_tensors());
        }
    }

    /// Moves out everything that could keep other nodes alive.
    fn take_children(&mut self) -> (Vec<Arc<Node>>, Vec<Tensor>) {
        let nodes = self.next.drain(..).flatten().map(|e| e.node).collect();
        let saved = std::mem::replace(self.saved.get_mut(), Saved::Freed).into_tensors();
        (nodes, saved)
    }
}

impl Saved {
    fn into_tensors(self) -> Vec<Tensor> {
        match self {
            Saved::Live(v) => v.into_iter().map(|s| s.tensor).collect(),
            Saved::Freed => vec![],
        }
    }
}

/// Drops nodes and tensors and the graphs behind them with an explicit stack: a million-node chain
/// must not recurse a million frames deep. Each node taken here is emptied before it drops, so its own
/// `Drop` finds nothing left to do.
fn drop_graph(mut nodes: Vec<Arc<Node>>, mut tensors: Vec<Tensor>) {
    loop {
        while let Some(t) = tensors.pop() {
            if let Some(mut imp) = Arc::into_inner(t.0) {
                nodes.extend(imp.grad_fn.take());
            }
        }
        let Some(n) = nodes.pop() else { return };
        if let Some(mut node) = Arc::into_inner(n) {
            let (more_nodes, more_tensors) = node.take_children();
            nodes.extend(more_nodes);
            tensors.extend(more_tensors);
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let (nodes, tensors) = self.take_children();
        if !nodes.is_empty() || !tensors.is_empty() {
            drop_graph(nodes, tensors);
        }
    }
}

/// Attaches history to a freshly computed `out` when grad mode is on and an input requires grad.
/// `op` and `saved` are closures so nothing is built for tensors that need no gradient.
pub(crate) fn record(
    out: Tensor,
    inputs: &[&Tensor],
    op: impl FnOnce() -> BackwardOp,
    saved: impl FnOnce(&Tensor) -> Vec<SavedTensor>,
) -> Tensor {
    if !grad_mode::is_enabled() || !inputs.iter().any(|t| t.requires_grad()) {
        return out;
    }
    let next = inputs.iter().map(|t| if t.requires_grad() { t.gradient_edge() } else { None }).collect();
    let saved = saved(&out);
    let seq = NEXT_SEQUENCE_NR.fetch_add(1, Ordering::Relaxed);
    let node = Arc::new(Node::new(op(), next, saved, seq));
    out.with_grad_fn(node)
}

/// Attaches one node to several outputs (output `i` gets `output_nr` i): custom functions with many outputs.
pub(crate) fn record_outputs(
    outputs: Vec<Tensor>,
    inputs: &[&Tensor],
    op: BackwardOp,
    saved: Vec<SavedTensor>,
) -> Vec<Tensor> {
    if !grad_mode::is_enabled() || !inputs.iter().any(|t| t.requires_grad()) {
        return outputs;
    }
    let next = inputs.iter().map(|t| if t.requires_grad() { t.gradient_edge() } else { None }).collect();
    let seq = NEXT_SEQUENCE_NR.fetch_add(1, Ordering::Relaxed);
    let mut node = Node::new(op, next, saved, seq);
    node.num_outputs = outputs.len() as u32;
    let node = Arc::new(node);
    outputs.into_iter().enumerate().map(|(i, t)| t.with_grad_fn_nr(node.clone(), i as u32)).collect()
}
