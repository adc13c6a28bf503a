//! Graph nodes: what each holds, how they are made, and how a long chain is freed without recursion.
//!
//! Ownership runs one way, from outputs back to inputs: a tensor owns its grad_fn, a node owns the
//! edges to the nodes of its inputs and its rule, which owns the tensors it saved. A saved *output* is
//! stored without its grad_fn (it would point back at this node) and re-attached when unpacked. A leaf
//! owns its `GradMeta`; the leaf's `AccumulateGrad` node holds that meta strongly and the meta holds the
//! node only weakly.
//!
//! A rule maps the gradient of the op's output to the gradients of its inputs, written with the same
//! differentiable tensor ops as the forward pass, so `create_graph=True` differentiates it again.
//! Rules return gradients shaped like the broadcast output; the engine sums them down to each input's
//! shape and casts them to its dtype, once, for every op.
use super::grad_mode;
use super::saved::{Field, Fields, RuleName, SavedTensor};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use parking_lot::Mutex;
use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

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
/// A hook run after a leaf's `.grad` took a new sum (it reads the leaf through its own handle).
pub type PostAccumulateHook = Arc<dyn Fn() -> Result<()> + Send + Sync>;
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

/// One gradient per input of the op; None where the input needs none (or gets none).
pub type Grads = Vec<Option<Tensor>>;

/// A backward rule: its PyTorch name and its gradient. Its fields (`Fields`, from `backward_rule!`)
/// are the tensors and arguments it keeps, named as PyTorch names them.
pub trait Backward: Fields + RuleName + Any + Send + Sync {
    /// The `grad_fn` name, e.g. `"MulBackward0"`: the one `backward_rule!` declared, unless overridden.
    fn name(&self) -> &'static str {
        self.rule_name()
    }

    /// The inputs' gradients from `grad`, the gradient of the op's (single) output.
    fn apply(&self, ctx: &Ctx<'_>, grad: &Tensor) -> Result<Grads>;

    /// The inputs' gradients from those of every output (None where an output got none). Rules with
    /// several outputs (split, custom functions) override this; the others see their one gradient.
    fn apply_outputs(&self, ctx: &Ctx<'_>, grads: &[Option<Tensor>]) -> Result<Grads> {
        match grads.first() {
            Some(Some(g)) => self.apply(ctx, g),
            _ => Ok(vec![]),
        }
    }
}

/// What a running rule may ask of its node.
pub struct Ctx<'a> {
    pub(crate) node: &'a Arc<Node>,
}

impl Ctx<'_> {
    /// Whether input `i` wants a gradient (it requires grad).
    pub fn needs(&self, i: usize) -> bool {
        self.node.next.get(i).is_some_and(Option::is_some)
    }

    /// `f()` if input `i` wants a gradient, else None.
    pub fn grad_if(&self, i: usize, f: impl FnOnce() -> Result<Tensor>) -> Result<Option<Tensor>> {
        if self.needs(i) {
            f().map(Some)
        } else {
            Ok(None)
        }
    }

    /// A saved tensor, version-checked (saved outputs get this node back as their grad_fn).
    pub fn unpack(&self, saved: &SavedTensor) -> Result<Tensor> {
        saved.unpack(self.node.name(), |t| t.with_grad_fn_nr(self.node.clone(), saved.output_nr()))
    }

    /// An optional saved tensor.
    pub fn unpack_opt(&self, saved: &Option<SavedTensor>) -> Result<Option<Tensor>> {
        saved.as_ref().map(|s| self.unpack(s)).transpose()
    }

    pub fn num_inputs(&self) -> usize {
        self.node.next.len()
    }

    /// A post hook sees the gradient of each input separately, so they must not be merged.
    pub fn has_post_hooks(&self) -> bool {
        self.node.has_post_hooks()
    }
}

/// One gradient for the op's one input.
pub fn one(t: Result<Tensor>) -> Result<Grads> {
    t.map(|t| vec![Some(t)])
}

/// A node of the backward graph: where its gradients go (`next`), when it runs, its hooks, and its
/// rule, stored inline as the node's last field. Nodes are made as `Arc<Node<SomeRule>>` and used as
/// `Arc<Node>` (`Node<dyn Backward>`): one allocation per node, and one virtual call per backward.
pub struct Node<R: ?Sized + Backward = dyn Backward> {
    /// One per differentiable input, None where that input needs no gradient.
    pub(crate) next: Vec<Option<Edge>>,
    /// Creation order: later nodes run first in backward.
    pub(crate) sequence_nr: u64,
    /// Boxed so nodes without hooks stay small.
    pub(crate) hooks: Mutex<Option<Box<NodeHooks>>>,
    /// The forward call's traceback, kept in anomaly-detection mode.
    pub(crate) creation_trace: Option<Box<str>>,
    pub(crate) num_outputs: u32,
    pub(crate) rule: R,
}

impl<R: Backward> Node<R> {
    pub(crate) fn new(next: Vec<Option<Edge>>, sequence_nr: u64, rule: R) -> Node<R> {
        let creation_trace = if grad_mode::is_anomaly_enabled() {
            grad_mode::creation_trace().map(String::into_boxed_str)
        } else {
            None
        };
        Node { next, sequence_nr, hooks: Mutex::new(None), creation_trace, num_outputs: 1, rule }
    }
}

impl Node {
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
        self.rule.name()
    }

    pub fn next_edges(&self) -> &[Option<Edge>] {
        &self.next
    }

    pub fn sequence_nr(&self) -> u64 {
        self.sequence_nr
    }

    /// A tensor this node saved, as `grad_fn._saved_<name>` shows it: version-checked, and a saved
    /// output with this node as its grad_fn.
    pub fn unpack_saved(self: &Arc<Self>, saved: &SavedTensor) -> Result<Tensor> {
        Ctx { node: self }.unpack(saved)
    }

    /// After an in-place op wrote `out` (this node's output) into `target`: a saved copy of `out` now
    /// watches `target`, whose later writes must fail the backward.
    pub(crate) fn rebind_saved_output(&self, out: &Tensor, target: &Tensor) {
        self.rule.fields(&mut |_, f| {
            if let Field::Tensor(Some(s)) = f {
                if s.peek().is_some_and(|kept| kept.same_storage(out)) {
                    s.rebind_output(target);
                }
            }
        });
    }

    /// The rule this node runs.
    pub fn rule(&self) -> &dyn Backward {
        &self.rule
    }

    /// Frees the rule's saved tensors (after a backward without retain_graph).
    pub(crate) fn release_saved(&self) {
        let mut tensors = Vec::new();
        self.rule.fields(&mut |_, f| collect_saved(f, &mut tensors));
        if !tensors.is_empty() {
            drop_graph(vec![], tensors);
        }
    }
}

/// Takes out the tensors a field keeps.
fn collect_saved(field: Field<'_>, into: &mut Vec<Tensor>) {
    match field {
        Field::Tensor(Some(s)) => into.extend(s.release()),
        Field::Tensors(ts) => into.extend(ts.iter().filter_map(|s| s.release())),
        _ => {}
    }
}

impl<R: ?Sized + Backward> Node<R> {
    /// Moves out everything that could keep other nodes alive.
    fn take_children(&mut self) -> (Vec<Arc<Node>>, Vec<Tensor>) {
        let nodes = self.next.drain(..).flatten().map(|e| e.node).collect();
        let mut saved = Vec::new();
        self.rule.fields(&mut |_, f| collect_saved(f, &mut saved));
        (nodes, saved)
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
        let Some(mut n) = nodes.pop() else { return };
        // the last handle: empty it here; a node still shared (or one an accumulator slot still
        // names weakly, which holds no other node) just drops its handle
        if let Some(node) = Arc::get_mut(&mut n) {
            let (more_nodes, more_tensors) = node.take_children();
            nodes.extend(more_nodes);
            tensors.extend(more_tensors);
        }
    }
}

impl<R: ?Sized + Backward> Drop for Node<R> {
    fn drop(&mut self) {
        let (nodes, tensors) = self.take_children();
        if !nodes.is_empty() || !tensors.is_empty() {
            drop_graph(nodes, tensors);
        }
    }
}

/// The gradient edges of an op's inputs (None for those that need no gradient).
fn input_edges(inputs: &[&Tensor]) -> Vec<Option<Edge>> {
    inputs.iter().map(|t| if t.requires_grad() { t.gradient_edge() } else { None }).collect()
}

fn needs_history(inputs: &[&Tensor]) -> bool {
    let (grad, capture_shapes) = grad_mode::recording_state();
    if capture_shapes {
        crate::profiler::capture_input_shapes(inputs);
    }
    grad && inputs.iter().any(|t| t.requires_grad())
}

/// Attaches history to a freshly computed `out` when grad mode is on and an input requires grad.
/// `rule` is a closure (given `out`, for rules that save it) so nothing is built for tensors that need
/// no gradient.
pub(crate) fn record<R: Backward>(out: Tensor, inputs: &[&Tensor], rule: impl FnOnce(&Tensor) -> R) -> Tensor {
    if !needs_history(inputs) {
        return out;
    }
    let rule = rule(&out);
    let seq = NEXT_SEQUENCE_NR.fetch_add(1, Ordering::Relaxed);
    let node: Arc<Node> = Arc::new(Node::new(input_edges(inputs), seq, rule));
    out.with_grad_fn(node)
}

/// Attaches one node to several outputs (output `i` gets `output_nr` i): split, custom functions.
pub(crate) fn record_outputs<R: Backward>(outputs: Vec<Tensor>, inputs: &[&Tensor], rule: R) -> Vec<Tensor> {
    if !needs_history(inputs) {
        return outputs;
    }
    let seq = NEXT_SEQUENCE_NR.fetch_add(1, Ordering::Relaxed);
    let mut node = Node::new(input_edges(inputs), seq, rule);
    node.num_outputs = outputs.len() as u32;
    let node: Arc<Node> = Arc::new(node);
    outputs.into_iter().enumerate().map(|(i, t)| t.with_grad_fn_nr(node.clone(), i as u32)).collect()
}
