//! `t[key]` for a key with index tensors: the positions its index tensors pick in the region its basic
//! items leave, then one gather (IndexBackward0). One traced node, whose replay recomputes the positions
//! from the index tensors it is given, so an index that is a graph value is read anew on every replay.
use super::index::IndexBackward0;
use crate::compile::{traced, NodeKind};
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;

impl Tensor {
    /// `self[key]`: `region` is the key's basic items applied to a contiguous layout of `self`'s shape, and
    /// `indices` each index tensor with the dim of `region` it picks along.
    pub fn index_advanced(&self, region: &Layout, indices: &[(usize, Tensor)]) -> Result<Tensor> {
        let dims: Vec<usize> = indices.iter().map(|(d, _)| *d).collect();
        let mut operands = vec![self];
        operands.extend(indices.iter().map(|(_, t)| t));
        let region = region.clone();
        let eager = move |x: &[&Tensor]| -> Result<Tensor> {
            let picks: Vec<(usize, Tensor)> = dims.iter().zip(&x[1..]).map(|(&d, t)| (d, (*t).clone())).collect();
            let (positions, shape) = Tensor::advanced_positions(&region, &picks)?;
            x[0].take_flat(positions, &shape, IndexBackward0::of(x[0]))
        };
        let replay = eager.clone();
        traced("index", NodeKind::Opaque, &operands, || eager(&operands), || replay)
    }
}
