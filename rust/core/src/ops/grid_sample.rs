//! `grid_sampler` (`nn.functional.grid_sample`): the input sampled at the grid's normalized
//! coordinates, bilinear, nearest or (bi/tri)cubic, with zeros, border or reflection padding, for 4-D
//! (N, C, H, W) and 5-D (N, C, D, H, W) inputs.
//!
//! Every mode is separable: along each spatial axis a grid point reads 1, 2 or 4 input positions
//! (`AxisTaps`) with weights from the fractional part of its coordinate, and the point's value is the sum
//! over the taps' products. The forward is a loop over output points: a block of one batch's points has
//! its reads computed once, then applied to every channel; tasks are runs of one batch's points.
//!
//! The gradient is written with differentiable ops (so `create_graph` works, as torch's
//! `GridSampler2DBackwardBackward0` does): the taps' positions and each axis' coordinate multiplier are
//! constants of the grid (piecewise constant, computed here by the same code as the forward), the weights
//! are polynomials of `frac + mult * (grid - grid.detach())`, the input is read with `take_flat` and the
//! input's gradient is put back with `put_flat`.
//!
//! Edge cases follow torch's two CPU kernels, which differ: the 2-D one is vectorized (a NaN coordinate
//! clips to 0, NaN weights reach the output), the 3-D one scalar (a NaN clips to the last position,
//! non-finite coordinates become -100, outside the input, before the weights are taken).
use crate::autograd::{record, AsField, Backward, Ctx, Field, Grads, SavedTensor};
use crate::bail;
use crate::element::Float;
use crate::error::Result;
use crate::kernels::threads::{par_for, OutPtr};
use crate::ops::formula::c;
use crate::tensor::Tensor;
use crate::DType;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridInterpolation {
    Bilinear,
    Nearest,
    /// bicubic on 4-D inputs, tricubic on 5-D ones (Keys' kernel, A = -0.75)
    Bicubic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridPadding {
    Zeros,
    Border,
    Reflection,
}

impl GridInterpolation {
    /// torch's integer codes (`torch.grid_sampler`'s `interpolation_mode`).
    pub fn from_code(code: i64) -> Result<GridInterpolation> {
        Ok(match code {
            0 => GridInterpolation::Bilinear,
            1 => GridInterpolation::Nearest,
            2 => GridInterpolation::Bicubic,
            // torch's CPU kernel returns uninitialized memory for other codes; an error instead
            _ => bail!(Runtime, "grid_sampler(): expected interpolation_mode to be 0, 1 or 2, but got {code}"),
        })
    }

    fn code(self) -> i64 {
        self as i64
    }

    /// Input positions read along each axis.
    fn taps(self) -> usize {
        match self {
            GridInterpolation::Nearest => 1,
            GridInterpolation::Bilinear => 2,
            GridInterpolation::Bicubic => CUBIC_TAPS,
        }
    }
}

impl GridPadding {
    /// torch's integer codes (`torch.grid_sampler`'s `padding_mode`).
    pub fn from_code(code: i64) -> Result<GridPadding> {
        Ok(match code {
            0 => GridPadding::Zeros,
            1 => GridPadding::Border,
            2 => GridPadding::Reflection,
            _ => bail!(Runtime, "grid_sampler(): expected padding_mode to be 0, 1 or 2, but got {code}"),
        })
    }

    fn code(self) -> i64 {
        self as i64
    }
}

const CUBIC_TAPS: usize = 4;
/// Keys' cubic convolution constant (torch's and OpenCV's).
const CUBIC_A: f64 = -0.75;
/// Output points whose reads are computed together (in a buffer that stays in cache), then applied to every
/// channel of their batch.
const POINTS_PER_BLOCK: usize = 256;
/// Where torch's scalar kernel puts a coordinate it cannot index with (`safe_downgrade_to_int_range`).
const OUTSIDE: f64 = -100.0;
/// The offset of a read outside the input (it reads as 0).
const OUTSIDE_READ: usize = usize::MAX;

/// Which of torch's CPU kernels the edge cases follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    /// 4-D input: `GridSamplerKernel.cpp`'s vectorized `ComputeLocation`
    Vectorized,
    /// 5-D input: `GridSampler.h`'s scalar `compute_coordinates`
    Scalar,
}

/// One spatial axis: how a grid coordinate becomes input positions along it.
#[derive(Clone, Copy, Debug)]
struct Axis {
    size: usize,
    align_corners: bool,
    padding: GridPadding,
    kernel: Kernel,
}

/// One grid point's reads along one axis: input positions (`None` outside), weights, and for the
/// gradient each weight's slope in the fractional coordinate, the fraction itself and
/// d(coordinate)/d(grid).
#[derive(Clone, Copy, Debug)]
struct AxisTaps<F> {
    index: [Option<usize>; CUBIC_TAPS],
    weight: [F; CUBIC_TAPS],
    slope: [F; CUBIC_TAPS],
    frac: F,
    mult: F,
}

impl<F: Float> AxisTaps<F> {
    fn none() -> AxisTaps<F> {
        AxisTaps {
            index: [None; CUBIC_TAPS],
            weight: [F::ZERO; CUBIC_TAPS],
            slope: [F::ZERO; CUBIC_TAPS],
            frac: F::ZERO,
            mult: F::ZERO,
        }
    }
}

impl Axis {
    #[inline(always)]
    fn scale<F: Float>(&self) -> F {
        if self.align_corners {
            F::from_f64((self.size as f64 - 1.0) / 2.0)
        } else {
            F::from_f64(self.size as f64 / 2.0)
        }
    }

    /// The grid's [-1, 1] coordinate as an input position, in each kernel's arithmetic.
    #[inline(always)]
    fn unnormalize<F: Float>(&self, g: F) -> F {
        let (one, two, half) = (F::ONE, F::from_f64(2.0), F::from_f64(0.5));
        let size = F::from_f64(self.size as f64);
        match (self.kernel, self.align_corners) {
            (Kernel::Vectorized, true) => (g + one) * self.scale::<F>(),
            (Kernel::Vectorized, false) => (g + one) * self.scale::<F>() - half,
            (Kernel::Scalar, true) => (g + one) / two * (size - one),
            (Kernel::Scalar, false) => ((g + one) * size - one) / two,
        }
    }

    /// Clipped to [0, size - 1], and whether the position was strictly inside (its gradient is 1).
    #[inline(always)]
    fn clip<F: Float>(&self, x: F) -> (F, bool) {
        let last = F::from_f64(self.size as f64 - 1.0);
        if x.is_nan() {
            // the vectorized kernel's clamp takes a NaN to 0, std::min(last, std::max(NaN, 0)) to `last`
            return (if self.kernel == Kernel::Vectorized { F::ZERO } else { last }, false);
        }
        if x <= F::ZERO {
            (F::ZERO, false)
        } else if x >= last {
            (last, false)
        } else {
            (x, true)
        }
    }

    /// Reflected into the input's span (about the edges without `align_corners`, the corner centers
    /// with it), and the sign it flips the gradient by.
    #[inline(always)]
    fn reflect<F: Float>(&self, x: F) -> (F, F) {
        let (low, twice_span) =
            if self.align_corners { (0.0, 2.0 * (self.size as f64 - 1.0)) } else { (-0.5, 2.0 * self.size as f64) };
        if twice_span <= 0.0 {
            return (F::ZERO, F::ZERO);
        }
        let (low, twice_span) = (F::from_f64(low), F::from_f64(twice_span));
        let shifted = x - low;
        let sign = |flipped: bool| if flipped != (shifted < F::ZERO) { -F::ONE } else { F::ONE };
        let abs = shifted.abs();
        match self.kernel {
            Kernel::Vectorized => {
                let extra = abs - (abs / twice_span).trunc() * twice_span;
                let reflected = twice_span - extra;
                if extra.is_nan() {
                    return (extra, F::ONE);
                }
                let flipped = extra > reflected;
                (if flipped { reflected } else { extra } + low, sign(flipped))
            }
            Kernel::Scalar => {
                let span = twice_span / F::from_f64(2.0);
                let extra = F::from_f64(abs.to_f64() % span.to_f64());
                // torch casts the flips to a C int: NaN and out-of-range counts become INT_MIN, even
                let flips = (abs / span).floor().to_f64();
                let odd = flips.is_finite() && flips.abs() < i32::MAX as f64 && (flips as i64) % 2 != 0;
                (if odd { span - extra + low } else { extra + low }, sign(odd))
            }
        }
    }

    /// torch's `compute_coordinates`: the padding applied to a position, and its gradient factor.
    #[inline(always)]
    fn pad<F: Float>(&self, x: F) -> (F, F) {
        let (x, grad) = match self.padding {
            GridPadding::Zeros => (x, F::ONE),
            GridPadding::Border => {
                let (x, inside) = self.clip(x);
                (x, if inside { F::ONE } else { F::ZERO })
            }
            GridPadding::Reflection => {
                let (x, sign) = self.reflect(x);
                let (x, inside) = self.clip(x);
                (x, if inside { sign } else { F::ZERO })
            }
        };
        let limit = i32::MAX as f64;
        if self.kernel == Kernel::Scalar && !(x.to_f64().is_finite() && x.to_f64() > -limit && x.to_f64() < limit) {
            return (F::from_f64(OUTSIDE), grad);
        }
        (x, grad)
    }

    /// The input position of a whole-number coordinate, if it is inside.
    #[inline(always)]
    fn position<F: Float>(&self, x: F) -> Option<usize> {
        let x = x.to_f64();
        (x >= 0.0 && x < self.size as f64).then_some(x as usize)
    }

    #[inline(always)]
    fn taps<F: Float>(&self, mode: GridInterpolation, g: F) -> AxisTaps<F> {
        let mut taps = AxisTaps::none();
        let x = self.unnormalize(g);
        match mode {
            GridInterpolation::Nearest => {
                let (x, _) = self.pad(x);
                taps.index[0] = self.position(x.round_even());
                taps.weight[0] = F::ONE;
            }
            GridInterpolation::Bilinear => {
                let (x, grad) = self.pad(x);
                let base = x.floor();
                let t = x - base;
                taps.index[0] = self.position(base);
                taps.index[1] = self.position(base + F::ONE);
                taps.weight[..2].copy_from_slice(&[F::ONE - t, t]);
                taps.slope[..2].copy_from_slice(&[-F::ONE, F::ONE]);
                (taps.frac, taps.mult) = (t, grad * self.scale::<F>());
            }
            GridInterpolation::Bicubic => {
                // the taps' positions are padded one by one; the weights come from the unpadded coordinate
                let base = x.floor();
                let t = x - base;
                for k in 0..CUBIC_TAPS {
                    let (at, _) = self.pad(base + F::from_f64(k as f64 - 1.0));
                    taps.index[k] = self.position(at);
                }
                taps.weight = cubic_weights(t);
                taps.slope = cubic_slopes(t);
                (taps.frac, taps.mult) = (t, self.scale::<F>());
            }
        }
        taps
    }
}

/// Keys' cubic convolution weights of the four taps around a point at fraction `t` past the second.
fn cubic_weights<F: Float>(t: F) -> [F; CUBIC_TAPS] {
    let a = F::from_f64(CUBIC_A);
    let [one, two, three, four, five, eight] = [1.0, 2.0, 3.0, 4.0, 5.0, 8.0].map(F::from_f64);
    let near = |x: F| ((a + two) * x - (a + three)) * x * x + one;
    let far = |x: F| ((a * x - five * a) * x + eight * a) * x - four * a;
    [far(t + one), near(t), near(one - t), far(two - t)]
}

/// d/dt of `cubic_weights(t)`: the distance grows with t for the first two taps, shrinks for the others.
fn cubic_slopes<F: Float>(t: F) -> [F; CUBIC_TAPS] {
    let a = F::from_f64(CUBIC_A);
    let [one, two, three, eight, ten] = [1.0, 2.0, 3.0, 8.0, 10.0].map(F::from_f64);
    let d_near = |x: F| (three * (a + two) * x - two * (a + three)) * x;
    let d_far = |x: F| (three * a * x - ten * a) * x + eight * a;
    [d_far(t + one), d_near(t), -d_near(one - t), -d_far(two - t)]
}

/// The sampling geometry shared by the forward loop and the gradient.
#[derive(Clone, Copy, Debug)]
struct Sampler {
    mode: GridInterpolation,
    /// the spatial axes in the grid's coordinate order: x (the last dim, W), y (H), z (D)
    axes: [Axis; 3],
    dims: usize,
    /// flat input offset of one step along each axis
    strides: [usize; 3],
}

impl Sampler {
    fn new(input_spatial: &[usize], mode: GridInterpolation, padding: GridPadding, align_corners: bool) -> Sampler {
        let dims = input_spatial.len();
        let kernel = if dims == 2 { Kernel::Vectorized } else { Kernel::Scalar };
        let mut axes = [Axis { size: 1, align_corners, padding, kernel }; 3];
        let mut strides = [0; 3];
        let mut stride = 1;
        for a in 0..dims {
            axes[a].size = input_spatial[dims - 1 - a];
            strides[a] = stride;
            stride *= axes[a].size;
        }
        Sampler { mode, axes, dims, strides }
    }

    /// The input offset of whole-number 2-D coordinates (`OUTSIDE_READ` outside).
    #[inline(always)]
    fn planar_offset<F: Float>(&self, x: F, y: F) -> usize {
        let inside = |v: F, size: usize| v >= F::ZERO && v < F::from_f64(size as f64);
        if inside(x, self.axes[0].size) && inside(y, self.axes[1].size) {
            y.to_f64() as usize * self.strides[1] + x.to_f64() as usize
        } else {
            OUTSIDE_READ
        }
    }

    /// One 2-D bilinear point's `PointReads`, computed directly (the forward's `planar_reads` keeps its
    /// reads and weights).
    #[inline(always)]
    fn planar_bilinear_point<F: Float>(&self, xy: &[F]) -> PointReads<F, 4> {
        let [ax, ay, _] = self.axes;
        let (x, x_grad) = ax.pad(ax.unnormalize(xy[0]));
        let (y, y_grad) = ay.pad(ay.unnormalize(xy[1]));
        let (x0, y0) = (x.floor(), y.floor());
        let (tx, ty) = (x - x0, y - y0);
        let (x1, y1) = (x0 + F::ONE, y0 + F::ONE);
        let (wx0, wy0) = (F::ONE - tx, F::ONE - ty);
        let zero = F::ZERO;
        PointReads {
            at: [
                self.planar_offset(x0, y0),
                self.planar_offset(x1, y0),
                self.planar_offset(x0, y1),
                self.planar_offset(x1, y1),
            ],
            weight: [wx0 * wy0, tx * wy0, wx0 * ty, tx * ty],
            // d(weight)/d(tx) and d(weight)/d(ty): the x weights' slopes are -1 and 1, as the y weights'
            slope: [[-wy0, -wx0, zero], [wy0, -tx, zero], [-ty, wx0, zero], [ty, tx, zero]],
            mult: [x_grad * ax.scale::<F>(), y_grad * ay.scale::<F>(), zero],
        }
    }

    /// Any point's `PointReads`, through its taps.
    #[inline(always)]
    fn point_reads<F: Float, const READS: usize>(&self, coords: &[F]) -> PointReads<F, READS> {
        let taps = self.point(coords);
        let mut reads = PointReads {
            at: [OUTSIDE_READ; READS],
            weight: [F::ZERO; READS],
            slope: [[F::ZERO; 3]; READS],
            mult: [F::ZERO; 3],
        };
        let mut r = 0;
        self.reads(&taps, |offset, w, s| {
            (reads.at[r], reads.weight[r], reads.slope[r]) = (offset.unwrap_or(OUTSIDE_READ), w, s);
            r += 1;
        });
        for (m, tap) in reads.mult.iter_mut().zip(&taps) {
            *m = tap.mult;
        }
        reads
    }

    /// A 2-D bilinear or nearest sampler, which `planar_reads` serves.
    fn is_planar_linear(&self) -> bool {
        self.dims == 2 && self.mode != GridInterpolation::Bicubic
    }

    /// The taps of one grid point (its `dims` coordinates) along each axis.
    #[inline(always)]
    fn point<F: Float>(&self, coords: &[F]) -> [AxisTaps<F>; 3] {
        let mut taps = [AxisTaps::none(); 3];
        for a in 0..self.dims {
            taps[a] = self.axes[a].taps(self.mode, coords[a]);
        }
        taps
    }

    /// Visits a point's reads, the last axis outermost and x innermost (torch's summation order), as
    /// (input offset or `None` outside, weight, and per axis the weight's slope along that axis' fraction).
    #[inline(always)]
    fn reads<F: Float>(&self, taps: &[AxisTaps<F>; 3], mut visit: impl FnMut(Option<usize>, F, [F; 3])) {
        let n = self.mode.taps();
        let (ny, nz) = (if self.dims > 1 { n } else { 1 }, if self.dims > 2 { n } else { 1 });
        for k in 0..nz {
            for j in 0..ny {
                for i in 0..n {
                    let mut weight = taps[0].weight[i];
                    let mut slopes = [taps[0].slope[i], taps[0].weight[i], taps[0].weight[i]];
                    let mut offset = taps[0].index[i].map(|x| x * self.strides[0]);
                    for (a, tap) in [(1, j), (2, k)].into_iter().take(self.dims - 1) {
                        weight = weight * taps[a].weight[tap];
                        for (b, slope) in slopes.iter_mut().enumerate() {
                            *slope = *slope * if a == b { taps[a].slope[tap] } else { taps[a].weight[tap] };
                        }
                        offset = offset.zip(taps[a].index[tap]).map(|(o, p)| o + p * self.strides[a]);
                    }
                    visit(offset, weight, slopes);
                }
            }
        }
    }
}

/// 4-D or 5-D, as the `grad_fn` names say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SamplerDims {
    Two,
    Three,
}

impl AsField for SamplerDims {
    fn as_field(&self) -> Field<'_> {
        Field::Opaque
    }
}

/// torch's `check_grid_sampler_common`, `_2d` and `_3d` (`dims`: the function called, None for
/// `grid_sampler`, which dispatches on the input's rank).
fn check(input: &Tensor, grid: &Tensor, dims: Option<SamplerDims>) -> Result<SamplerDims> {
    let (ishape, gshape) = (input.shape(), grid.shape());
    if input.dtype() != grid.dtype() {
        bail!(
            Runtime,
            "expected scalar type {} but found {}",
            input.dtype().scalar_type_name(),
            grid.dtype().scalar_type_name()
        );
    }
    if !ishape.is_empty() && !gshape.is_empty() && ishape[0] != gshape[0] {
        bail!(
            Runtime,
            "grid_sampler(): expected grid and input to have same batch size, but got input with sizes {ishape:?} \
            and grid with sizes {gshape:?}"
        );
    }
    // torch compares with the input's rank - 2, which is negative for a 1-D input
    let want = ishape.len() as i64 - 2;
    if gshape.last().map(|&s| s as i64) != Some(want) {
        bail!(
            Runtime,
            "grid_sampler(): expected grid to have size {want} in last dimension, but got grid with sizes {gshape:?}"
        );
    }
    if let Some(d) = (2..ishape.len()).find(|&d| ishape[d] == 0) {
        bail!(
            Runtime,
            "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes {ishape:?} \
            with dimension {d} being empty"
        );
    }
    let dims = dims.unwrap_or(if ishape.len() == 4 { SamplerDims::Two } else { SamplerDims::Three });
    let rank = if dims == SamplerDims::Two { 4 } else { 5 };
    if ishape.len() != rank || gshape.len() != rank {
        bail!(
            Runtime,
            "grid_sampler(): expected {rank}D input and grid with same number of dimensions, but got input with \
            sizes {ishape:?} and grid with sizes {gshape:?}"
        );
    }
    if !input.dtype().is_float() {
        let kernel = if dims == SamplerDims::Two { "grid_sampler_2d_cpu_kernel_impl" } else { "grid_sampler3d_cpu" };
        bail!(NotImplemented, "\"{kernel}\" not implemented for '{}'", input.dtype().scalar_type_name());
    }
    Ok(dims)
}

impl Tensor {
    /// `grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)`: `self` (N, C, *S)
    /// sampled at `grid` (N, *O, len(S)), giving (N, C, *O); grad_fn GridSampler2DBackward0 or
    /// GridSampler3DBackward0. `dims` names the 2-D or 3-D function (None: by the input's rank).
    pub fn grid_sampler(
        &self,
        grid: &Tensor,
        mode: GridInterpolation,
        padding: GridPadding,
        align_corners: bool,
        dims: Option<SamplerDims>,
    ) -> Result<Tensor> {
        let dims = check(self, grid, dims)?;
        let (n, ch) = (self.shape()[0], self.shape()[1]);
        let points = &grid.shape()[1..grid.ndim() - 1];
        let mut out_shape = vec![n, ch];
        out_shape.extend_from_slice(points);
        let sampler = Sampler::new(&self.shape()[2..], mode, padding, align_corners);
        let out = match self.dtype() {
            DType::F64 => forward::<f64>(&self.detach(), &grid.detach(), &sampler, &out_shape)?,
            DType::F32 => forward::<f32>(&self.detach(), &grid.detach(), &sampler, &out_shape)?,
            dtype => {
                let (x, g) = (self.detach().to_dtype(DType::F32)?, grid.detach().to_dtype(DType::F32)?);
                forward::<f32>(&x, &g, &sampler, &out_shape)?.to_dtype(dtype)?
            }
        };
        Ok(record(out, &[self, grid], |_| GridSamplerBackward {
            dims,
            input: SavedTensor::input(self),
            grid: SavedTensor::input(grid),
            interpolation_mode: mode.code(),
            padding_mode: padding.code(),
            align_corners,
        }))
    }
}

/// The sampled values (no graph).
fn forward<F: Float>(input: &Tensor, grid: &Tensor, sampler: &Sampler, out_shape: &[usize]) -> Result<Tensor> {
    let total = crate::layout::numel(out_shape);
    if total == 0 {
        return Ok(Tensor::zeros(out_shape, input.dtype()));
    }
    let (input, grid) = (input.contiguous()?, grid.contiguous()?);
    let channels = out_shape[1];
    let plane = total / (out_shape[0] * channels);
    let in_plane: usize = input.shape()[2..].iter().product();
    let dims = sampler.dims;
    let mut out = crate::pool::filled(total, F::ZERO);
    let per_point = sampler.mode.taps().pow(dims as u32);
    // a task is a run of one batch's points, all channels: its points' reads are computed once
    let reads_per_point = per_point * channels;
    let points_per_task =
        crate::kernels::split::GRID_SAMPLE_READS.div_ceil(reads_per_point.max(1)).next_multiple_of(POINTS_PER_BLOCK);
    let tasks_per_batch = plane.div_ceil(points_per_task);
    let out_ptr = OutPtr(out.as_mut_ptr());
    input.with_data(|il, xs: &[F]| {
        let xs = &xs[il.contiguous_range().expect("contiguous")];
        grid.with_data(|gl, gs: &[F]| {
            let gs = &gs[gl.contiguous_range().expect("contiguous")];
            par_for(out_shape[0] * tasks_per_batch, &|task| {
                #[allow(clippy::redundant_locals)] // captures the whole wrapper (Sync), not its raw pointer field
                let out_ptr = out_ptr;
                let (batch, first) = (task / tasks_per_batch, task % tasks_per_batch * points_per_task);
                let last = plane.min(first + points_per_task);
                let coords = &gs[batch * plane * dims..][..plane * dims];
                let mut offsets: Vec<usize> = Vec::with_capacity(POINTS_PER_BLOCK * per_point);
                let mut weights: Vec<F> = Vec::with_capacity(POINTS_PER_BLOCK * per_point);
                for start in (first..last).step_by(POINTS_PER_BLOCK) {
                    let stop = last.min(start + POINTS_PER_BLOCK);
                    offsets.clear();
                    weights.clear();
                    let block = &coords[start * dims..stop * dims];
                    if sampler.is_planar_linear() {
                        offsets.resize(block.len() / 2 * per_point, OUTSIDE_READ);
                        weights.resize(block.len() / 2 * per_point, F::ZERO);
                        crate::kernels::simd::dispatch!(planar_reads(sampler, block, &mut offsets, &mut weights));
                    } else {
                        crate::kernels::simd::dispatch!(tap_reads(sampler, block, &mut offsets, &mut weights));
                    }
                    for c in 0..channels {
                        let index = batch * channels + c;
                        let src = &xs[index * in_plane..][..in_plane];
                        // SAFETY: out[index * plane + start..index * plane + stop] lies inside `out` (index < N·C,
                        // stop <= plane) and is written by this task only: tasks cover disjoint (batch, point)
                        // runs; `out` stays borrowed by `out_ptr` until par_for has returned.
                        let dst = unsafe {
                            std::slice::from_raw_parts_mut(out_ptr.0.add(index * plane + start), stop - start)
                        };
                        match per_point {
                            1 => weigh_reads::<F, 1>(src, &offsets, &weights, dst),
                            4 => weigh_reads::<F, 4>(src, &offsets, &weights, dst),
                            8 => weigh_reads::<F, 8>(src, &offsets, &weights, dst),
                            16 => weigh_reads::<F, 16>(src, &offsets, &weights, dst),
                            _ => weigh_reads::<F, 64>(src, &offsets, &weights, dst),
                        }
                    }
                }
            });
        })
    });
    Tensor::from_vec(out, out_shape)
}

/// `Sampler::reads` for a block of 2-D bilinear or nearest points (`coords` x, y per point), written
/// for the compiler to vectorize: no per-point taps structs, rounding inlined (the caller compiles this
/// for the CPU's vector units).
#[inline(always)]
fn planar_reads<F: Float>(sampler: &Sampler, coords: &[F], offsets: &mut [usize], weights: &mut [F]) {
    let [ax, ay, _] = sampler.axes;
    let offset = |x: F, y: F| sampler.planar_offset(x, y);
    let points = coords.chunks_exact(2);
    if sampler.mode == GridInterpolation::Nearest {
        for ((xy, at), w) in points.zip(offsets.iter_mut()).zip(weights.iter_mut()) {
            let x = ax.pad(ax.unnormalize(xy[0])).0.round_even();
            let y = ay.pad(ay.unnormalize(xy[1])).0.round_even();
            (*at, *w) = (offset(x, y), F::ONE);
        }
        return;
    }
    for ((xy, at), w) in points.zip(offsets.chunks_exact_mut(4)).zip(weights.chunks_exact_mut(4)) {
        // the gradient's slopes and multipliers are computed and dropped (inlined, the compiler removes them)
        let reads = sampler.planar_bilinear_point(xy);
        at.copy_from_slice(&reads.at);
        w.copy_from_slice(&reads.weight);
    }
}

/// `Sampler::reads` for a block of any points, appended to `offsets` and `weights` (the caller compiles this
/// for the CPU's vector units, so the rounding is inlined).
#[inline(always)]
fn tap_reads<F: Float>(sampler: &Sampler, coords: &[F], offsets: &mut Vec<usize>, weights: &mut Vec<F>) {
    for point in coords.chunks_exact(sampler.dims) {
        sampler.reads(&sampler.point(point), |at, w, _| {
            offsets.push(at.unwrap_or(OUTSIDE_READ));
            weights.push(w);
        });
    }
}

/// Each output point's value: the sum of its `READS` reads' weighted values, in order. An outside read
/// (`OUTSIDE_READ`) adds weight × 0, so NaN weights reach the output as in torch.
fn weigh_reads<F: Float, const READS: usize>(src: &[F], offsets: &[usize], weights: &[F], dst: &mut [F]) {
    let reads = offsets.chunks_exact(READS).zip(weights.chunks_exact(READS));
    for (o, (at, w)) in dst.iter_mut().zip(reads) {
        let term = |r: usize| src.get(at[r]).copied().unwrap_or(F::ZERO) * w[r];
        *o = (1..READS).fold(term(0), |acc, r| acc + term(r));
    }
}

crate::backward_rule! {
    name_by = |rule| match (rule.dims) {
        SamplerDims::Two => "GridSampler2DBackward0",
        SamplerDims::Three => "GridSampler3DBackward0",
    };
    pub struct GridSamplerBackward {
        dims: SamplerDims,
        input: SavedTensor,
        grid: SavedTensor,
        interpolation_mode: i64,
        padding_mode: i64,
        align_corners: bool,
    }
}

/// The gradients the composed rule below computes, in one pass over the points without a graph: each
/// read adds `g · weight` to the input's gradient and `g · value · slope` to its axis' sum, which times
/// d(coordinate)/d(grid) is the grid's gradient. Tasks are batches (each owns its rows of both gradients).
fn fused_grads<F: Float>(
    input: &Tensor,
    grid: &Tensor,
    g: &Tensor,
    sampler: &Sampler,
    (want_input, want_grid): (bool, bool),
) -> Result<Grads> {
    let (input, grid, g) = (input.contiguous()?, grid.contiguous()?, g.contiguous()?);
    let (n, channels) = (input.shape()[0], input.shape()[1]);
    let dims = sampler.dims;
    let in_plane: usize = input.shape()[2..].iter().product();
    let points = grid.numel() / dims / n.max(1);
    let mut grad_input = crate::pool::filled(if want_input { input.numel() } else { 0 }, F::ZERO);
    // nearest's weights are constant: its grid gradient is zero
    let grid_moves = want_grid && sampler.mode != GridInterpolation::Nearest;
    let mut grad_grid = crate::pool::filled(if want_grid { grid.numel() } else { 0 }, F::ZERO);
    let (gi_ptr, gg_ptr) = (OutPtr(grad_input.as_mut_ptr()), OutPtr(grad_grid.as_mut_ptr()));
    input.with_data(|il, xs: &[F]| {
        let xs = &xs[il.contiguous_range().expect("contiguous")];
        grid.with_data(|gl, coords: &[F]| {
            let coords = &coords[gl.contiguous_range().expect("contiguous")];
            g.with_data(|ol, gs: &[F]| {
                let gs = &gs[ol.contiguous_range().expect("contiguous")];
                par_for(n, &|batch| {
                    #[allow(clippy::redundant_locals)] // captures the whole wrappers (Sync), not their raw pointers
                    let (gi_ptr, gg_ptr) = (gi_ptr, gg_ptr);
                    let planes = batch * channels * in_plane..(batch + 1) * channels * in_plane;
                    // SAFETY: each task writes only its batch's input planes and grid rows, which lie inside the
                    // buffers (sized N·C·plane and N·P·dims, or 0 when not wanted, then never written); the
                    // buffers stay borrowed by the pointers until par_for has returned.
                    let (gi, gg) = unsafe {
                        let gi = if want_input {
                            std::slice::from_raw_parts_mut(gi_ptr.0.add(planes.start), planes.len())
                        } else {
                            &mut []
                        };
                        let gg = if grid_moves {
                            std::slice::from_raw_parts_mut(gg_ptr.0.add(batch * points * dims), points * dims)
                        } else {
                            &mut []
                        };
                        (gi, gg)
                    };
                    let batch_data = BatchGrads {
                        xs: &xs[planes],
                        gs: &gs[batch * channels * points..][..channels * points],
                        coords: &coords[batch * points * dims..][..points * dims],
                        channels,
                        in_plane,
                    };
                    crate::kernels::simd::dispatch!(batch_grads(&batch_data, sampler, gi, gg));
                });
            })
        })
    });
    let grad_input = want_input.then(|| Tensor::from_vec(grad_input, input.shape())).transpose()?;
    let grad_grid = want_grid.then(|| Tensor::from_vec(grad_grid, grid.shape())).transpose()?;
    Ok(vec![grad_input, grad_grid])
}

/// `BatchGrads::run` with the reads per point and the axes known (compiled for the CPU's vector units).
#[inline(always)]
fn batch_grads<F: Float>(batch: &BatchGrads<'_, F>, sampler: &Sampler, gi: &mut [F], gg: &mut [F]) {
    match (sampler.dims, sampler.mode.taps()) {
        (2, 1) => batch.run::<1, 2>(
            gi,
            gg,
            #[inline(always)]
            |point| sampler.point_reads(point),
        ),
        (2, 2) => batch.run::<4, 2>(
            gi,
            gg,
            #[inline(always)]
            |point| sampler.planar_bilinear_point(point),
        ),
        (2, _) => batch.run::<16, 2>(
            gi,
            gg,
            #[inline(always)]
            |point| sampler.point_reads(point),
        ),
        (_, 1) => batch.run::<1, 3>(
            gi,
            gg,
            #[inline(always)]
            |point| sampler.point_reads(point),
        ),
        (_, 2) => batch.run::<8, 3>(
            gi,
            gg,
            #[inline(always)]
            |point| sampler.point_reads(point),
        ),
        _ => batch.run::<64, 3>(
            gi,
            gg,
            #[inline(always)]
            |point| sampler.point_reads(point),
        ),
    }
}

/// One point's reads for the gradient: input offsets (`OUTSIDE_READ` outside), weights, each weight's slope
/// along every axis' fraction, and per axis d(coordinate)/d(grid).
struct PointReads<F, const READS: usize> {
    at: [usize; READS],
    weight: [F; READS],
    slope: [[F; 3]; READS],
    mult: [F; 3],
}

/// One batch's share of `fused_grads`: its input planes, incoming gradient rows and grid points.
struct BatchGrads<'a, F> {
    xs: &'a [F],
    gs: &'a [F],
    coords: &'a [F],
    channels: usize,
    in_plane: usize,
}

impl<F: Float> BatchGrads<'_, F> {
    /// `READS` reads per point over `DIMS` axes (known here, so the loops over them unroll); `gi` and `gg`
    /// are the batch's gradient rows, empty when not wanted.
    #[inline(always)]
    fn run<const READS: usize, const DIMS: usize>(
        &self,
        gi: &mut [F],
        gg: &mut [F],
        point_reads: impl Fn(&[F]) -> PointReads<F, READS>,
    ) {
        let points = self.coords.len() / DIMS;
        for (p, point) in self.coords.chunks_exact(DIMS).enumerate() {
            let PointReads { at, weight, slope, mult } = point_reads(point);
            let mut along = [F::ZERO; DIMS];
            for c in 0..self.channels {
                let gv = self.gs[c * points + p];
                let plane = c * self.in_plane..(c + 1) * self.in_plane;
                if !gi.is_empty() {
                    let gi = &mut gi[plane.clone()];
                    for r in 0..READS {
                        if let Some(cell) = gi.get_mut(at[r]) {
                            *cell = *cell + gv * weight[r];
                        }
                    }
                }
                if !gg.is_empty() {
                    let xs = &self.xs[plane];
                    for r in 0..READS {
                        let v = gv * xs.get(at[r]).copied().unwrap_or(F::ZERO);
                        for a in 0..DIMS {
                            along[a] = along[a] + v * slope[r][a];
                        }
                    }
                }
            }
            if !gg.is_empty() {
                for (a, out) in gg[p * DIMS..][..DIMS].iter_mut().enumerate() {
                    *out = along[a] * mult[a];
                }
            }
        }
    }
}

/// The grid's constants for the gradient: per axis the fractional coordinates and their multipliers
/// (N·P each), and the flat input positions of every read (reads × N·P, -1 outside) with the read's tap
/// along each axis.
struct GradPlan {
    frac: Vec<Vec<f64>>,
    mult: Vec<Vec<f64>>,
    positions: Vec<i64>,
    reads: usize,
}

fn grad_plan<F: Float>(grid: &Tensor, sampler: &Sampler) -> Result<GradPlan> {
    let dims = sampler.dims;
    let grid = grid.contiguous()?;
    let points = grid.numel() / dims;
    let reads = sampler.mode.taps().pow(dims as u32);
    let mut plan = GradPlan {
        frac: vec![Vec::with_capacity(points); dims],
        mult: vec![Vec::with_capacity(points); dims],
        positions: vec![-1; reads * points],
        reads,
    };
    grid.with_data(|l, gs: &[F]| {
        let gs = &gs[l.contiguous_range().expect("contiguous")];
        for (p, coords) in gs.chunks_exact(dims).enumerate() {
            let taps = sampler.point(coords);
            for (tap, (frac, mult)) in taps.iter().zip(plan.frac.iter_mut().zip(plan.mult.iter_mut())) {
                frac.push(tap.frac.to_f64());
                mult.push(tap.mult.to_f64());
            }
            let mut r = 0;
            sampler.reads(&taps, |at, _, _| {
                plan.positions[r * points + p] = at.map_or(-1, |x| x as i64);
                r += 1;
            });
        }
    });
    Ok(plan)
}

/// One axis' weights (taps, N, P) and their derivatives in the fraction, as ops on `t` (N, P).
fn axis_weights(mode: GridInterpolation, t: &Tensor) -> Result<(Tensor, Tensor)> {
    match mode {
        GridInterpolation::Nearest => {
            let one = t.mul(&c(0.0))?.add(&c(1.0))?;
            Ok((one.unsqueeze(0)?, t.mul(&c(0.0))?.unsqueeze(0)?))
        }
        GridInterpolation::Bilinear => {
            let w = Tensor::stack(&[c(1.0).sub(t)?, t.clone()], 0)?;
            let dw = Tensor::stack(&[t.mul(&c(0.0))?.sub(&c(1.0))?, t.mul(&c(0.0))?.add(&c(1.0))?], 0)?;
            Ok((w, dw))
        }
        GridInterpolation::Bicubic => {
            // near(x) = ((A+2)x - (A+3))x² + 1 for |x| ≤ 1, far(x) = ((Ax - 5A)x + 8A)x - 4A for 1 < |x| < 2;
            // the taps sit at distances t+1, t, 1-t, 2-t
            let a = CUBIC_A;
            let near = |x: &Tensor| x.mul(&c(a + 2.0))?.sub(&c(a + 3.0))?.mul(x)?.mul(x)?.add(&c(1.0));
            let far = |x: &Tensor| x.mul(&c(a))?.sub(&c(5.0 * a))?.mul(x)?.add(&c(8.0 * a))?.mul(x)?.sub(&c(4.0 * a));
            let d_near = |x: &Tensor| x.mul(&c(3.0 * (a + 2.0)))?.sub(&c(2.0 * (a + 3.0)))?.mul(x);
            let d_far = |x: &Tensor| x.mul(&c(3.0 * a))?.sub(&c(10.0 * a))?.mul(x)?.add(&c(8.0 * a));
            let (t1, rest, rest1) = (t.add(&c(1.0))?, c(1.0).sub(t)?, c(2.0).sub(t)?);
            let w = Tensor::stack(&[far(&t1)?, near(t)?, near(&rest)?, far(&rest1)?], 0)?;
            // d/dt of each tap's weight: the distance grows with t for the first two taps, shrinks for the others
            let dw = Tensor::stack(&[d_far(&t1)?, d_near(t)?, d_near(&rest)?.neg()?, d_far(&rest1)?.neg()?], 0)?;
            Ok((w, dw))
        }
    }
}

impl Backward for GridSamplerBackward {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (input, grid) = (ctx.unpack(&self.input)?, ctx.unpack(&self.grid)?);
        let mode = GridInterpolation::from_code(self.interpolation_mode)?;
        let padding = GridPadding::from_code(self.padding_mode)?;
        let sampler = Sampler::new(&input.shape()[2..], mode, padding, self.align_corners);
        // without create_graph the gradients need no graph: one pass instead of the composed ops below
        if !crate::autograd::grad_mode::is_enabled() {
            let want = (ctx.needs(0), ctx.needs(1));
            match input.dtype() {
                DType::F32 => return fused_grads::<f32>(&input, &grid, g, &sampler, want),
                DType::F64 => return fused_grads::<f64>(&input, &grid, g, &sampler, want),
                _ => {}
            }
        }
        let dims = sampler.dims;
        let (n, ch) = (input.shape()[0], input.shape()[1]);
        let in_plane: usize = input.shape()[2..].iter().product();
        let points = grid.numel() / dims.max(1) / n.max(1);
        let plan = if grid.dtype() == DType::F64 {
            grad_plan::<f64>(&grid.detach(), &sampler)?
        } else {
            grad_plan::<f32>(&grid.detach().to_dtype(DType::F32)?, &sampler)?
        };
        let dtype = input.dtype();
        let constant = |v: &[f64]| Tensor::from_vec(v.to_vec(), &[n, points])?.to_dtype(dtype);
        // each axis' fraction with the grid's history: its value, and d/dgrid = mult
        let grid_flat = grid.reshape(&[n, points, dims])?;
        let mut weights = Vec::with_capacity(dims);
        for a in 0..dims {
            let coord = grid_flat.select(2, a as isize)?;
            let mult = constant(&plan.mult[a])?;
            let t = constant(&plan.frac[a])?.add(&mult.mul(&coord.sub(&coord.detach())?)?)?;
            weights.push((axis_weights(mode, &t)?, mult));
        }
        // every read's weight (reads, N, P) and its derivative along each axis: products over the axes,
        // x varying fastest
        let taps = mode.taps();
        let view = |w: &Tensor, a: usize| -> Result<Tensor> {
            let mut shape = vec![1; dims];
            shape[dims - 1 - a] = taps;
            shape.extend([n, points]);
            w.reshape(&shape)
        };
        let product = |deriv: Option<usize>| -> Result<Tensor> {
            let mut acc: Option<Tensor> = None;
            for (a, ((w, dw), _)) in weights.iter().enumerate() {
                let factor = view(if deriv == Some(a) { dw } else { w }, a)?;
                acc = Some(match acc {
                    None => factor,
                    Some(p) => p.mul(&factor)?,
                });
            }
            acc.expect("at least one axis").reshape(&[plan.reads, n, 1, points])
        };
        // the flat input positions of every read of every channel: (reads, N, C, P)
        let mut positions = Vec::with_capacity(plan.reads * n * ch * points);
        for r in 0..plan.reads {
            for b in 0..n {
                let row = &plan.positions[(r * n + b) * points..][..points];
                for k in 0..ch {
                    let base = ((b * ch + k) * in_plane) as i64;
                    positions.extend(row.iter().map(|&p| if p < 0 { -1 } else { base + p }));
                }
            }
        }
        let positions = Arc::new(positions);
        let read_shape = [plan.reads, n, ch, points];
        let g = g.reshape(&[1, n, ch, points])?;
        let grad_input = ctx.grad_if(0, || {
            let spread = g.mul(&product(None)?)?.expand(&read_shape)?.contiguous()?;
            let node = crate::ops::index::IndexPutBackward0::gradient_write(true);
            Tensor::zeros(input.shape(), dtype).put_flat(positions.clone(), &spread, true, node)
        })?;
        let grad_grid = ctx.grad_if(1, || {
            if mode == GridInterpolation::Nearest {
                return Ok(Tensor::zeros(grid.shape(), grid.dtype()));
            }
            let values =
                input.take_flat(positions.clone(), &read_shape, crate::ops::index::IndexBackward0::of(&input))?;
            let weighted = g.mul(&values)?;
            let mut parts = Vec::with_capacity(dims);
            for (a, (_, mult)) in weights.iter().enumerate() {
                let along = weighted.mul(&product(Some(a))?)?.sum(Some(&[0, 2]), false)?;
                parts.push(along.mul(mult)?);
            }
            Tensor::stack(&parts, 2)?.reshape(grid.shape())
        })?;
        Ok(vec![grad_input, grad_grid])
    }
}
