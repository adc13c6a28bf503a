//! Where work is split across threads: every bound in one place, each with what it was set from.
//!
//! A split costs about a microsecond once the pool's workers spin between back-to-back ops
//! (`threads.rs`), a few µs from a cold pool; below these sizes one core finishes first. The bounds count
//! what a kernel's time is proportional to: elements for streaming loops, multiply-adds for products.

/// Contiguous elementwise loops (`simd.rs`, `elementwise.rs`), and the optimizers' fused step over all
/// parameters. Set with the run-time SIMD dispatch (288b4e7); with the fork-join pool (19484ad), 1e6 float32
/// `mul` 239 → 167 µs on two cores (torch 169). Lowered from 2¹⁷ to torch's own grain (2¹⁵) on two Zen 4
/// cores: float32 `mul` of 65,536 elements (an MLP's 128×512 activations) 8.3 → 5.1 µs (torch 6.0), `exp`
/// 12.9 → 7.6, of 32,768 `mul` 3.9 → 3.1 µs.
pub const ELEMENTWISE_ELEMENTS: usize = 1 << 15;

/// Softmax rows, which read their input twice: half the elementwise bound.
pub const SOFTMAX_ELEMENTS: usize = ELEMENTWISE_ELEMENTS / 2;

/// Sums and means along a dimension (`sum.rs`): a block sum reads each element once at memory speed, so
/// its bound is twice the elementwise one. Set with the block-sum kernel (288b4e7); with the fork-join pool
/// (19484ad) a broadcast sum went 1.57× → 2.26× torch. Lowered from 2¹⁸ with the elementwise bound: a full
/// float32 sum of 131,072 elements 9.6 → 5.7 µs (torch 9.3), of 98,304 7.2 → 4.5 µs.
pub const SUM_ELEMENTS: usize = 1 << 16;

/// layer_norm's rows, each read twice and written once in one pass (16f5dbe, with the fused kernel).
pub const LAYER_NORM_ELEMENTS: usize = 1 << 16;

/// batch_norm's channels, each read twice and written once (forward) or read three times and written once
/// (backward) in one task: as layer_norm's rows.
pub const BATCH_NORM_ELEMENTS: usize = LAYER_NORM_ELEMENTS;

/// Transposed copies in 8×8 blocks, split in bands of source rows: set with the kernel (aa16061), which with
/// its threads took `x.T.contiguous()` of 512² float32 from 285 to 78 µs (torch 143; 7b0531e).
pub const TRANSPOSE_ELEMENTS: usize = 1 << 16;

/// `cat`'s block copies (memcpy): a copy is cheap per element, so a split pays only from here. Below it, three
/// [256, 64] float32 along dim 0 took 13 µs split (a dispatch per input) against the 5 µs one core copies them in.
pub const COPY_ELEMENTS: usize = 1 << 18;

/// Products of at least this many multiply-adds (about 2.5 µs of one core's work). Measured on two cores,
/// one thread against two: 256×64·64×192 57 → 30 µs, 64×256·256×64 20 → 10 µs, 128×512·512×10 21 → 13 µs;
/// the char-GPT step, whose products are all 1–4 M multiply-adds, 3.4 → 2.8 ms. (Up to 8 M, the earlier
/// bound, every one of them ran on one core.)
pub const MATMUL_MACS: usize = 1 << 18;

/// Fused attention's work per part, in multiply-adds over (heads, L, S, E + Ev). Measured on the char-GPT
/// step (32 heads of 32×32×16, 2 cores): 2.6 ms on one thread, 2.3 ms split in 8 parts of 4 heads; at a
/// bound of 1 M (as before) they ran on one thread.
pub const ATTENTION_WORK_PER_PART: usize = 1 << 17;

/// An LSTM layer's time loop in parts over batch rows (403a11a): a layer below this many multiply-adds a
/// step (rows · 4H · H) stays on one thread, where a part of fewer than 8 rows would run its GEMMs poorly.
pub const LSTM_STEP_MACS: usize = 1 << 21;

/// grid_sample's (batch, channel) planes, counted in input reads (output points × taps): a read costs
/// about what an elementwise op's element does plus the point's coordinate arithmetic, so the
/// elementwise bound, in reads, is kept (not measured separately).
pub const GRID_SAMPLE_READS: usize = ELEMENTWISE_ELEMENTS;

/// ctc_loss's batch entries, counted in lattice cells (frames × (2 · target length + 1) × batch): a cell
/// costs three exponentials and a logarithm (forward; about twice that backward), tens of elementwise
/// elements' worth, so a few thousand cells outweigh a split. Not measured on an idle machine: with the
/// load average at 4.5 on the two cores, T=50 N=16 C=20 S=30 float32 forward+backward took 2.3 ms on one
/// thread and 3.4 ms on two (torch 2.8 and 23.8 ms).
pub const CTC_LATTICE_CELLS: usize = 1 << 12;
