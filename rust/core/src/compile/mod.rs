//! Capture and replay (`ferrograd.compile`): while a capture is on, the traceable ops (the unary registry,
//! binary arithmetic and comparisons, `where`, clamp, views, sum/mean/amax/amin) record themselves as nodes
//! of a [`Graph`] over value ids as they run eagerly (`trace.rs`); a [`Graph`] then runs over new inputs
//! without Python per op (`replay.rs`), through the SAME eager entry points, with elementwise chains run
//! chunk by chunk through the ops' own slice kernels (`kernel.rs`) so their intermediates stay in cache
//! (`fuse.rs`).
//!
//! A value is known only if it is a declared input or a recorded node's output; an op that reads an unknown
//! tensor, an output that is not a known value, or an event the graph cannot replay (an in-place write,
//! a value read back to Python) breaks the capture, so nothing outside the traceable set is ever dropped.
mod fuse;
mod graph;
mod ir;
mod kernel;
mod replay;
mod trace;

pub use graph::Graph;
pub use ir::{NodeKind, Operand};
pub(crate) use kernel::{Elementwise, MapAfter, RecordFn, Reduction, RowReduction, SliceKernel};
pub use trace::{
    abort, begin, effect, factory, finish, is_capturing, is_outside_value, knows, note_literal, random_factory,
    unsupported, unsupported_outside_ops, unsupported_read, Capture, Effect,
};
pub(crate) use trace::{
    note_alias, note_made, operand_list, optional_args, traced, traced_fusable, traced_many, traced_pair,
    traced_product, traced_random, traced_unary,
};

#[cfg(test)]
mod tests;
