//! The engine's entry points, `backward()` and `autograd.grad()`: the engine itself, or, while a capture runs
//! (`ferrograd.compile` over a whole training step), one node each, whose replay runs the engine again from the
//! replayed roots. The gradients a replay accumulates into `.grad` (or returns) are then eager's, by the same
//! rules, and the nodes after it (an optimizer's update, `compile::effect`) run once they are there.
use super::engine::{backward as backward_now, grad as grad_now};
use crate::compile::{traced, traced_many, unsupported, NodeKind};
use crate::error::Result;
use crate::tensor::Tensor;

/// How a gradient call's tensors sit in its node's operands: the roots, the root gradients given, then the
/// inputs the gradients are taken for.
#[derive(Clone)]
struct Layout {
    n_roots: usize,
    /// which roots were given a gradient (the others: ones, for one-element roots)
    given: Vec<bool>,
}

impl Layout {
    fn operands<'a>(roots: &'a [Tensor], grads: &'a [Option<Tensor>], inputs: &'a [Tensor]) -> (Vec<&'a Tensor>, Self) {
        let given = (0..roots.len()).map(|i| matches!(grads.get(i), Some(Some(_)))).collect();
        let operands = roots.iter().chain(grads.iter().flatten()).chain(inputs).collect();
        (operands, Layout { n_roots: roots.len(), given })
    }

    /// `(roots, grads, inputs)` back from the operands.
    fn apart(&self, x: &[&Tensor]) -> (Vec<Tensor>, Vec<Option<Tensor>>, Vec<Tensor>) {
        let roots = x[..self.n_roots].iter().map(|&t| t.clone()).collect();
        let mut rest = x[self.n_roots..].iter().map(|&t| t.clone());
        let grads = self.given.iter().map(|&g| if g { rest.next() } else { None }).collect();
        (roots, grads, rest.collect())
    }
}

/// `torch.autograd.backward`: accumulates d(roots)/d(leaf) into `.grad` of every leaf, or only of `inputs` when
/// given (`engine::backward`). While a capture runs, a node whose value is the first root, unchanged (so what
/// reads the loss afterwards runs after the gradients).
pub fn backward(
    roots: &[Tensor],
    grads: &[Option<Tensor>],
    retain_graph: bool,
    create_graph: bool,
    inputs: Option<&[Tensor]>,
) -> Result<()> {
    let first = match roots.first() {
        Some(first) if crate::compile::is_capturing() => first,
        _ => return backward_now(roots, grads, retain_graph, create_graph, inputs),
    };
    let (operands, layout) = Layout::operands(roots, grads, inputs.unwrap_or(&[]));
    let has_inputs = inputs.is_some();
    let run = move |x: &[&Tensor]| {
        let (roots, grads, inputs) = layout.apart(x);
        backward_now(&roots, &grads, retain_graph, create_graph, has_inputs.then_some(&inputs[..]))?;
        Ok(x[0].clone())
    };
    let replay = run.clone();
    let out = traced("backward", NodeKind::Opaque, &operands, || run(&operands), || replay)?;
    debug_assert!(std::sync::Arc::ptr_eq(&out.0, &first.0));
    Ok(())
}

/// `torch.autograd.grad`: the gradients of `outputs` with respect to `inputs`, leaving `.grad` alone
/// (`engine::grad`). While a capture runs, a node whose values are the gradients; an input the outputs do not
/// reach (`allow_unused=True`) has no gradient to be a value of, and that call is not captured.
pub fn grad(
    outputs: &[Tensor],
    grad_outputs: &[Option<Tensor>],
    inputs: &[Tensor],
    retain_graph: bool,
    create_graph: bool,
    allow_unused: bool,
) -> Result<Vec<Option<Tensor>>> {
    if !crate::compile::is_capturing() {
        return grad_now(outputs, grad_outputs, inputs, retain_graph, create_graph, allow_unused);
    }
    let (operands, layout) = Layout::operands(outputs, grad_outputs, inputs);
    let run = move |x: &[&Tensor]| {
        let (roots, grads, inputs) = layout.apart(x);
        grad_now(&roots, &grads, &inputs, retain_graph, create_graph, allow_unused)
    };
    let replay = run.clone();
    let replay = move |x: &[&Tensor]| {
        let found = replay(x)?;
        if found.iter().any(Option::is_none) {
            crate::bail!(Runtime, "compiled graph: autograd.grad() found an unused input it did not at capture");
        }
        Ok(found.into_iter().flatten().collect())
    };
    let mut found = Vec::new();
    let eager = || {
        found = run(&operands)?;
        // an unused input's place holds a stand-in; such a capture is broken below and never replayed
        Ok(found.iter().map(|g| g.clone().unwrap_or_else(|| Tensor::zeros(&[], crate::DType::F32))).collect())
    };
    traced_many("autograd.grad", &operands, eager, || replay)?;
    if found.iter().any(Option::is_none) {
        unsupported("autograd.grad() with an input the outputs do not reach (allow_unused=True)");
    }
    Ok(found)
}

/// Python reading `t.grad` while a capture runs (gradient clipping between `backward()` and the optimizer's
/// update): a node reading `t` whose replay gives `t`'s gradient then, so what the function computes from it, or
/// writes into it in place, is part of the graph. The gradient's own record, unchanged, is the node's value.
pub fn note_grad_read(t: &Tensor) -> Result<()> {
    let Some(grad) = t.grad() else { return Ok(()) };
    let replay = |x: &[&Tensor]| match x[0].grad() {
        Some(g) => Ok(g),
        None => crate::bail!(Runtime, "compiled graph: a .grad the capture read is None at this replay"),
    };
    traced("Tensor.grad", NodeKind::Opaque, &[t], || Ok(grad), || replay).map(drop)
}
