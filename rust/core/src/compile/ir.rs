//! The captured graph: nodes over value ids (the declared inputs are values `0..n_inputs`, node `i`'s
//! output is value `n_inputs + i`), each node holding the closure that calls its op's eager entry point
//! with the attributes it was captured with (dims, scalars, the op's parameters).
use crate::error::Result;
use crate::tensor::Tensor;
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
/// The same for an op with several outputs (`split`, `max_pool2d`'s values and indices).
pub(crate) type ReplayMany = Arc<dyn Fn(&[&Tensor]) -> Result<Vec<Tensor>> + Send + Sync>;

/// How a replay computes a node's value.
#[derive(Clone)]
pub(crate) enum Run {
    One(Replay),
    /// The op's outputs go to this node's value and the next nodes' (each a `Run::Output`), in order.
    Many(ReplayMany),
    /// One output of the multi-output node before it, set when that node runs (it reads nothing itself).
    Output,
}

#[derive(Clone)]
pub struct Node {
    /// PyTorch's op name (`mul`, `exp`, `sum`).
    pub name: &'static str,
    pub kind: NodeKind,
    pub operands: Vec<Operand>,
    pub(crate) run: Run,
    /// The output's shape at capture (guards make it the shape at every replay).
    pub shape: Vec<usize>,
    /// The output's dtype at capture (guards keep it too).
    pub dtype: crate::DType,
    /// The op's own contiguous kernel for this dtype, when the node can run inside a fused chain.
    pub(crate) kernel: Option<super::kernel::SliceKernel>,
    /// For a product op (`linear`, `addmm`): its replay with an elementwise map run over its output as it is made.
    pub(crate) product: Option<super::kernel::ProductFn>,
    /// For a unary op: its record over values its kernel made elsewhere (a product's epilogue).
    pub(crate) recorder: Option<super::kernel::RecordFn>,
    /// Grad mode when the op ran (a `no_grad` block inside the function, or an untraced op that ran
    /// traceable ones under its own guard): the replay runs the node in the same mode.
    pub grad_enabled: bool,
}
