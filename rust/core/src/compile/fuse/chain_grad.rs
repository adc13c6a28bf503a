//! A fused chain whose result needs a gradient: the forward runs fused (`fuse.rs`) and the chain records ONE
//! node, `CompiledFunctionBackward` (torch.compile's name for its compiled graph's node), over the tensors the chain
//! reads. Its backward is captured once from eager's own rules: the chain's nodes run over stand-ins, the engine
//! runs their rules while a capture records each op the rules call (their one-pass gradients are traceable nodes,
//! `formula::one_pass_grad`), and that graph is replayed, its own chains fused, at every backward. So the
//! gradients are eager's, computed by the same ops, with the chain recomputed from its inputs instead of keeping
//! its intermediates. A backward that is itself recorded (`create_graph=True`) runs the chain's eager ops again
//! and differentiates them as eager does.
use super::{position_of, reads_as_chunks, CapturedBackward, Gradients, Reader};
use crate::autograd::grad_mode::{self, GradModeGuard};
use crate::autograd::{grad_through_rules, record, AsField, Backward, Ctx, Field, Grads, SavedTensor};
use crate::compile::graph::Graph;
use crate::compile::ir::{Node, NodeKind, Operand, Run};
use crate::compile::trace::{abort, begin, finish, is_capturing, run_again, Capture};
use crate::error::Result;
use crate::tensor::Tensor;
use parking_lot::Mutex;
use std::sync::Arc;

/// What recording a fused group as one node needs of it (a chain, `fuse.rs`; a row group, `rows.rs`).
pub(crate) trait Fusable {
    /// The group's first and last node when they are one chain of nodes to one output (None: the group is never
    /// recorded as one node).
    fn span(&self) -> Option<(usize, usize)>;
    /// The backwards captured so far, one per set of outside operands wanting a gradient.
    fn captured(&self) -> &Mutex<Vec<CapturedBackward>>;
    /// The tensors the group reads from outside (see `Group::outside_operands`).
    fn outside_operands(
        &self,
        n_inputs: usize,
        nodes: &[Node],
        values: &[Option<Tensor>],
        gradients: Gradients,
    ) -> Option<Vec<(Reader, Tensor)>>;
    /// The group's one output over `outside`, without history.
    fn run_over(&self, n_inputs: usize, nodes: &[Node], outside: &[(Reader, Tensor)]) -> Result<Tensor>;
}

/// The backward of one chain, for one set of its outside operands wanting a gradient.
pub(crate) struct ChainBackward {
    /// Over the chain's outside operands (without history) and the output's gradient: the gradients of the
    /// operands that want one, in order, by eager's rules.
    graph: Graph,
    /// The chain's forward as eager runs it, for a recorded backward.
    forward: Forward,
}

/// A chain's nodes as eager runs them (each through its replay, recorded again when a capture is on), over its
/// outside operands.
struct Forward {
    steps: Vec<(Node, Vec<Arg>)>,
}

/// Where a chain node's operand comes from.
enum Arg {
    /// The chain's outside operand `k`.
    Outside(usize),
    /// The value of the chain's node `k` (counted from its first).
    Inside(usize),
    /// A Python number.
    Number(Tensor),
}

impl Forward {
    fn of(
        (first, last): (usize, usize),
        n_inputs: usize,
        nodes: &[Node],
        outside: &[(Reader, Tensor)],
    ) -> Option<Forward> {
        let mut steps = Vec::new();
        for node in &nodes[first..=last] {
            if !matches!(node.run, Run::One(_)) {
                return None;
            }
            let args = node
                .operands
                .iter()
                .map(|op| match op {
                    Operand::Value(v) if *v >= n_inputs + first => Arg::Inside(*v - n_inputs - first),
                    Operand::Value(v) => Arg::Outside(position_of(outside, Reader::Value(*v))),
                    Operand::Constant(t) if reads_as_chunks(t) => {
                        Arg::Outside(position_of(outside, Reader::Constant(Arc::as_ptr(&t.0))))
                    }
                    Operand::Constant(t) => Arg::Number(t.clone()),
                })
                .collect();
            steps.push((node.clone(), args));
        }
        Some(Forward { steps })
    }

    /// The chain's value over `outside`, each node through its eager entry point (recording, in grad mode).
    fn run(&self, outside: &[Tensor]) -> Result<Tensor> {
        let mut inside: Vec<Tensor> = Vec::with_capacity(self.steps.len());
        for (node, args) in &self.steps {
            let Run::One(run) = &node.run else { unreachable!("`Forward::of` keeps single-output nodes") };
            let operands: Vec<&Tensor> = args
                .iter()
                .map(|a| match a {
                    Arg::Outside(k) => &outside[*k],
                    Arg::Inside(k) => &inside[*k],
                    Arg::Number(t) => t,
                })
                .collect();
            let value = if is_capturing() { run_again(node, &operands, || run(&operands))? } else { run(&operands)? };
            inside.push(value);
        }
        inside.pop().ok_or_else(|| crate::error::Error::Runtime("compiled graph: an empty chain".into()))
    }
}

impl ChainBackward {
    /// Captures the chain's backward for `wants`: its nodes over stand-ins of `outside`, then eager's rules.
    /// None when the rules call an op the capture cannot record, or leave an operand without a gradient.
    fn capture(forward: Forward, outside: &[(Reader, Tensor)], wants: &[bool], output: &Node) -> Option<ChainBackward> {
        let mut inputs = Vec::with_capacity(outside.len() + 1);
        for ((_, t), &want) in outside.iter().zip(wants) {
            inputs.push(t.detach().with_requires_grad(want).ok()?);
        }
        let grad_output = Tensor::ones(&output.shape, output.dtype);
        inputs.push(grad_output.clone());
        begin(&inputs).ok()?;
        let traced = (|| -> Result<Vec<Option<Tensor>>> {
            let _grad = GradModeGuard::new(true);
            let y = forward.run(&inputs[..outside.len()])?;
            let targets: Vec<Tensor> = inputs.iter().zip(wants).filter(|(_, &w)| w).map(|(t, _)| t.clone()).collect();
            grad_through_rules(&[y], &[Some(grad_output.clone())], &targets, false, false, true)
        })();
        let grads: Option<Vec<Tensor>> = match traced {
            Ok(grads) => grads.into_iter().collect(),
            Err(_) => None,
        };
        let Some(grads) = grads else {
            abort();
            return None;
        };
        let Ok(Capture::Graph(graph)) = finish(&grads) else { return None };
        Some(ChainBackward { graph: tidy(graph), forward })
    }
}

/// A captured backward as it replays: without the nodes no gradient reads (the chain's own value, a closing sum),
/// with the other nodes that read only the inputs first (a full sum's gradient expanded to the chain's shape), so
/// that the elementwise nodes follow one another as one chain, and without history (the stand-ins' forward ran in
/// grad mode for the rules to see it).
fn tidy(graph: Graph) -> Graph {
    let (n, len) = (graph.n_inputs, graph.nodes.len());
    let mut live = vec![false; n + len];
    graph.outputs.iter().for_each(|&v| live[v] = true);
    for (i, node) in graph.nodes.iter().enumerate().rev() {
        // a node of several outputs is kept whole
        if live[n + i] || matches!(node.run, Run::Many(_) | Run::Output) {
            live[n + i] = true;
            node.operands.iter().for_each(|op| {
                if let Operand::Value(v) = op {
                    live[*v] = true
                }
            });
        }
    }
    let reads_inputs_only = |node: &Node| {
        matches!(node.run, Run::One(_))
            && node.kind != NodeKind::Elementwise
            && node.operands.iter().all(|op| !matches!(op, Operand::Value(v) if *v >= n))
    };
    let (first, rest): (Vec<usize>, Vec<usize>) =
        (0..len).filter(|&i| live[n + i]).partition(|&i| reads_inputs_only(&graph.nodes[i]));
    let mut id: Vec<usize> = (0..n + len).collect();
    for (k, &i) in first.iter().chain(&rest).enumerate() {
        id[n + i] = n + k;
    }
    let mut nodes: Vec<Option<Node>> = graph.nodes.into_iter().map(Some).collect();
    let ordered = first
        .iter()
        .chain(&rest)
        .map(|&i| {
            let mut node = nodes[i].take().expect("each node once");
            node.grad_enabled = false;
            node.operands.iter_mut().for_each(|op| {
                if let Operand::Value(v) = op {
                    *v = id[*v]
                }
            });
            node
        })
        .collect();
    let outputs = graph.outputs.iter().map(|&v| id[v]).collect();
    Graph::new(n, ordered, outputs)
}

impl AsField for Arc<ChainBackward> {
    fn as_field(&self) -> Field<'_> {
        Field::Opaque
    }
}

crate::backward_rule! {
    names = ["CompiledFunctionBackward"];
    /// A fused chain's one node: its backward graph replayed over the chain's saved operands.
    pub struct CompiledFunctionBackward {
        saved_tensors: Vec<SavedTensor>,
        chain: Arc<ChainBackward>,
    }
}

impl Backward for CompiledFunctionBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let saved: Vec<Tensor> = self.saved_tensors.iter().map(|s| ctx.unpack(s)).collect::<Result<_>>()?;
        let wants: Vec<bool> = (0..saved.len()).map(|i| ctx.needs(i)).collect();
        let found = if grad_mode::is_enabled() {
            // create_graph=True: the chain's eager ops again, differentiated by the engine, so the gradients have
            // history (through the recomputed nodes too: their saved tensors are kept for a second derivative)
            let y = self.chain.forward.run(&saved)?;
            let targets: Vec<Tensor> = saved.iter().zip(&wants).filter(|(_, &w)| w).map(|(t, _)| t.clone()).collect();
            let found = grad_through_rules(&[y], &[Some(g.clone())], &targets, true, true, true)?;
            found.into_iter().collect::<Option<Vec<_>>>().ok_or_else(|| {
                crate::error::Error::Runtime("compiled graph: a chain's operand got no gradient".into())
            })?
        } else {
            let mut inputs: Vec<Tensor> = saved.iter().map(Tensor::detach).collect();
            inputs.push(g.detach());
            self.chain.graph.run(&inputs)?
        };
        let mut found = found.into_iter();
        Ok(wants.iter().map(|&w| if w { found.next() } else { None }).collect())
    }
}

/// A group's value when an operand needs a gradient: fused, with one node recording its backward. None when it must
/// replay node by node (a layout, no grad mode, a capture running, a group of several outputs, a backward that eager's
/// rules do not let be captured).
pub(crate) fn run_recorded(
    group: &impl Fusable,
    n_inputs: usize,
    nodes: &[Node],
    values: &[Option<Tensor>],
) -> Result<Option<Tensor>> {
    let Some((first, last)) = group.span() else { return Ok(None) };
    if !grad_mode::is_enabled() || is_capturing() || !nodes[first..=last].iter().all(|n| n.grad_enabled) {
        return Ok(None);
    }
    let Some(outside) = group.outside_operands(n_inputs, nodes, values, Gradients::Allowed) else {
        return Ok(None);
    };
    let wants: Vec<bool> = outside.iter().map(|(_, t)| t.requires_grad()).collect();
    let Some(chain) = backward_for(group, n_inputs, nodes, &outside, &wants) else { return Ok(None) };
    let out = group.run_over(n_inputs, nodes, &outside)?;
    let operands: Vec<&Tensor> = outside.iter().map(|(_, t)| t).collect();
    let saved_tensors = operands.iter().map(|t| SavedTensor::input(t)).collect();
    Ok(Some(record(out, &operands, |_| CompiledFunctionBackward { saved_tensors, chain })))
}

/// The group's backward for `wants`, captured at its first use.
fn backward_for(
    group: &impl Fusable,
    n_inputs: usize,
    nodes: &[Node],
    outside: &[(Reader, Tensor)],
    wants: &[bool],
) -> Option<Arc<ChainBackward>> {
    if let Some((_, chain)) = group.captured().lock().iter().find(|(w, _)| w == wants) {
        return chain.clone();
    }
    let span = group.span()?;
    let chain = Forward::of(span, n_inputs, nodes, outside)
        .and_then(|forward| ChainBackward::capture(forward, outside, wants, &nodes[span.1]))
        .map(Arc::new);
    group.captured().lock().push((wants.to_vec(), chain.clone()));
    chain
}

#[cfg(test)]
impl Graph {
    /// How many steps each backward the fused chains captured replays in (a fused group is one step).
    pub(crate) fn chain_backward_steps(&self) -> Vec<usize> {
        let groups = self.plan.iter().filter_map(|s| match s {
            super::Step::Fused(g) => Some(g as &dyn Fusable),
            super::Step::Rows(g) => Some(g as &dyn Fusable),
            super::Step::Node(_) | super::Step::Epilogue(_) => None,
        });
        groups
            .flat_map(|g| {
                let captured = g.captured().lock();
                captured.iter().filter_map(|(_, c)| c.as_ref().map(|c| c.graph.replay_steps())).collect::<Vec<_>>()
            })
            .collect()
    }
}
