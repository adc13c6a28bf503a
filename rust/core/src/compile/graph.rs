//! A captured graph: the nodes of `ir.rs` in the order they ran, the outputs, each value's last reader and
//! the replay plan `fuse.rs` makes of them.
use super::fuse::{self, Step};
use super::ir::{Node, Operand, Run};
use crate::tensor::Tensor;
use std::fmt::Write;

pub struct Graph {
    pub n_inputs: usize,
    pub nodes: Vec<Node>,
    /// The function's outputs, as value ids.
    pub outputs: Vec<usize>,
    /// For each value, the last node reading it (None: no node reads it); a value is freed after it,
    /// unless it is an output.
    pub(crate) last_use: Vec<Option<usize>>,
    pub(crate) plan: Vec<Step>,
    /// Tensors from before the capture whose data Python read during it (through a fixed value: a mask's
    /// `.all()` in an `if`), with their versions then: the branch Python took holds while none was written.
    frozen: Vec<(Tensor, u64)>,
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
        let plan = fuse::plan(n_inputs, &nodes, &outputs, &last_use);
        Graph { n_inputs, nodes, outputs, last_use, plan, frozen: Vec::new() }
    }

    /// The graph, with the tensors from outside whose data Python read (at their current versions).
    pub(crate) fn reading(mut self, frozen: Vec<Tensor>) -> Graph {
        self.frozen = frozen.into_iter().map(|t| (t.clone(), t.version())).collect();
        self
    }

    /// Whether no tensor whose data Python read during the capture was written since: otherwise the graph
    /// may hold the other branch, and the call captures anew.
    pub fn is_current(&self) -> bool {
        self.frozen.iter().all(|(t, version)| t.version() == *version)
    }

    /// The number of fused groups the replay runs chunk by chunk, and of products with an epilogue.
    pub fn fused_groups(&self) -> usize {
        self.plan.iter().filter(|s| matches!(s, Step::Fused(_) | Step::Rows(_) | Step::Epilogue(_))).count()
    }

    /// How many steps a replay takes: a fused group is one, each other node one.
    #[cfg(test)]
    pub(crate) fn replay_steps(&self) -> usize {
        self.plan.len()
    }

    /// The ops of the graph in the order they run (a multi-output op once, not once per output).
    pub fn op_names(&self) -> Vec<&'static str> {
        self.nodes.iter().filter(|n| !matches!(n.run, Run::Output)).map(|n| n.name).collect()
    }

    /// One line per node (`%2 = mul(%0, %0)`), then the outputs: what was captured, for tests and debugging.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        // the node whose further outputs the `Run::Output` nodes that follow it are, and how many so far
        let mut many = (0, 0);
        for (i, node) in self.nodes.iter().enumerate() {
            match node.run {
                Run::Many(_) => many = (self.n_inputs + i, 0),
                Run::Output => {
                    many.1 += 1;
                    let _ = writeln!(s, "%{} = %{}[{}]", self.n_inputs + i, many.0, many.1);
                    continue;
                }
                Run::One(_) => {}
            }
            let operands: Vec<String> = node
                .operands
                .iter()
                .map(|op| match op {
                    Operand::Value(v) => format!("%{v}"),
                    Operand::Constant(t) if t.0.wrapped_number => {
                        t.to_vec::<f64>().first().map_or("?".into(), |x| format!("{x}"))
                    }
                    Operand::Constant(t) => format!("const{:?}", t.shape()),
                })
                .collect();
            let _ = writeln!(s, "%{} = {}({})", self.n_inputs + i, node.name, operands.join(", "));
        }
        let outs: Vec<String> = self.outputs.iter().map(|v| format!("%{v}")).collect();
        let _ = write!(s, "return ({})", outs.join(", "));
        s
    }
}
