//! The backward pass: count each node's dependencies, then run nodes from a ready queue ordered by
//! sequence number (created later → runs first; AccumulateGrad before anything), summing the
//! gradients that reach one input along several edges. Iterative throughout.
use super::formulas::BackwardOp;
use super::grad_mode::GradModeGuard;
use super::node::{Edge, LeafMeta, Node};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use crate::bail;
use std::collections::{BinaryHeap, HashMap};
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

/// `torch.autograd.backward`: accumulates d(roots)/d(leaf) into every leaf's `.grad`.
/// `grads[i]` is the gradient of `roots[i]`; None is allowed for one-element roots.
pub fn backward(roots: &[Tensor], grads: &[Option<Tensor>], retain_graph: bool, create_graph: bool) -> Result<()> {
    let mut start: Vec<(Edge, Tensor)> = Vec::with_capacity(roots.len());
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
    run(start, retain_graph, create_graph)
}

fn size_str(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("ferrograd.Size([{}])", dims.join(", "))
}

fn run(start: Vec<(Edge, Tensor)>, retain_graph: bool, create_graph: bool) -> Result<()> {
    let _mode = GradModeGuard::new(create_graph);
    let dependencies = count_dependencies(start.iter().map(|(e, _)| &e.node));
    let mut buffers: HashMap<NodeId, Vec<Option<Tensor>>> = HashMap::new();
    let mut ready = BinaryHeap::new();
    let mut remaining = dependencies;
    for (edge, grad) in start {
        accumulate_input(&mut buffers, &edge, grad)?;
        if remaining.get(&Arc::as_ptr(&edge.node)).copied().unwrap_or(0) == 0
            && !ready.iter().any(|r: &Ready| Arc::ptr_eq(&r.0, &edge.node))
        {
            ready.push(Ready(edge.node.clone()));
        }
    }
    while let Some(Ready(node)) = ready.pop() {
        let inputs = buffers.remove(&Arc::as_ptr(&node)).unwrap_or_default();
        let outputs = evaluate(&node, inputs, retain_graph, create_graph)?;
        for (i, edge) in node.next.iter().enumerate() {
            let Some(edge) = edge else { continue };
            if let Some(Some(g)) = outputs.get(i) {
                accumulate_input(&mut buffers, edge, conform(g, edge)?)?;
            }
            let id = Arc::as_ptr(&edge.node);
            let left = remaining.get_mut(&id).expect("counted");
            *left -= 1;
            if *left == 0 {
                ready.push(Ready(edge.node.clone()));
            }
        }
    }
    Ok(())
}

/// How many edges point at each node reachable from the roots.
fn count_dependencies<'a>(roots: impl Iterator<Item = &'a Arc<Node>>) -> HashMap<NodeId, usize> {
    let mut counts: HashMap<NodeId, usize> = HashMap::new();
    let mut stack: Vec<Arc<Node>> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for r in roots {
        if seen.insert(Arc::as_ptr(r)) {
            stack.push(r.clone());
        }
    }
    while let Some(node) = stack.pop() {
        for edge in node.next.iter().flatten() {
            let id = Arc::as_ptr(&edge.node);
            *counts.entry(id).or_insert(0) += 1;
            if seen.insert(id) {
                stack.push(edge.node.clone());
            }
        }
    }
    counts
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

fn evaluate(node: &Arc<Node>, inputs: Vec<Option<Tensor>>, retain_graph: bool, create_graph: bool) -> Result<Vec<Option<Tensor>>> {
    let grad = inputs.into_iter().next().flatten();
    if let BackwardOp::AccumulateGrad(meta) = &node.op {
        if let Some(g) = grad {
            accumulate_grad(meta, g, create_graph)?;
        }
        return Ok(vec![]);
    }
    let Some(grad) = grad else { return Ok(vec![]) };
    let needs: Vec<bool> = node.next.iter().map(|e| e.is_some()).collect();
    let out = node.op.apply(node, &grad, &needs);
    if !retain_graph {
        node.release_saved();
    }
    out
}

/// `.grad` takes over the first gradient (unless something else still uses its memory) and adds later
/// ones: in place normally, out of place under create_graph so the old gradient's graph survives.
fn accumulate_grad(meta: &LeafMeta, g: Tensor, create_graph: bool) -> Result<()> {
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
        super::backward(&[out], &[None], false, false).unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f32>(), vec![4.5; 4]);
    }

    #[test]
    fn gradients_accumulate_and_broadcast_reduces() {
        let a = leaf(vec![1.0, 2.0, 3.0], &[3, 1]);
        let b = leaf(vec![10.0, 20.0], &[1, 2]);
        let s = a.mul(&b).unwrap().sum(None, false).unwrap();
        super::backward(&[s.clone()], &[None], true, false).unwrap();
        super::backward(&[s], &[None], false, false).unwrap();
        assert_eq!(a.grad().unwrap().to_vec::<f64>(), vec![60.0; 3]);
        assert_eq!(b.grad().unwrap().to_vec::<f64>(), vec![12.0, 12.0]);
    }

    #[test]
    fn second_backward_without_retain_graph_fails() {
        let x = leaf(vec![1.0, 2.0], &[2]);
        let y = x.exp().unwrap().sum(None, false).unwrap();
        super::backward(&[y.clone()], &[None], false, false).unwrap();
        let err = super::backward(&[y], &[None], false, false).unwrap_err();
        assert!(err.to_string().starts_with("Trying to backward through the graph a second time"));
    }

    #[test]
    fn create_graph_gives_second_derivative() {
        // d²/dx² x³ = 6x
        let x = leaf(vec![2.0], &[1]);
        let y = x.pow(&Tensor::scalar(3.0)).unwrap().sum(None, false).unwrap();
        super::backward(&[y], &[None], false, true).unwrap();
        let g = x.grad().unwrap();
        assert_eq!(g.to_vec::<f64>(), vec![12.0]);
        x.set_grad(None).unwrap();
        super::backward(&[g.sum(None, false).unwrap()], &[None], false, false).unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f64>(), vec![12.0]);
    }

    #[test]
    fn million_node_chain_backs_up_and_drops_without_recursion() {
        let x = leaf(vec![0.5], &[1]);
        let mut y = x.clone();
        for _ in 0..1_000_000 {
            y = y.add(&Tensor::scalar(1.0)).unwrap();
        }
        super::backward(&[y.sum(None, false).unwrap()], &[None], false, false).unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f64>(), vec![1.0]);
        drop(y);
    }

    #[test]
    fn saved_output_modified_in_place_is_detected() {
        let x = leaf(vec![1.0, 2.0], &[2]);
        let y = x.exp().unwrap();
        y.copy_from(&Tensor::scalar(0.0)).unwrap();
        let err = super::backward(&[y.sum(None, false).unwrap()], &[None], false, false).unwrap_err();
        assert!(err.to_string().contains("which is output 0 of ExpBackward0, is at version 1; expected version 0"));
    }
}
