//! Epilogues: a product (`linear`, `addmm`, `convolution`) whose output is read only by one unary op (ReLU, GELU,
//! SiLU, sigmoid, tanh, a leaky ReLU with its slope) runs that op's kernel over each part of its output as soon as the
//! product's thread has made it, while the part is still in cache (`kernels::matmul::Epilogue`), instead of in a pass
//! of its own over memory afterwards. The product is eager's call and the map is eager's contiguous kernel over the
//! same values, so both values are eager's bit for bit; the op's node is then recorded over the mapped values as eager
//! records it (`Node::recorder`: ReluBackward0 keeping the result, GeluBackward0 the input), so gradients are eager's
//! too. A product whose path does not run the map (no bias, a grouped convolution, a non-contiguous input of more
//! than two dims) leaves the op to run after it, node by node.
use crate::compile::ir::{Node, Operand};
use crate::compile::kernel::{Elementwise, SliceKernel};

#[cfg(test)]
thread_local! {
    /// How many maps ran as a product's epilogue on this thread (the fallback gives the same values, so tests count).
    pub(crate) static EPILOGUE_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A product node, whose op runs `product + 1` over its output as it is made.
pub(crate) struct ProductEpilogue {
    pub(crate) product: usize,
}

impl ProductEpilogue {
    pub(crate) fn map_node(&self) -> usize {
        self.product + 1
    }
}

/// The epilogue at product node `i`, if node `i + 1` is a unary op reading it alone that would not head a longer
/// fused chain or row group (which would lose more by being split than the epilogue saves).
pub(crate) fn epilogue_from(
    n_inputs: usize,
    nodes: &[Node],
    outputs: &[usize],
    last_use: &[Option<usize>],
    i: usize,
) -> Option<ProductEpilogue> {
    let (product, map) = (nodes.get(i)?, nodes.get(i + 1)?);
    product.product.as_ref()?;
    map.recorder.as_ref()?;
    let operand = match map.kernel.as_ref()? {
        SliceKernel::F32(Elementwise::Map { operand, .. }) | SliceKernel::F64(Elementwise::Map { operand, .. }) => {
            *operand
        }
        _ => return None,
    };
    let value = n_inputs + i;
    let reads_product = matches!(map.operands.get(operand), Some(Operand::Value(v)) if *v == value);
    let read_once = last_use[value] == Some(i + 1) && !outputs.contains(&value);
    if !reads_product || !read_once || map.shape != product.shape || map.dtype != product.dtype {
        return None;
    }
    let heads_a_chain = super::group_from(n_inputs, nodes, outputs, last_use, i + 1).is_some()
        || super::rows::row_group_from(n_inputs, nodes, outputs, last_use, i + 1).is_some();
    (!heads_a_chain).then_some(ProductEpilogue { product: i })
}
