//! Fusion without a second implementation: an elementwise chain that ends in a full sum/amax/amin runs
//! chunk by chunk (`CHUNK` elements, the chunks spread over the pool's threads), each chunk through the
//! nodes' own eager entry points on 1-d views of the operands, so the chain's intermediates are a few
//! cache-sized buffers instead of full tensors written to memory and read back. The chunks' reductions
//! are reduced again by the same op (sum, amax and amin are associative; mean is not fused).
//!
//! A group is chosen when the graph is built (its shapes are the capture's, which guards keep); whether it
//! runs fused is decided per call: every operand it reads from outside must be contiguous, of the chain's
//! shape (or a number), floating point, and need no gradient, else the replay runs its nodes one by one.
use super::ir::{Node, NodeKind, Operand};
use crate::autograd::grad_mode;
use crate::error::Result;
use crate::kernels::threads::par_for;
use crate::layout::{numel, Layout};
use crate::tensor::Tensor;
use parking_lot::Mutex;

/// Elements per chunk: 16 K float32 is 64 KiB a buffer, so a chain's few live buffers stay in L2.
const CHUNK: usize = 1 << 14;
/// Below this many elements a chain is replayed node by node (fusing would only add chunking cost).
const MIN_FUSED_ELEMENTS: usize = 4 * CHUNK;

/// One step of a replay.
pub(crate) enum Step {
    Node(usize),
    Fused(Group),
}

/// Nodes `first..=last`: elementwise nodes, then the full reduction `last` that reads the chain's end.
pub(crate) struct Group {
    pub(crate) first: usize,
    pub(crate) last: usize,
    /// The chain's shape (every elementwise node's output shape).
    shape: Vec<usize>,
}

/// The replay's steps: nodes in capture order, with each fusable chain as one group.
pub(crate) fn plan(n_inputs: usize, nodes: &[Node], outputs: &[usize], last_use: &[Option<usize>]) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut i = 0;
    while i < nodes.len() {
        match group_ending_at_or_after(n_inputs, nodes, outputs, last_use, i) {
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

/// The longest chain starting at `first` that a full reduction closes, if there is one.
fn group_ending_at_or_after(
    n_inputs: usize,
    nodes: &[Node],
    outputs: &[usize],
    last_use: &[Option<usize>],
    first: usize,
) -> Option<Group> {
    let shape = nodes[first].shape.clone();
    if nodes[first].kind != NodeKind::Elementwise || numel(&shape) < MIN_FUSED_ELEMENTS {
        return None;
    }
    let mut end = first;
    while end + 1 < nodes.len() && nodes[end + 1].kind == NodeKind::Elementwise && nodes[end + 1].shape == shape {
        end += 1;
    }
    let last = end + 1;
    let reduction = nodes.get(last)?;
    if reduction.kind != NodeKind::FullReduction {
        return None;
    }
    // the reduction reads the chain's end, and nothing made inside the chain is needed after it
    if !matches!(reduction.operands.as_slice(), [Operand::Value(v)] if *v == n_inputs + end) {
        return None;
    }
    for i in first..=end {
        let v = n_inputs + i;
        if outputs.contains(&v) || last_use[v].is_some_and(|u| u > last) {
            return None;
        }
    }
    Some(Group { first, last, shape })
}

/// A contiguous tensor's elements `start..start + len`, as a 1-d tensor over the same storage.
fn flat_chunk(t: &Tensor, start: usize, len: usize) -> Tensor {
    let layout = Layout { shape: vec![len], strides: vec![1], offset: t.layout().offset + start };
    Tensor::from_parts(t.0.storage.clone(), layout, t.dtype())
}

impl Group {
    /// The reduction's result computed chunk by chunk, or None when these operands cannot be fused.
    pub(crate) fn run(&self, n_inputs: usize, nodes: &[Node], values: &[Option<Tensor>]) -> Result<Option<Tensor>> {
        let inside = |v: usize| v >= n_inputs + self.first && v < n_inputs + self.last;
        let mut outside: Vec<(usize, Tensor)> = Vec::new();
        let grad = grad_mode::is_enabled();
        for node in &nodes[self.first..self.last] {
            for op in &node.operands {
                let Operand::Value(v) = op else { continue };
                if inside(*v) || outside.iter().any(|(w, _)| w == v) {
                    continue;
                }
                let t = values[*v].as_ref().expect("a value is computed before its readers");
                let fits = t.shape() == self.shape.as_slice() && t.is_contiguous() && t.dtype().is_float();
                if !fits || (grad && t.requires_grad()) {
                    return Ok(None);
                }
                outside.push((*v, t.clone()));
            }
        }
        let n = numel(&self.shape);
        let parts = n.div_ceil(CHUNK);
        let partials: Mutex<Vec<Option<Result<Tensor>>>> = Mutex::new((0..parts).map(|_| None).collect());
        par_for(parts, &|p| {
            let start = p * CHUNK;
            let r = self.run_chunk(n_inputs, nodes, &outside, start, CHUNK.min(n - start));
            partials.lock()[p] = Some(r);
        });
        let partials: Vec<Tensor> =
            partials.into_inner().into_iter().map(|r| r.expect("every chunk ran")).collect::<Result<_>>()?;
        if !partials[0].dtype().is_float() {
            return Ok(None);
        }
        // the chunks' results, reduced again by the same op
        let stacked = Tensor::stack(&partials, 0)?;
        Ok(Some((nodes[self.last].run)(&[&stacked])?))
    }

    fn run_chunk(
        &self,
        n_inputs: usize,
        nodes: &[Node],
        outside: &[(usize, Tensor)],
        start: usize,
        len: usize,
    ) -> Result<Tensor> {
        let mut local: Vec<Option<Tensor>> = vec![None; self.last - self.first];
        let chunks: Vec<(usize, Tensor)> = outside.iter().map(|(v, t)| (*v, flat_chunk(t, start, len))).collect();
        for i in self.first..=self.last {
            let operands: Vec<&Tensor> = nodes[i]
                .operands
                .iter()
                .map(|op| match op {
                    Operand::Constant(t) => t,
                    Operand::Value(v) if *v >= n_inputs + self.first => {
                        local[*v - n_inputs - self.first].as_ref().expect("computed in this chunk")
                    }
                    Operand::Value(v) => &chunks.iter().find(|(w, _)| w == v).expect("an outside operand").1,
                })
                .collect();
            let out = (nodes[i].run)(&operands)?;
            if i == self.last {
                return Ok(out);
            }
            local[i - self.first] = Some(out);
        }
        unreachable!("the loop returns at the reduction")
    }
}
