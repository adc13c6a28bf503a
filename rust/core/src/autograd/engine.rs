//! The backward pass: count each node's dependencies, then run nodes from a ready queue ordered by
//! sequence number (created later → runs first; AccumulateGrad before anything), summing the
//! gradients that reach one input along several edges. Iterative throughout.
//!
//! `autograd.grad` and `backward(inputs=...)` capture gradients at chosen edges instead: only the
//! nodes on a path from the roots to those edges run, and no AccumulateGrad runs.
use super::formulas::BackwardOp;
use super::grad_mode::{self, GradModeGuard};
use super::node::{Edge, GradMeta, Node};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use crate::bail;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::Arc;

type NodeId = *const Node;

struct Ready(Arc<Node>);

impl PartialEq for Ready {
    fn eq(&self, other: &Self) -> bool {
        self.0.sequence_nr == other.0.sequence_nr
    }
}
impl Eq for Ready {}
impl PartialOrd for Ready {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ready {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.sequence_nr.cmp(&other.0.sequence_nr)
    }
}

/// `torch.autograd.backward`: accumulates d(roots)/d(leaf) into `.grad` of every leaf, or only of
/// `inputs` when given. `grads[i]` is the gradient of `roots[i]`; None is allowed for one-element roots.
pub fn backward(
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
        }
    }
    Ok(())
}

/// `torch.autograd.grad`: the gradients of `outputs` with respect to `inputs`, leaving `.grad` alone.
pub fn grad(
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
        bail!(Runtime, "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.");
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
                if g.dtype() != root.dtype() { g.to_dtype(root.dtype())? } else { g }
            }
            None => {
                if root.numel() != 1 {
                    bail!(Runtime, "grad can be implicitly created only for scalar outputs");
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

/// The nodes reachable from the roots, with each node's parents (nodes with an edge to it).
fn discover(roots: &[&Arc<Node>]) -> (Vec<Arc<Node>>, HashMap<NodeId, Vec<NodeId>>) {
    let mut nodes = Vec::new();
    let mut parents: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    let mut seen = HashSet::new();
    let mut stack: Vec<Arc<Node>> = Vec::new();
    for r in roots {
        if seen.insert(Arc::as_ptr(r)) {
            stack.push((*r).clone());
        }
    }
    while let Some(node) = stack.pop() {
        for edge in node.next.iter().flatten() {
            let id = Arc::as_ptr(&edge.node);
            parents.entry(id).or_default().push(Arc::as_ptr(&node));
            if seen.insert(id) {
                stack.push(edge.node.clone());
            }
        }
        nodes.push(node);
    }
    (nodes, parents)
}

/// Runs the graph task; with `targets`, returns the gradient that reached each target edge.
fn run(start: Vec<(Edge, Tensor)>, targets: Option<&[Edge]>, retain_graph: bool, create_graph: bool) -> Result<Vec<Option<Tensor>>> {
    let _mode = GradModeGuard::new(create_graph);
    let roots: Vec<&Arc<Node>> = start.iter().map(|(e, _)| &e.node).collect();
    let (nodes, parents) = discover(&roots);

    // Which nodes execute: all of them, or (when capturing) those with a path down to a target.
    let runs: HashSet<NodeId> = match targets {
        None => nodes.iter().map(Arc::as_ptr).collect(),
        Some(targets) => {
            let mut runs = HashSet::new();
            let mut stack: Vec<NodeId> = targets.iter().map(|e| Arc::as_ptr(&e.node)).collect();
            while let Some(id) = stack.pop() {
                for &p in parents.get(&id).map(Vec::as_slice).unwrap_or(&[]) {
                    if runs.insert(p) {
                        stack.push(p);
                    }
                }
            }
            runs
        }
    };
    let mut remaining: HashMap<NodeId, usize> = HashMap::new();
    for node in nodes.iter().filter(|n| runs.contains(&Arc::as_ptr(n))) {
        for edge in node.next.iter().flatten() {
            *remaining.entry(Arc::as_ptr(&edge.node)).or_insert(0) += 1;
        }
    }
    let target_slots: HashMap<(NodeId, u32), Vec<usize>> =
        targets.unwrap_or(&[]).iter().enumerate().fold(HashMap::new(), |mut m, (i, e)| {
            m.entry((Arc::as_ptr(&e.node), e.input_nr)).or_default().push(i);
            m
        });
    let mut captured: Vec<Option<Tensor>> = vec![None; targets.map_or(0, |t| t.len())];

    let mut buffers: HashMap<NodeId, Vec<Option<Tensor>>> = HashMap::new();
    let mut ready = BinaryHeap::new();
    let mut queued = HashSet::new();
    for (edge, grad) in start {
        accumulate_input(&mut buffers, &edge, grad)?;
        let id = Arc::as_ptr(&edge.node);
        if remaining.get(&id).copied().unwrap_or(0) == 0 && queued.insert(id) {
            ready.push(Ready(edge.node.clone()));
        }
    }
    while let Some(Ready(node)) = ready.pop() {
        let id = Arc::as_ptr(&node);
        let mut grads = buffers.remove(&id).unwrap_or_default();
        grads.resize(node.num_outputs.max(1) as usize, None);
        run_pre_hooks(&node, &mut grads)?;
        for (nr, g) in grads.iter().enumerate() {
            for &slot in target_slots.get(&(id, nr as u32)).map(Vec::as_slice).unwrap_or(&[]) {
                captured[slot] = g.clone();
            }
        }
        if !runs.contains(&id) {
            continue;
        }
        let outputs = evaluate(&node, grads, retain_graph, create_graph)?;
        for (i, edge) in node.next.iter().enumerate() {
            let Some(edge) = edge else { continue };
            if let Some(Some(g)) = outputs.get(i) {
                accumulate_input(&mut buffers, edge, conform(g, edge)?)?;
            }
            let child = Arc::as_ptr(&edge.node);
            let left = remaining.get_mut(&child).expect("counted");
            *left -= 1;
            if *left == 0 {
                ready.push(Ready(edge.node.clone()));
            }
        }
    }
    Ok(captured)
}

/// Tensor hooks (a leaf's, or those of this node's outputs), then the node's pre-hooks.
fn run_pre_hooks(node: &Arc<Node>, grads: &mut [Option<Tensor>]) -> Result<()> {
    if let BackwardOp::AccumulateGrad(meta) = &node.op {
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

/// Sums a gradient into the input buffer of the node the edge points at.
fn accumulate_input(buffers: &mut HashMap<NodeId, Vec<Option<Tensor>>>, edge: &Edge, grad: Tensor) -> Result<()> {
    let slots = buffers.entry(Arc::as_ptr(&edge.node)).or_default();
    let i = edge.input_nr as usize;
    if slots.len() <= i {
        slots.resize(i + 1, None);
    }
    slots[i] = Some(match slots[i].take() {
        None => grad,
        Some(prev) => prev.add(&grad)?,
    });
    Ok(())
}

/// Brings a gradient to the shape and dtype of the input it flows into (undoing broadcasting).
fn conform(g: &Tensor, edge: &Edge) -> Result<Tensor> {
    let mut g = g.clone();
    if g.shape() != edge.shape.as_slice() {
        g = g.sum_to_size(&edge.shape).map_err(|_| {
            Error::Runtime(format!(
                "Function {} returned an invalid gradient at index {} - got {:?} but expected shape compatible with {:?}",
                edge.node.name(), edge.input_nr, g.shape(), edge.shape
            ))
        })?;
    }
    if g.dtype() != edge.dtype {
        g = g.to_dtype(edge.dtype)?;
    }
    Ok(g)
}

fn evaluate(node: &Arc<Node>, grads: Vec<Option<Tensor>>, retain_graph: bool, create_graph: bool) -> Result<Vec<Option<Tensor>>> {
    if let BackwardOp::AccumulateGrad(meta) = &node.op {
        if let Some(Some(g)) = grads.into_iter().next() {
            accumulate_grad(meta, g, create_graph)?;
        }
        return Ok(vec![]);
    }
    if grads.iter().all(|g| g.is_none()) {
        return Ok(vec![]);
    }
    let needs: Vec<bool> = node.next.iter().map(|e| e.is_some()).collect();
    let out = node.op.apply(node, &grads, &needs);
    if !retain_graph {
        node.release_saved();
    }
    let mut out = out.map_err(|e| with_anomaly_trace(node, e))?;
    if grad_mode::is_anomaly_enabled() && grad_mode::is_anomaly_check_nan_enabled() {
        for (i, g) in out.iter().enumerate() {
            if g.as_ref().is_some_and(|g| g.dtype().is_float() && g.to_vec::<f64>().iter().any(|v| v.is_nan())) {
                let e = Error::Runtime(format!("Function '{}' returned nan values in its {}th output.", node.name(), i));
                return Err(with_anomaly_trace(node, e));
            }
        }
    }
    let post_hooks = node.hooks.lock().as_ref().map(|h| h.post.clone()).unwrap_or_default();
    for (_, hook) in post_hooks {
        if let Some(new) = hook(&out, &grads)? {
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
pub(crate) fn accumulate_grad(meta: &GradMeta, g: Tensor, create_graph: bool) -> Result<()> {
    let mut slot = meta.grad.lock();
    let g = if create_graph { g } else { g.detach_unique() };
    *slot = Some(match slot.take() {
        None => if create_graph || g.is_contiguous() { g } else { g.contiguous_copy()? },
        Some(prev) if create_graph => prev.add(&g)?,
        Some(prev) => {
            prev.add_assign_data(&g)?;
            prev
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::{DType, Tensor};

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
        super::backward(&[s.clone()], &[None], true, false, None).unwrap();
        super::backward(&[s], &[None], false, false, None).unwrap();
        assert_eq!(a.grad().unwrap().to_vec::<f64>(), vec![60.0; 3]);
        assert_eq!(b.grad().unwrap().to_vec::<f64>(), vec![12.0, 12.0]);
    }

    #[test]
    fn second_backward_without_retain_graph_fails() {
        let x = leaf(vec![1.0, 2.0], &[2]);
        let y = x.exp().unwrap().sum(None, false).unwrap();
        super::backward(&[y.clone()], &[None], false, false, None).unwrap();
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
        assert!(err.to_string().contains("which is output 0 of ExpBackward0, is at version 1; expected version 0"));
    }
}
