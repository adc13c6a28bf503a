//! `torch.linalg`: small products (outer, trace, baddbmm, cross, matrix_power), the
//! factorizations behind inv, det, slogdet, solve, cholesky, eigh, eig (`schur.rs`), svd, qr and lstsq, LAPACK's LU
//! (`lu.rs`: lu_factor, lu, lu_unpack; `lu_solve.rs`) and geqrf, triangular solves
//! (solve_triangular, triangular_solve, cholesky_solve, cholesky_inverse) and matrix_exp (Padé). The
//! factorizations are hand-written in float64 (`factor.rs`, Householder QR in `householder.rs`; see
//! ARCHITECTURE.md, "Considered and not done", for why not faer), run over the batch (`batch.rs`),
//! and their backward rules are written with differentiable ops, so `create_graph` works (except eig's, which
//! refuses it).
mod batch;
mod cholesky;
mod cholesky_solve;
mod cross;
mod eig;
mod eigh;
mod factor;
mod fused;
mod geqrf;
mod householder;
mod lstsq;
mod lu;
mod lu_solve;
mod matrix_exp;
mod power;
pub(crate) use fused::scale_add;
mod products;
mod qr;
mod schur;
mod solve;
mod svd;
mod triangular;
mod triangular_solve;
