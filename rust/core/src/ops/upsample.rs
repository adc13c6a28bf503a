//! Interpolation (`nn.functional.interpolate`): nearest, nearest-exact, linear, cubic and area
//! resampling of the spatial dims of an (N, C, d1[, d2[, d3]]) tensor.
//!
//! Every mode is separable: along each spatial dim the output is a fixed sparse linear map of the
//! input (`AxisMap`, the taps of each output position, as PyTorch's CPU kernels compute them), and the
//! whole op applies the dims' maps one after another, the last dim first (PyTorch's nesting order).
//! The gradient is the transposed maps applied in the reverse order: a resample too, whose own
//! gradient is the forward one again, so `create_graph` works at every order.
use crate::autograd::{one, record, AsField, Backward, Ctx, Field, Grads};
use crate::bail;
use crate::compile::{traced, NodeKind};
use crate::element::{Element, Float};
use crate::error::Result;
use crate::kernels::threads::par_chunks_mut;
use crate::tensor::Tensor;
use crate::DType;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpsampleMode {
    Nearest,
    NearestExact,
    /// linear, bilinear or trilinear by the number of spatial dims
    Linear,
    /// bicubic (4-D input only)
    Cubic,
    /// adaptive average pooling
    Area,
}

/// One spatial dim's resampling as a sparse (out_len × in_len) matrix, row by row: output position j
/// reads `index[starts[j]..starts[j + 1]]` with the matching weights, summed in that order.
struct AxisMap {
    in_len: usize,
    starts: Vec<usize>,
    index: Vec<usize>,
    weight: Vec<f64>,
}

impl AxisMap {
    fn out_len(&self) -> usize {
        self.starts.len() - 1
    }

    fn from_rows(in_len: usize, out_len: usize, mut row: impl FnMut(usize, &mut Vec<(usize, f64)>)) -> AxisMap {
        let mut map = AxisMap { in_len, starts: Vec::with_capacity(out_len + 1), index: vec![], weight: vec![] };
        map.starts.push(0);
        let mut taps = Vec::new();
        for j in 0..out_len {
            taps.clear();
            row(j, &mut taps);
            for &(i, w) in &taps {
                map.index.push(i);
                map.weight.push(w);
            }
            map.starts.push(map.index.len());
        }
        map
    }

    /// Every output position reads its own input position with weight 1 (a pass to skip).
    fn is_identity(&self) -> bool {
        self.in_len == self.out_len()
            && self.starts.iter().enumerate().all(|(j, &s)| s == j)
            && self.index.iter().enumerate().all(|(j, &i)| i == j)
            && self.weight.iter().all(|&w| w == 1.0)
    }

    /// Every output position reads one input position with weight 1 (a copy, for any dtype).
    fn is_gather(&self) -> bool {
        self.starts.iter().enumerate().all(|(j, &s)| s == j) && self.weight.iter().all(|&w| w == 1.0)
    }

    /// The transposed matrix: input position i's row lists the outputs that read it, in output order.
    fn transpose(&self) -> AxisMap {
        let mut count = vec![0usize; self.in_len + 1];
        for &i in &self.index {
            count[i + 1] += 1;
        }
        for i in 0..self.in_len {
            count[i + 1] += count[i];
        }
        let starts = count.clone();
        let (mut index, mut weight) = (vec![0; self.index.len()], vec![0.0; self.index.len()]);
        for j in 0..self.out_len() {
            for k in self.starts[j]..self.starts[j + 1] {
                let slot = &mut count[self.index[k]];
                (index[*slot], weight[*slot]) = (j, self.weight[k]);
                *slot += 1;
            }
        }
        AxisMap { in_len: self.out_len(), starts, index, weight }
    }
}

/// The passes of one resample, in order: (spatial dim, its map).
type Passes = Vec<(usize, AxisMap)>;

/// A resample and its transpose, with the `grad_fn` names of the nodes that apply each.
pub struct Resample {
    forward: Passes,
    backward: Passes,
    names: [&'static str; 2],
}

/// PyTorch's `area_pixel_compute_scale`, in the kernels' compute type `F`.
fn pixel_scale<F: Float>(input: usize, output: usize, align_corners: bool, scale: Option<f64>) -> F {
    if align_corners {
        if output > 1 {
            F::from_f64((input - 1) as f64) / F::from_f64((output - 1) as f64)
        } else {
            F::ZERO
        }
    } else {
        match scale {
            Some(s) if s > 0.0 => F::from_f64(1.0 / s),
            _ => F::from_f64(input as f64) / F::from_f64(output as f64),
        }
    }
}

/// PyTorch's `area_pixel_compute_source_index`: the input coordinate output position `dst` maps to.
fn source_index<F: Float>(scale: F, dst: usize, align_corners: bool, cubic: bool) -> F {
    let dst = F::from_f64(dst as f64);
    if align_corners {
        return scale * dst;
    }
    let half = F::from_f64(0.5);
    let src = scale * (dst + half) - half;
    if !cubic && src < F::ZERO {
        F::ZERO
    } else {
        src
    }
}

/// `floorf` of a coordinate, as PyTorch's index computations take it (in float32 whatever `F` is).
fn floor_index<F: Float>(x: F) -> i64 {
    (x.to_f64() as f32).floor() as i64
}

/// The taps of one spatial dim for `mode`, computed in `F` (float32 for 32- and 16-bit floats, as
/// PyTorch's opmath type).
fn axis_map<F: Float>(
    mode: UpsampleMode,
    input: usize,
    output: usize,
    align_corners: bool,
    scale: Option<f64>,
) -> AxisMap {
    let last = input as i64 - 1;
    let clamp = |i: i64| i.clamp(0, last) as usize;
    match mode {
        UpsampleMode::Nearest | UpsampleMode::NearestExact => {
            let scale = pixel_scale::<F>(input, output, false, scale);
            AxisMap::from_rows(input, output, |j, taps| {
                let at = if mode == UpsampleMode::Nearest {
                    floor_index(source_index(scale, j, true, false))
                } else {
                    floor_index(source_index(scale, j, false, false) + F::from_f64(0.5))
                };
                taps.push((at.min(last) as usize, 1.0));
            })
        }
        UpsampleMode::Linear => {
            let scale = pixel_scale::<F>(input, output, align_corners, scale);
            AxisMap::from_rows(input, output, |j, taps| {
                if input == output {
                    taps.extend([(j, 1.0), (j, 0.0)]);
                    return;
                }
                let real = source_index(scale, j, align_corners, false);
                let i0 = floor_index(real).min(last);
                let lambda1 = clamp_unit(real - F::from_f64(i0 as f64));
                let lambda0 = F::ONE - lambda1;
                let i1 = if i0 < last { i0 + 1 } else { i0 };
                taps.extend([(i0 as usize, lambda0.to_f64()), (i1 as usize, lambda1.to_f64())]);
            })
        }
        UpsampleMode::Cubic => {
            let scale = pixel_scale::<F>(input, output, align_corners, scale);
            AxisMap::from_rows(input, output, |j, taps| {
                let real = source_index(scale, j, align_corners, true);
                let i0 = floor_index(real).min(last);
                let t = clamp_unit(real - F::from_f64(i0 as f64));
                for (k, w) in cubic_coefficients(t).into_iter().enumerate() {
                    taps.push((clamp(i0 - 1 + k as i64), w.to_f64()));
                }
            })
        }
        UpsampleMode::Area => AxisMap::from_rows(input, output, |j, taps| {
            let (start, end) = (j * input / output, ((j + 1) * input).div_ceil(output));
            let w = 1.0 / (end - start) as f64;
            taps.extend((start..end).map(|i| (i, w)));
        }),
    }
}

fn clamp_unit<F: Float>(x: F) -> F {
    if x < F::ZERO {
        F::ZERO
    } else if x > F::ONE {
        F::ONE
    } else {
        x
    }
}

/// Keys' cubic convolution weights with A = -0.75 (OpenCV's and PyTorch's) for the four taps around
/// a point at fraction `t` past the second.
fn cubic_coefficients<F: Float>(t: F) -> [F; 4] {
    let a = F::from_f64(-0.75);
    let [one, two, three, four, five, eight] = [1.0, 2.0, 3.0, 4.0, 5.0, 8.0].map(F::from_f64);
    let near = |x: F| ((a + two) * x - (a + three)) * x * x + one;
    let far = |x: F| ((a * x - five * a) * x + eight * a) * x - four * a;
    let rest = one - t;
    [far(t + one), near(t), near(rest), far(rest + one)]
}

/// The `grad_fn` names of the forward node and of its backward's node.
fn node_names(mode: UpsampleMode, dims: usize) -> [&'static str; 2] {
    use UpsampleMode::*;
    match (mode, dims) {
        (Nearest, 1) => ["UpsampleNearest1DBackward0", "UpsampleNearest1DBackwardBackward0"],
        (Nearest, 2) => ["UpsampleNearest2DBackward0", "UpsampleNearest2DBackwardBackward0"],
        (Nearest, _) => ["UpsampleNearest3DBackward0", "UpsampleNearest3DBackwardBackward0"],
        (NearestExact, 1) => ["UpsampleNearestExact1DBackward0", "UpsampleNearestExact1DBackwardBackward0"],
        (NearestExact, 2) => ["UpsampleNearestExact2DBackward0", "UpsampleNearestExact2DBackwardBackward0"],
        (NearestExact, _) => ["UpsampleNearestExact3DBackward0", "UpsampleNearestExact3DBackwardBackward0"],
        (Linear, 1) => ["UpsampleLinear1DBackward0", "UpsampleLinear1DBackwardBackward0"],
        (Linear, 2) => ["UpsampleBilinear2DBackward0", "UpsampleBilinear2DBackwardBackward0"],
        (Linear, _) => ["UpsampleTrilinear3DBackward0", "UpsampleTrilinear3DBackwardBackward0"],
        (Cubic, _) => ["UpsampleBicubic2DBackward0", "UpsampleBicubic2DBackwardBackward0"],
        (Area, 1 | 2) => ["AdaptiveAvgPool2DBackward0", "AdaptiveAvgPool2DBackwardBackward0"],
        (Area, _) => ["AdaptiveAvgPool3DBackward0", "AdaptiveAvgPool3DBackwardBackward0"],
    }
}

/// The name PyTorch's "not implemented for" error gives the kernel a dtype fails in.
fn kernel_name(mode: UpsampleMode, dims: usize) -> &'static str {
    use UpsampleMode::*;
    match (mode, dims) {
        (Nearest | NearestExact, 2) => "upsample_nearest2d_channels_last",
        (Nearest | NearestExact, _) => "compute_indices_weights_nearest",
        (Linear, 2) => "upsample_bilinear2d_channels_last",
        (Linear, _) => "compute_indices_weights_linear",
        (Cubic, _) => "compute_indices_weights_cubic",
        (Area, 3) => "adaptive_avg_pool3d_cpu",
        (Area, _) => "adaptive_avg_pool2d",
    }
}

/// PyTorch's size checks of an upsampling input and output (`upsample_{1,2,3}d_shape_check`).
fn check_sizes(shape: &[usize], output: &[i64]) -> Result<()> {
    let spatial = &shape[2..];
    if spatial.contains(&0) || output.iter().any(|&s| s <= 0) {
        let letters = &["D", "H", "W"][3 - spatial.len()..];
        let list =
            |v: Vec<String>| letters.iter().zip(v).map(|(l, s)| format!("{l}: {s}")).collect::<Vec<_>>().join(", ");
        let i = list(spatial.iter().map(|s| s.to_string()).collect());
        let o = list(output.iter().map(|s| s.to_string()).collect());
        if spatial.len() == 1 {
            bail!(Runtime, "Input and output sizes should be greater than 0, but got input ({i}) and output ({o})");
        }
        bail!(Runtime, "Input and output sizes should be greater than 0, but got input ({i}) output ({o})");
    }
    if shape[1] == 0 {
        bail!(Runtime, "Non-empty {}D data tensor expected but got a tensor with sizes {shape:?}", shape.len());
    }
    Ok(())
}

impl Tensor {
    /// Resamples the spatial dims (all but the first two) of a 3-, 4- or 5-D tensor to `output` with
    /// `mode`; `scales` are the user's scale factors when PyTorch passes them on (one per spatial dim,
    /// `None` to use the size ratio). grad_fn `Upsample<Mode><N>DBackward0`.
    pub fn upsample(
        &self,
        mode: UpsampleMode,
        output: &[i64],
        scales: &[Option<f64>],
        align_corners: bool,
    ) -> Result<Tensor> {
        let (output, scales) = (output.to_vec(), scales.to_vec());
        let eager = move |x: &[&Tensor]| x[0].upsample_eager(mode, &output, &scales, align_corners);
        let replay = eager.clone();
        traced("upsample", NodeKind::Opaque, &[self], || eager(&[self]), || replay)
    }

    fn upsample_eager(
        &self,
        mode: UpsampleMode,
        output: &[i64],
        scales: &[Option<f64>],
        align_corners: bool,
    ) -> Result<Tensor> {
        let nd = self.ndim();
        let dims = nd.saturating_sub(2);
        if !(3..=5).contains(&nd) || output.len() != dims || scales.len() != dims {
            bail!(
                Runtime,
                "upsample expects a 3-D, 4-D or 5-D input and one output size and scale per spatial dim, got \
                input of sizes {:?} and {} output sizes",
                self.shape(),
                output.len()
            );
        }
        if mode == UpsampleMode::Cubic && dims != 2 {
            bail!(Runtime, "bicubic interpolation needs a 4-D input, got {:?}", self.shape());
        }
        let dtype = self.dtype();
        let nearest = matches!(mode, UpsampleMode::Nearest | UpsampleMode::NearestExact);
        if !(dtype.is_float() || nearest && dtype == DType::U8) {
            bail!(NotImplemented, "\"{}\" not implemented for '{}'", kernel_name(mode, dims), dtype.scalar_type_name());
        }
        if mode == UpsampleMode::Area {
            // adaptive pooling: empty channels and an empty output are allowed
            if let Some(d) = (2..nd).find(|&d| self.shape()[d] == 0) {
                bail!(
                    Runtime,
                    "adaptive_avg_pool{dims}d(): Expected input to have non-zero size for non-batch dimensions, but \
                    input has sizes {:?} with dimension {d} being empty",
                    self.shape()
                );
            }
            if let Some(s) = output.iter().find(|&&s| s < 0) {
                bail!(
                    Runtime,
                    "adaptive_avg_pool{dims}d: elements of output_size must be greater than or equal to 0 but \
                    received {s}"
                );
            }
        } else {
            check_sizes(self.shape(), output)?;
        }
        let mut out_shape = self.shape()[..2].to_vec();
        out_shape.extend(output.iter().map(|&s| s as usize));
        crate::alloc::check_new_shape(&out_shape, dtype.itemsize())?;
        let in_shape = self.shape().to_vec();
        let build = |d: usize| {
            let (i, o) = (in_shape[2 + d], out_shape[2 + d]);
            if dtype == DType::F64 {
                axis_map::<f64>(mode, i, o, align_corners, scales[d])
            } else {
                axis_map::<f32>(mode, i, o, align_corners, scales[d])
            }
        };
        let forward: Passes = (0..dims).rev().map(|d| (d, build(d))).collect();
        let backward: Passes = forward.iter().rev().map(|(d, m)| (*d, m.transpose())).collect();
        let plan = Arc::new(Resample { forward, backward, names: node_names(mode, dims) });
        apply_resample(self, plan, Direction::Forward)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    Forward,
    Backward,
}

impl Direction {
    fn flipped(self) -> Direction {
        match self {
            Direction::Forward => Direction::Backward,
            Direction::Backward => Direction::Forward,
        }
    }
}

/// Applies the plan's passes for `dir` to `x`, recording a node whose gradient applies the others.
fn apply_resample(x: &Tensor, plan: Arc<Resample>, dir: Direction) -> Result<Tensor> {
    let passes = if dir == Direction::Forward { &plan.forward } else { &plan.backward };
    let mut shape = x.shape().to_vec();
    for (d, map) in passes.iter() {
        shape[2 + d] = map.out_len();
    }
    let out = resample_values(&x.detach(), passes, &shape)?;
    let input_sizes = x.shape().to_vec();
    let output_size = shape[2..].to_vec();
    Ok(record(out, &[x], |_| UpsampleBackward {
        name: plan.names[dir as usize],
        plan: ResamplePlan(plan.clone()),
        direction: dir.flipped(),
        self_sym_sizes: input_sizes,
        output_size,
    }))
}

/// The resampled values of `x` (no graph), in `x`'s dtype: 16-bit floats compute in float32.
fn resample_values(x: &Tensor, passes: &Passes, out_shape: &[usize]) -> Result<Tensor> {
    let dtype = x.dtype();
    if crate::layout::numel(out_shape) == 0 {
        return Ok(Tensor::zeros(out_shape, dtype));
    }
    let x = x.contiguous()?;
    match dtype {
        DType::F32 => run_passes::<f32>(&x, passes, out_shape, weighted_pass),
        DType::F64 => run_passes::<f64>(&x, passes, out_shape, weighted_pass),
        DType::F16 | DType::BF16 => resample_values(&x.to_dtype(DType::F32)?, passes, out_shape)?.to_dtype(dtype),
        // only gathers (nearest modes) reach here with integers, checked by `upsample`
        _ => crate::with_dtype!(dtype, T => run_passes::<T>(&x, passes, out_shape, gather_pass)),
    }
}

/// Runs one pass per map over a contiguous buffer: along spatial dim d the data is (outer, len, inner).
/// Maps that only pick positions copy (`gather_pass`) whatever `pass` is.
fn run_passes<T: Element>(
    x: &Tensor,
    passes: &Passes,
    out_shape: &[usize],
    pass: fn(&[T], usize, usize, &AxisMap) -> Vec<T>,
) -> Result<Tensor> {
    let mut shape = x.shape().to_vec();
    let data = x.with_data(|l, xs: &[T]| {
        let xs = &xs[l.contiguous_range().expect("contiguous")];
        let mut owned: Option<Vec<T>> = None;
        for (d, map) in passes {
            let axis = 2 + d;
            if !map.is_identity() {
                let (outer, inner) = (shape[..axis].iter().product(), shape[axis + 1..].iter().product());
                let src = owned.as_deref().unwrap_or(xs);
                let next =
                    if map.is_gather() { gather_pass(src, outer, inner, map) } else { pass(src, outer, inner, map) };
                if let Some(old) = owned.replace(next) {
                    crate::pool::give(old);
                }
            }
            shape[axis] = map.out_len();
        }
        owned.unwrap_or_else(|| xs.to_vec())
    });
    debug_assert_eq!(shape, out_shape);
    Tensor::from_vec(data, &shape)
}

/// How many output elements one parallel part writes at least.
const PART_ELEMENTS: usize = 1 << 15;

/// Rows of `row_len` output elements per parallel part.
fn rows_per_part(outer: usize, row_len: usize) -> usize {
    let by_size = PART_ELEMENTS.div_ceil(row_len.max(1));
    let by_threads = outer.div_ceil(crate::kernels::threads::threads() * 4);
    by_size.max(by_threads).max(1)
}

/// One weighted pass (the weights rounded to `T`, as PyTorch keeps them in the input's type).
fn weighted_pass<T: Float>(src: &[T], outer: usize, inner: usize, map: &AxisMap) -> Vec<T> {
    let (n_in, n_out) = (map.in_len, map.out_len());
    let weights: Vec<T> = map.weight.iter().map(|&w| T::from_f64(w)).collect();
    let mut out = crate::pool::filled(outer * n_out * inner, T::ZERO);
    let rows = rows_per_part(outer, n_out * inner);
    par_chunks_mut(&mut out, rows * n_out * inner, &|part, dst| {
        for (r, dst) in dst.chunks_exact_mut(n_out * inner).enumerate() {
            let src = &src[(part * rows + r) * n_in * inner..][..n_in * inner];
            for j in 0..n_out {
                let (lo, hi) = (map.starts[j], map.starts[j + 1]);
                if inner == 1 {
                    if lo < hi {
                        let mut acc = src[map.index[lo]] * weights[lo];
                        for k in lo + 1..hi {
                            acc = acc + src[map.index[k]] * weights[k];
                        }
                        dst[j] = acc;
                    }
                    continue;
                }
                let row = &mut dst[j * inner..][..inner];
                for k in lo..hi {
                    let (line, w) = (&src[map.index[k] * inner..][..inner], weights[k]);
                    if k == lo {
                        row.iter_mut().zip(line).for_each(|(o, &v)| *o = v * w);
                    } else {
                        row.iter_mut().zip(line).for_each(|(o, &v)| *o = *o + v * w);
                    }
                }
            }
        }
    });
    out
}

/// One pass of a map whose every output reads one input with weight 1: a copy, for any dtype.
fn gather_pass<T: Element>(src: &[T], outer: usize, inner: usize, map: &AxisMap) -> Vec<T> {
    debug_assert!(map.is_gather());
    let (n_in, n_out) = (map.in_len, map.out_len());
    let mut out = crate::pool::filled(outer * n_out * inner, T::ZERO);
    let rows = rows_per_part(outer, n_out * inner);
    par_chunks_mut(&mut out, rows * n_out * inner, &|part, dst| {
        for (r, dst) in dst.chunks_exact_mut(n_out * inner).enumerate() {
            let src = &src[(part * rows + r) * n_in * inner..][..n_in * inner];
            if inner == 1 {
                dst.iter_mut().zip(&map.index).for_each(|(o, &i)| *o = src[i]);
            } else {
                for (row, &i) in dst.chunks_exact_mut(inner).zip(&map.index) {
                    row.copy_from_slice(&src[i * inner..][..inner]);
                }
            }
        }
    });
    out
}

/// A shared resample plan as a rule field (its maps are not a PyTorch-visible attribute).
pub struct ResamplePlan(Arc<Resample>);

impl AsField for ResamplePlan {
    fn as_field(&self) -> Field<'_> {
        Field::Opaque
    }
}

impl AsField for Direction {
    fn as_field(&self) -> Field<'_> {
        Field::Opaque
    }
}

crate::backward_rule! {
    names = [
        "UpsampleNearest1DBackward0", "UpsampleNearest2DBackward0", "UpsampleNearest3DBackward0",
        "UpsampleNearestExact1DBackward0", "UpsampleNearestExact2DBackward0", "UpsampleNearestExact3DBackward0",
        "UpsampleLinear1DBackward0", "UpsampleBilinear2DBackward0", "UpsampleTrilinear3DBackward0",
        "UpsampleBicubic2DBackward0", "AdaptiveAvgPool2DBackward0", "AdaptiveAvgPool3DBackward0",
        "UpsampleNearest1DBackwardBackward0", "UpsampleNearest2DBackwardBackward0",
        "UpsampleNearest3DBackwardBackward0", "UpsampleNearestExact1DBackwardBackward0",
        "UpsampleNearestExact2DBackwardBackward0", "UpsampleNearestExact3DBackwardBackward0",
        "UpsampleLinear1DBackwardBackward0", "UpsampleBilinear2DBackwardBackward0",
        "UpsampleTrilinear3DBackwardBackward0", "UpsampleBicubic2DBackwardBackward0",
        "AdaptiveAvgPool2DBackwardBackward0", "AdaptiveAvgPool3DBackwardBackward0",
    ];
    /// A resample (or its transpose, for the backward's node): the gradient applies the other one.
    pub struct UpsampleBackward {
        name: &'static str,
        plan: ResamplePlan,
        direction: Direction,
        self_sym_sizes: Vec<usize>,
        output_size: Vec<usize>,
    }
}

impl Backward for UpsampleBackward {
    fn name(&self) -> &'static str {
        self.name
    }
    fn apply(&self, _: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(apply_resample(g, self.plan.0.clone(), self.direction))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_lists_readers_in_output_order() {
        let map = axis_map::<f64>(UpsampleMode::Linear, 3, 5, true, None);
        let t = map.transpose();
        assert_eq!(t.out_len(), 3);
        assert_eq!(t.in_len, 5);
        let back = t.transpose();
        assert_eq!(back.starts, map.starts);
        assert_eq!(back.index, map.index);
        assert_eq!(back.weight, map.weight);
    }

    #[test]
    fn linear_align_corners_weights() {
        // 3 → 5 with aligned corners: source positions 0, 0.5, 1, 1.5, 2
        let map = axis_map::<f64>(UpsampleMode::Linear, 3, 5, true, None);
        let row =
            |j: usize| (map.starts[j]..map.starts[j + 1]).map(|k| (map.index[k], map.weight[k])).collect::<Vec<_>>();
        assert_eq!(row(1), vec![(0, 0.5), (1, 0.5)]);
        assert_eq!(row(4), vec![(2, 1.0), (2, 0.0)]);
    }

    #[test]
    fn cubic_weights_sum_to_one() {
        let map = axis_map::<f64>(UpsampleMode::Cubic, 4, 7, false, None);
        for j in 0..7 {
            let s: f64 = map.weight[map.starts[j]..map.starts[j + 1]].iter().sum();
            assert!((s - 1.0).abs() < 1e-12);
        }
    }
}
