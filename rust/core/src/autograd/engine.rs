//! The backward pass: count each node's dependencies, then run nodes from a ready queue ordered by
//! sequence number (created later → runs first; AccumulateGrad before anything), summing the
//! gradients that reach one input along several edges. Iterative throughout.
//!
//! `autograd.grad` and `backward(inputs=...)` capture gradients at chosen edges instead: only the
//! nodes on a path from the roots to those edges run, and no AccumulateGrad runs.
use super::grad_mode::{self, GradModeGuard};
use super::leaf::{AccumulateGrad, GradMeta};
use super::node::{Ctx, Edge, Node};
use crate::bail;
use crate::error::{Error, Result};
use crate::profiler::{self, EventKind};
use crate::tensor::Tensor;
use rustc_hash::FxHashMap as HashMap;
use std::any::Any;
use std::collections::BinaryHeap;
use std::sync::Arc;

/// A node's address, without the vtable half of `*const Node`.
type NodeId = *const ();

fn node_id(node: &Arc<Node>) -> NodeId {
    Arc::as_ptr(node) as *const ()
}

/// `torch.autograd.backward`: accumulates d(roots)/d(leaf) into `.grad` of every leaf, or only of
/// `inputs` when given. `grads[i]` is the gradient of `roots[i]`; None is allowed for one-element roots.
/// (`autograd::backward` calls it, or records it while a capture runs: `captured.rs`.)
pub(super) fn backward(
    roots: &[Tensor],
    grads: &[Option<Tensor>],
    retain_graph: bool,
    create_graph: bool,
    inputs: Option<&[Tensor]>,
) -> Result<()> {
    let start = root_gradients(roots, grads)?;
    let Some(inputs) = inputs else {
        run(start, None, retain_graph, create_graph)?;
        return Ok(());
    };
    if inputs.is_empty() {
        bail!(Runtime, "'inputs' argument to backward() cannot be empty.");
    }
    let targets = input_edges(inputs, "One of the differentiated Tensors does not require grad")?;
    let captured = run(start, Some(&targets), retain_graph, create_graph)?;
    // Leaves accumulate here; a non-leaf input that retains its gradient got it from its retain hook.
    for (t, g) in inputs.iter().zip(captured) {
        if let (Some(g), Some(meta), true) = (g, &t.0.meta, t.is_leaf()) {
            accumulate_grad(meta, g, create_graph)?;
            meta.run_post_accumulate_hooks()?;
        }
    }
    Ok(())
}

/// `torch.autograd.grad`: the gradients of `outputs` with respect to `inputs`, leaving `.grad` alone.
pub(crate) fn grad(
    outputs: &[Tensor],
    grad_outputs: &[Option<Tensor>],
    inputs: &[Tensor],
    retain_graph: bool,
    create_graph: bool,
    allow_unused: bool,
) -> Result<Vec<Option<Tensor>>> {
    let start = root_gradients(outputs, grad_outputs)?;
    let targets = input_edges(inputs, "One of the differentiated Tensors does not require grad")?;
    let captured = run(start, Some(&targets), retain_graph, create_graph)?;
    if !allow_unused && captured.iter().any(|g| g.is_none()) {
        bail!(
            Runtime,
            "One of the differentiated Tensors appears to not have been used in the graph. Set \
            allow_unused=True if this is the desired behavior."
        );
    }
    Ok(captured)
}

fn input_edges(inputs: &[Tensor], msg: &str) -> Result<Vec<Edge>> {
    inputs.iter().map(|t| t.gradient_edge().ok_or_else(|| Error::Runtime(msg.to_string()))).collect()
}

fn root_gradients(roots: &[Tensor], grads: &[Option<Tensor>]) -> Result<Vec<(Edge, Tensor)>> {
    if grads.len() != roots.len() && !grads.is_empty() {
        bail!(Runtime, "got {} tensors and {} gradients", roots.len(), grads.len());
    }
    let mut start = Vec::with_capacity(roots.len());
    for (i, root) in roots.iter().enumerate() {
        let Some(edge) = root.gradient_edge() else {
            bail!(Runtime, "element {i} of tensors does not require grad and does not have a grad_fn");
        };
        let grad = match grads.get(i).cloned().flatten() {
            Some(g) => {
                if g.shape() != root.shape() {
                    bail!(
                        Runtime,
                        "Mismatch in shape: grad_output[{i}] has a shape of {} and output[{i}] has a shape of {}.",
                        size_str(g.shape()),
                        size_str(root.shape())
                    );
                }
                if g.dtype() != root.dtype() {
                    g.to_dtype(root.dtype())?
                } else {
                    g
                }
            }
            None => {
                if root.numel() != 1 {
                    bail!(Runtime, "grad can be implicitly created only for scalar outputs");
                }
                if root.is_complex() {
                    bail!(
                        Runtime,
                        "grad can be implicitly created only for real scalar outputs but got torch.{}",
                        root.dtype().name()
                    );
                }
                Tensor::ones(root.shape(), root.dtype())
            }
        };
        start.push((edge, grad));
    }
    Ok(start)
}

fn size_str(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("ferrograd.Size([{}])", dims.join(", "))
}

/// One node of a graph task, with its place in the walk.
struct NodeState {
    node: Arc<Node>,
    /// Edges from running nodes still to deliver their gradient here.
    remaining: usize,
    /// Whether the node's backward runs (always, unless capturing and it leads to no target).
    runs: bool,
    /// Gradients arrived so far, one slot per output of the node.
    buffer: Vec<Option<Tensor>>,
}

/// The nodes reachable from the roots, numbered, with an index from node to number.
struct GraphTask {
    index: HashMap<NodeId, usize>,
    states: Vec<NodeState>,
}

impl GraphTask {
    fn discover(roots: &[&Arc<Node>]) -> GraphTask {
        let mut task = GraphTask { index: HashMap::default(), states: Vec::new() };
        let mut stack: Vec<Arc<Node>> = Vec::new();
        for r in roots {
            if task.insert(r) {
                stack.push((*r).clone());
            }
        }
        while let Some(node) = stack.pop() {
            for edge in node.next.iter().flatten() {
                if task.insert(&edge.node) {
                    stack.push(edge.node.clone());
                }
            }
        }
        task
    }

    fn insert(&mut self, node: &Arc<Node>) -> bool {
        let id = node_id(node);
        if self.index.contains_key(&id) {
            return false;
        }
        self.index.insert(id, self.states.len());
        self.states.push(NodeState { node: node.clone(), remaining: 0, runs: true, buffer: Vec::new() });
        true
    }

    fn slot(&self, node: &Arc<Node>) -> usize {
        self.index[&node_id(node)]
    }

    /// When capturing, only nodes with a path down to a target run. Children are created before
    /// their parents, so visiting by ascending sequence number sees every child first.
    fn restrict_to(&mut self, targets: &[Edge]) {
        let mut leads = vec![false; self.states.len()];
        for t in targets {
            // a target the roots cannot reach just receives no gradient
            if let Some(&i) = self.index.get(&node_id(&t.node)) {
                leads[i] = true;
            }
        }
        let mut order: Vec<usize> = (0..self.states.len()).collect();
        order.sort_by_key(|&i| self.states[i].node.sequence_nr);
        for i in order {
            let runs = self.states[i].node.next.iter().flatten().any(|e| leads[self.index[&node_id(&e.node)]]);
            self.states[i].runs = runs;
            leads[i] |= runs;
        }
    }

    fn count_dependencies(&mut self) {
        for i in 0..self.states.len() {
            if !self.states[i].runs {
                continue;
            }
            let node = self.states[i].node.clone();
            for edge in node.next.iter().flatten() {
                let c = self.slot(&edge.node);
                self.states[c].remaining += 1;
            }
        }
    }
}

/// Runs the graph task; with `targets`, returns the gradient that reached each target edge.
fn run(
    start: Vec<(Edge, Tensor)>,
    targets: Option<&[Edge]>,
    retain_graph: bool,
    create_graph: bool,
) -> Result<Vec<Option<Tensor>>> {
    let _mode = GradModeGuard::new(create_graph);
    let roots: Vec<&Arc<Node>> = start.iter().map(|(e, _)| &e.node).collect();
    let mut task = GraphTask::discover(&roots);
    if let Some(targets) = targets {
        task.restrict_to(targets);
    }
    task.count_dependencies();
    let mut target_slots: HashMap<(usize, u32), Vec<usize>> = HashMap::default();
    for (i, e) in targets.unwrap_or(&[]).iter().enumerate() {
        if let Some(&slot) = task.index.get(&node_id(&e.node)) {
            target_slots.entry((slot, e.input_nr)).or_default().push(i);
        }
    }
    let mut captured: Vec<Option<Tensor>> = vec![None; targets.map_or(0, |t| t.len())];

    // Ready nodes by sequence number, highest (created last) first.
    let mut ready: BinaryHeap<(u64, usize)> = BinaryHeap::new();
    let mut queued = vec![false; task.states.len()];
    for (edge, grad) in start {
        let i = task.slot(&edge.node);
        accumulate_input(&mut task.states[i].buffer, edge.input_nr, grad)?;
        if task.states[i].remaining == 0 && !queued[i] {
            queued[i] = true;
            ready.push((edge.node.sequence_nr, i));
        }
    }
    while let Some((_, i)) = ready.pop() {
        let node = task.states[i].node.clone();
        let mut grads = std::mem::take(&mut task.states[i].buffer);
        grads.resize(node.num_outputs.max(1) as usize, None);
        run_pre_hooks(&node, &mut grads)?;
        if !target_slots.is_empty() {
            for (nr, g) in grads.iter().enumerate() {
                for &slot in target_slots.get(&(i, nr as u32)).map(Vec::as_slice).unwrap_or(&[]) {
                    captured[slot] = g.clone();
                }
            }
        }
        if !task.states[i].runs {
            continue;
        }
        let outputs = if profiler::is_enabled() {
            evaluate_profiled(&node, grads, retain_graph, create_graph)?
        } else {
            evaluate(&node, grads, retain_graph, create_graph)?
        };
        for (k, edge) in node.next.iter().enumerate() {
            let Some(edge) = edge else { continue };
            let c = task.slot(&edge.node);
            if let Some(Some(g)) = outputs.get(k) {
                accumulate_input(&mut task.states[c].buffer, edge.input_nr, conform(g, edge)?)?;
            }
            let state = &mut task.states[c];
            state.remaining -= 1;
            if state.remaining == 0 {
                ready.push((edge.node.sequence_nr, c));
            }
        }
    }
    Ok(captured)
}

/// The leaf an `AccumulateGrad` node feeds (the engine runs its hooks and fills its `.grad`).
fn leaf(node: &Node) -> Option<&Arc<GradMeta>> {
    let rule: &dyn Any = &node.rule;
    rule.downcast_ref::<AccumulateGrad>().map(|a| &a.variable)
}

/// Tensor hooks (a leaf's, or those of this node's outputs), then the node's pre-hooks.
fn run_pre_hooks(node: &Arc<Node>, grads: &mut [Option<Tensor>]) -> Result<()> {
    if let Some(meta) = leaf(node) {
        let hooks: Vec<_> = meta.hooks.lock().iter().map(|(_, h)| h.clone()).collect();
        if let Some(g) = grads.get_mut(0) {
            for hook in hooks {
                if let Some(cur) = g.as_ref() {
                    if let Some(new) = hook(cur)? {
                        *g = Some(new);
                    }
                }
            }
        }
    }
    let (tensor_hooks, pre_hooks) = match &*node.hooks.lock() {
        None => return Ok(()),
        Some(h) => (h.tensor.clone(), h.pre.clone()),
    };
    for (_, nr, hook) in tensor_hooks {
        if let Some(Some(cur)) = grads.get(nr as usize) {
            if let Some(new) = hook(cur)? {
                grads[nr as usize] = Some(new);
            }
        }
    }
    for (_, hook) in pre_hooks {
        if let Some(new) = hook(grads)? {
            for (slot, g) in grads.iter_mut().zip(new) {
                *slot = g;
            }
        }
    }
    Ok(())
}

/// Sums a gradient into slot `input_nr` of a node's input buffer.
fn accumulate_input(slots: &mut Vec<Option<Tensor>>, input_nr: u32, grad: Tensor) -> Result<()> {
    let i = input_nr as usize;
    if slots.len() <= i {
        slots.resize(i + 1, None);
    }
    slots[i] = Some(match slots[i].take() {
        None => grad,
        Some(prev) => sum_gradients(prev, grad)?,
    });
    Ok(())
}

/// `a + b`. When the sum is not recorded, it is written into whichever of the two nothing else can see
/// (a gradient just made by a backward rule, usually), saving an allocation and a pass over fresh memory.
fn sum_gradients(a: Tensor, b: Tensor) -> Result<Tensor> {
    // (not while a capture traces the rules: the sum must be a recorded op)
    if !grad_mode::is_enabled() && !a.requires_grad() && !b.requires_grad() && !crate::compile::is_capturing() {
        if a.is_unique_dense() && a.add_dense_in_place(&b) {
            return Ok(a);
        }
        if b.is_unique_dense() && b.add_dense_in_place(&a) {
            return Ok(b);
        }
    }
    a.add(&b)
}

/// Brings a gradient to the shape and dtype of the input it flows into (undoing broadcasting).
fn conform(g: &Tensor, edge: &Edge) -> Result<Tensor> {
    let mut g = g.clone();
    if g.shape() != edge.shape.as_slice() {
        g =
            g.sum_to_size(&edge.shape).map_err(|_| {
                Error::Runtime(format!(
                "Function {} returned an invalid gradient at index {} - got {:?} but expected shape compatible with \
                    {:?}",
                edge.node.name(), edge.input_nr, g.shape(), edge.shape
            ))
            })?;
    }
    if g.is_complex() && !edge.dtype.is_complex() {
        // a real input's gradient is the real part of a complex one (torch's validate_outputs)
        g = g.real_part()?;
    }
    if g.dtype() != edge.dtype {
        g = g.to_dtype(edge.dtype)?;
    }
    Ok(g)
}

fn evaluate(
    node: &Arc<Node>,
    grads: Vec<Option<Tensor>>,
    retain_graph: bool,
    create_graph: bool,
) -> Result<Vec<Option<Tensor>>> {
    if let Some(meta) = leaf(node) {
        if let Some(Some(g)) = grads.into_iter().next() {
            let incoming = accumulate_grad(meta, g, create_graph)?;
            meta.run_post_accumulate_hooks()?;
            // As in PyTorch, an AccumulateGrad's post-hooks run once `.grad` holds the new sum, with no
            // grad_inputs and the incoming gradient as grad_outputs (DistributedDataParallel hangs on them).
            run_post_hooks(node, vec![], &[Some(incoming)])?;
        }
        return Ok(vec![]);
    }
    if grads.iter().all(|g| g.is_none()) {
        return Ok(vec![]);
    }
    let out = node.rule.apply_outputs(&Ctx { node }, &grads);
    if !retain_graph {
        node.release_saved();
    }
    let out = out.map_err(|e| with_anomaly_trace(node, e))?;
    if grad_mode::is_anomaly_enabled() && grad_mode::is_anomaly_check_nan_enabled() {
        for (i, g) in out.iter().enumerate() {
            if g.as_ref().is_some_and(|g| g.dtype().is_float() && g.to_vec::<f64>().iter().any(|v| v.is_nan())) {
                let e =
                    Error::Runtime(format!("Function '{}' returned nan values in its {}th output.", node.name(), i));
                return Err(with_anomaly_trace(node, e));
            }
        }
    }
    run_post_hooks(node, out, &grads)
}

/// `evaluate` inside PyTorch's two ranges: the engine's (`autograd::engine::evaluate_function: <node>`) and the
/// node's own, which has the incoming gradients' shapes as its inputs.
fn evaluate_profiled(
    node: &Arc<Node>,
    grads: Vec<Option<Tensor>>,
    retain_graph: bool,
    create_graph: bool,
) -> Result<Vec<Option<Tensor>>> {
    let seq = if leaf(node).is_some() { -1 } else { node.sequence_nr as i64 };
    let mut engine = profiler::Range::start(node.name(), EventKind::EvaluateFunction).with_sequence_nr(seq);
    let mut rule = profiler::Range::start(node.name(), EventKind::BackwardRule).with_sequence_nr(seq);
    if profiler::records_shapes() {
        engine.set_input_shapes(vec![]);
        rule.set_input_shapes(grads.iter().map(|g| g.as_ref().map_or_else(Vec::new, |g| g.shape().to_vec())).collect());
    }
    evaluate(node, grads, retain_graph, create_graph)
}

/// A node's post-hooks, in registration order; each may replace the results.
fn run_post_hooks(node: &Node, mut out: Vec<Option<Tensor>>, grads: &[Option<Tensor>]) -> Result<Vec<Option<Tensor>>> {
    let post_hooks = node.hooks.lock().as_ref().map(|h| h.post.clone()).unwrap_or_default();
    for (_, hook) in post_hooks {
        if let Some(new) = hook(&out, grads)? {
            out = new;
        }
    }
    Ok(out)
}

/// In anomaly mode, a failing node's error names it and shows where the forward pass created it.
fn with_anomaly_trace(node: &Node, e: Error) -> Error {
    match (&node.creation_trace, e) {
        (Some(trace), Error::Runtime(msg)) => Error::Runtime(format!(
            "{msg}\n\nError detected in {}. Traceback of forward call that caused the error:\n{trace}",
            node.name()
        )),
        (_, e) => e,
    }
}

/// `.grad` takes over the first gradient (unless something else still uses its memory) and adds later
/// ones: in place normally, out of place under create_graph so the old gradient's graph survives.
/// Returns the incoming gradient (for the node's post-hooks).
pub(crate) fn accumulate_grad(meta: &GradMeta, g: Tensor, create_graph: bool) -> Result<Tensor> {
    let mut slot = meta.grad.lock();
    let g = if create_graph { g } else { g.detach_unique() };
    let (sum, incoming) = match slot.take() {
        None => {
            let g = if create_graph || g.is_contiguous() { g } else { g.contiguous_copy()? };
            (g.clone(), g)
        }
        Some(prev) if create_graph => (prev.add(&g)?, g),
        Some(prev) => {
            prev.add_assign_data(&g)?;
            (prev, g)
        }
    };
    *slot = Some(sum);
    Ok(incoming)
}

#[cfg(test)]
mod tests {
    use crate::{DType, Tensor};
    use std::sync::Arc;

    fn leaf(values: Vec<f64>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(values, shape).unwrap().with_requires_grad(true).unwrap()
    }

    #[test]
    fn tutorial_gradient_is_four_and_a_half() {
        let x = Tensor::ones(&[2, 2], DType::F32).with_requires_grad(true).unwrap();
        let y = x.add(&Tensor::scalar(2.0)).unwrap();
        let z = y.mul(&y).unwrap().mul(&Tensor::scalar(3.0)).unwrap();
        let out = z.mean(None, false).unwrap();
        assert_eq!(out.grad_fn().unwrap().name(), "MeanBackward0");
        super::backward(&[out], &[None], false, false, None).unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f32>(), vec![4.5; 4]);
    }

    #[test]
    fn gradients_accumulate_and_broadcast_reduces() {
        let a = leaf(vec![1.0, 2.0, 3.0], &[3, 1]);
        let b = leaf(vec![10.0, 20.0], &[1, 2]);
        let s = a.mul(&b).unwrap().sum(None, false).unwrap();
        super::backward(std::slice::from_ref(&s), &[None], true, false, None).unwrap();
        super::backward(&[s], &[None], false, false, None).unwrap();
        assert_eq!(a.grad().unwrap().to_vec::<f64>(), vec![60.0; 3]);
        assert_eq!(b.grad().unwrap().to_vec::<f64>(), vec![12.0, 12.0]);
    }

    #[test]
    fn square_gradient_matches_the_recorded_formula_bit_for_bit() {
        let xs: Vec<f32> = (0..3000).map(|i| (i as f32 * 0.37).sin() * 3.0).collect();
        let ws: Vec<f32> = (0..3000).map(|i| (i as f32 * 0.11).cos()).collect();
        let x = Tensor::from_vec(xs.clone(), &[3000]).unwrap().with_requires_grad(true).unwrap();
        let w = Tensor::from_vec(ws.clone(), &[3000]).unwrap();
        let loss = || x.mul(&x).unwrap().mul(&w).unwrap().sum(None, false).unwrap();
        super::backward(&[loss()], &[None], false, false, None).unwrap();
        let fused = x.grad().unwrap().to_vec::<f32>();
        x.set_grad(None).unwrap();
        super::backward(&[loss()], &[None], false, true, None).unwrap();
        let recorded = x.grad().unwrap().to_vec::<f32>();
        let want: Vec<f32> = xs.iter().zip(&ws).map(|(x, w)| w * x + w * x).collect();
        assert_eq!(fused, recorded);
        assert_eq!(fused, want);
    }

    #[test]
    fn gradient_sums_write_only_into_fresh_gradients() {
        let x = leaf(vec![1.0, 2.0, 3.0], &[3]);
        let g = Tensor::from_vec(vec![1.0f64, 10.0, 100.0], &[3]).unwrap();
        super::backward(&[x.add(&x).unwrap()], &[Some(g.clone())], false, false, None).unwrap();
        assert_eq!(g.to_vec::<f64>(), vec![1.0, 10.0, 100.0]);
        assert_eq!(x.grad().unwrap().to_vec::<f64>(), vec![2.0, 20.0, 200.0]);
        // two fresh products, summed in place, then added in place into the existing .grad
        let y = x.mul(&Tensor::scalar(2.0)).unwrap().add(&x.mul(&Tensor::scalar(3.0)).unwrap()).unwrap();
        let held = x.grad().unwrap();
        super::backward(&[y], &[Some(g.clone())], false, false, None).unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f64>(), vec![7.0, 70.0, 700.0]);
        assert_eq!(held.to_vec::<f64>(), vec![7.0, 70.0, 700.0], ".grad accumulates in place, as in torch");
        assert_eq!(g.to_vec::<f64>(), vec![1.0, 10.0, 100.0]);
    }

    #[test]
    fn second_backward_without_retain_graph_fails() {
        let x = leaf(vec![1.0, 2.0], &[2]);
        let y = x.exp().unwrap().sum(None, false).unwrap();
        super::backward(std::slice::from_ref(&y), &[None], false, false, None).unwrap();
        let err = super::backward(&[y], &[None], false, false, None).unwrap_err();
        assert!(err.to_string().starts_with("Trying to backward through the graph a second time"));
    }

    #[test]
    fn create_graph_gives_second_derivative() {
        // d²/dx² x³ = 6x
        let x = leaf(vec![2.0], &[1]);
        let y = x.pow(&Tensor::scalar(3.0)).unwrap().sum(None, false).unwrap();
        super::backward(&[y], &[None], false, true, None).unwrap();
        let g = x.grad().unwrap();
        assert_eq!(g.to_vec::<f64>(), vec![12.0]);
        x.set_grad(None).unwrap();
        super::backward(&[g.sum(None, false).unwrap()], &[None], false, false, None).unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f64>(), vec![12.0]);
    }

    #[test]
    fn million_node_chain_backs_up_and_drops_without_recursion() {
        let x = leaf(vec![0.5], &[1]);
        let mut y = x.clone();
        for _ in 0..1_000_000 {
            y = y.add(&Tensor::scalar(1.0)).unwrap();
        }
        super::backward(&[y.sum(None, false).unwrap()], &[None], false, false, None).unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f64>(), vec![1.0]);
        drop(y);
    }

    #[test]
    fn saved_output_modified_in_place_is_detected() {
        let x = leaf(vec![1.0, 2.0], &[2]);
        let y = x.exp().unwrap();
        y.copy_from(&Tensor::scalar(0.0)).unwrap();
        let err = super::backward(&[y.sum(None, false).unwrap()], &[None], false, false, None).unwrap_err();
        assert!(err.to_string().contains("which is output 0 of Exp, is at version 1; expected version 0"));
    }

    #[test]
    fn accumulate_grad_post_hooks_see_the_updated_grad_and_the_incoming_gradient() {
        use std::sync::Mutex;
        let x = leaf(vec![1.0, 2.0], &[2]);
        let acc = x.gradient_edge().unwrap().node;
        // (number of grad_inputs, incoming gradient, .grad at the time) per call
        type Call = (usize, Vec<f64>, Vec<f64>);
        let seen: Arc<Mutex<Vec<Call>>> = Arc::default();
        let (log, probe) = (seen.clone(), x.clone());
        acc.add_post_hook(Arc::new(move |inputs, outputs| {
            let incoming = outputs[0].as_ref().unwrap().to_vec::<f64>();
            log.lock().unwrap().push((inputs.len(), incoming, probe.grad().unwrap().to_vec::<f64>()));
            Ok(None)
        }));
        for _ in 0..2 {
            let y = x.mul(&Tensor::scalar(3.0)).unwrap().sum(None, false).unwrap();
            super::backward(&[y], &[None], false, false, None).unwrap();
        }
        let seen = seen.lock().unwrap();
        assert_eq!(*seen, vec![(0, vec![3.0, 3.0], vec![3.0, 3.0]), (0, vec![3.0, 3.0], vec![6.0, 6.0])]);
    }
}
