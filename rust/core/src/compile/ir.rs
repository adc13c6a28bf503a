//! The captured graph: nodes over value ids (the declared inputs are values `0..n_inputs`, node `i`'s
//! output is value `n_inputs + i`), each node holding the closure that calls its op's eager entry point
//! with the attributes it was captured with (dims, scalars, the op's parameters).
use crate::error::Result;
use crate::tensor::Tensor;
use std::fmt::Write;
use std::sync::Arc;

/// How a node's op treats its elements, which is what fusion needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// Each output element reads the same position of each (broadcast) operand: unary, binary, where, clamp.
    Elementwise,
    /// A sum/mean/amax/amin over every element (`dim=None`).
    FullReduction,
    /// Any other traceable op (axis reductions, views): replayed as it is.
    Opaque,
}

/// What a node reads: a value of the graph, or a constant captured with it (a Python number, which
/// arrives as a 0-dim "wrapped number" tensor).
#[derive(Clone)]
pub enum Operand {
    Value(usize),
    Constant(Tensor),
}

/// The op's eager entry point, with its captured attributes.
pub(crate) type Replay = Arc<dyn Fn(&[&Tensor]) -> Result<Tensor> + Send + Sync>;

pub struct Node {
    /// PyTorch's op name (`mul`, `exp`, `sum`).
    pub name: &'static str,
    pub kind: NodeKind,
    pub operands: Vec<Operand>,
    pub(crate) run: Replay,
    /// The output's shape at capture (guards make it the shape at every replay).
    pub shape: Vec<usize>,
    /// Grad mode when the op ran (a `no_grad` block inside the function, or an untraced op that ran
    /// traceable ones under its own guard): the replay runs the node in the same mode.
    pub grad_enabled: bool,
}

pub struct Graph {
    pub n_inputs: usize,
    pub nodes: Vec<Node>,
    /// The function's outputs, as value ids.
    pub outputs: Vec<usize>,
    /// For each value, the last node reading it (None: no node reads it); a value is freed after it,
    /// unless it is an output.
    pub(crate) last_use: Vec<Option<usize>>,
    pub(crate) plan: Vec<super::fuse::Step>,
}

impl Graph {
    pub(crate) fn new(n_inputs: usize, nodes: Vec<Node>, outputs: Vec<usize>) -> Graph {
        let mut last_use = vec![None; n_inputs + nodes.len()];
        for (i, node) in nodes.iter().enumerate() {
            for op in &node.operands {
                if let Operand::Value(v) = op {
                    last_use[*v] = Some(i);
                }
            }
        }
        let plan = super::fuse::plan(n_inputs, &nodes, &outputs, &last_use);
        Graph { n_inputs, nodes, outputs, last_use, plan }
    }

    /// The number of fused groups the replay runs chunk by chunk.
    pub fn fused_groups(&self) -> usize {
        self.plan.iter().filter(|s| matches!(s, super::fuse::Step::Fused(_))).count()
    }

    /// One line per node (`%2 = mul(%0, %0)`), then the outputs: what was captured, for tests and debugging.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        for (i, node) in self.nodes.iter().enumerate() {
            let operands: Vec<String> = node
                .operands
                .iter()
                .map(|op| match op {
                    Operand::Value(v) => format!("%{v}"),
                    Operand::Constant(t) => t.to_vec::<f64>().first().map_or("?".into(), |x| format!("{x}")),
                })
                .collect();
            let _ = writeln!(s, "%{} = {}({})", self.n_inputs + i, node.name, operands.join(", "));
        }
        let outs: Vec<String> = self.outputs.iter().map(|v| format!("%{v}")).collect();
        let _ = write!(s, "return ({})", outs.join(", "));
        s
    }
}
