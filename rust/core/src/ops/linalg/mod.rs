//! `torch.linalg`: small products (outer, trace, baddbmm) and the factorizations behind inv, det,
//! slogdet, solve, cholesky and eigh. The factorizations are hand-written in float64 (`factor.rs`;
//! see ARCHITECTURE.md, "Considered and not done", for why not faer), run over the batch (`batch.rs`),
//! and their backward rules are written with differentiable ops, so `create_graph` works.
mod batch;
mod cholesky;
mod eigh;
mod factor;
mod fused;
pub(crate) use fused::scale_add;
mod products;
mod solve;
mod svd;
