//! `embedding_bag`: the sum, mean or maximum of each bag of weight rows picked by index, without building
//! the picked rows (EmbeddingBagBackward0). Bags are ranges of a 1-D index tensor cut at `offsets`; rows at
//! `padding_idx` take no part (nor count for the mean), and an empty bag is zeros.
use crate::autograd::{record, AsField, Backward, Ctx, Field, Grads, SavedTensor};
use crate::bail;
use crate::compile::{operand_list, optional_args, traced, NodeKind};
use crate::element::Element;
use crate::error::Result;
use crate::ops::extreme::better;
use crate::ops::index::Positions;
use crate::tensor::Tensor;
use crate::{with_dtype, DType};
use std::sync::Arc;

/// How a bag's rows combine; the numbers are torch's (`_saved_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BagMode {
    Sum = 0,
    Mean = 1,
    Max = 2,
}

impl AsField for BagMode {
    fn as_field(&self) -> Field<'_> {
        Field::Int(*self as i64)
    }
}

/// The bags of a call: for each, the index positions it covers (padding rows left out) and its weight rows.
struct Bags {
    /// (bag, position in `indices`) of every index that takes part, in order.
    members: Vec<(usize, usize)>,
    /// How many rows take part in each bag (the mean's divisor, torch's `bag_size`), counted as torch's kernel
    /// counts them: the last bag to the end of `indices`, even where `include_last_offset` closes it earlier.
    sizes: Vec<usize>,
}

/// What `torch.embedding_bag` returns besides the bags (int64, or int32 where indices and offsets are):
/// each index's bag (`offset2bag`, empty where torch's float sum takes its fast path), each bag's size
/// (zeros for sum) and, for max, the row each maximum came from (else the sizes again).
pub struct BagAux {
    pub offset2bag: Tensor,
    pub bag_size: Tensor,
    pub max_indices: Tensor,
}

/// Checks `offsets` as torch does and cuts `n` indices into bags (the last one runs to the end unless
/// `include_last_offset`, where the last offset closes it).
fn bag_bounds(offsets: &[i64], n: usize, include_last_offset: bool) -> Result<Vec<(usize, usize)>> {
    if let Some(&first) = offsets.first() {
        if first != 0 {
            bail!(
                Runtime,
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. \
                 However, got {first}\n[ ferrograd.LongTensor{{}} ]"
            );
        }
    }
    if let Some(&last) = offsets.last() {
        if last > n as i64 {
            bail!(Runtime, "offsets[-1] can not be greater than input's length {n} but got offsets[-1] of {last}");
        }
    }
    if offsets.windows(2).any(|w| w[1] < w[0]) {
        bail!(Runtime, "offsets must be non-decreasing, but got {offsets:?}");
    }
    let starts = offsets.iter().map(|&o| o as usize);
    let bags = if include_last_offset { offsets.len().saturating_sub(1) } else { offsets.len() };
    let ends = offsets.iter().skip(1).map(|&o| o as usize).chain(std::iter::once(n));
    Ok(starts.zip(ends).take(bags).collect())
}

impl Tensor {
    /// One row per bag: `mode` over the rows of `weight` (2-D, floating) that `indices` (1-D, int64) picks
    /// in each bag, each scaled by its `per_sample_weights` entry (sum mode only). `scale_grad_by_freq`
    /// divides each row's gradient by how often `indices` picks it.
    pub fn embedding_bag(
        weight: &Tensor,
        indices: &Tensor,
        offsets: &Tensor,
        mode: BagMode,
        per_sample_weights: Option<&Tensor>,
        include_last_offset: bool,
        padding_idx: Option<usize>,
        scale_grad_by_freq: bool,
    ) -> Result<Tensor> {
        let (operands, given) = operand_list([Some(weight), Some(indices), Some(offsets), per_sample_weights]);
        let eager = move |x: &[&Tensor]| match optional_args(x, given) {
            [Some(w), Some(i), Some(o), psw] => {
                let args = (mode, psw, include_last_offset, padding_idx, scale_grad_by_freq);
                Tensor::embedding_bag_parts(w, i, o, args, false).map(|(out, _)| out)
            }
            _ => unreachable!("the weight, indices and offsets are always given"),
        };
        traced("embedding_bag", NodeKind::Opaque, &operands, || eager(&operands), || eager)
    }

    /// `embedding_bag` with torch's auxiliary outputs (`torch.embedding_bag`'s last three).
    #[allow(clippy::too_many_arguments)]
    pub fn embedding_bag_with_aux(
        weight: &Tensor,
        indices: &Tensor,
        offsets: &Tensor,
        mode: BagMode,
        per_sample_weights: Option<&Tensor>,
        include_last_offset: bool,
        padding_idx: Option<usize>,
        scale_grad_by_freq: bool,
    ) -> Result<(Tensor, BagAux)> {
        let args = (mode, per_sample_weights, include_last_offset, padding_idx, scale_grad_by_freq);
        let (out, aux) = Tensor::embedding_bag_parts(weight, indices, offsets, args, true)?;
        Ok((out, aux.expect("asked for")))
    }

    fn embedding_bag_parts(
        weight: &Tensor,
        indices: &Tensor,
        offsets: &Tensor,
        (mode, per_sample_weights, include_last_offset, padding_idx, scale_grad_by_freq): BagArgs<'_>,
        with_aux: bool,
    ) -> Result<(Tensor, Option<BagAux>)> {
        if !weight.dtype().is_float() {
            bail!(
                Runtime,
                "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, BFloat16, \
                 Float, Double; but got ferrograd.{} instead (while checking arguments for embedding_bag)",
                weight.dtype().legacy_name()
            );
        }
        if weight.ndim() != 2 || indices.ndim() != 1 || offsets.ndim() != 1 {
            bail!(Runtime, "embedding_bag: expected a 2-D weight and 1-D indices and offsets");
        }
        if let Some(psw) = per_sample_weights {
            if psw.dtype() != weight.dtype() {
                bail!(
                    Runtime,
                    "Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 \
                     'per_sample_weights'; but type ferrograd.{} does not equal ferrograd.{} (while checking \
                     arguments for embedding_bag)",
                    weight.dtype().legacy_name(),
                    psw.dtype().legacy_name()
                );
            }
            if psw.shape() != indices.shape() {
                bail!(Runtime, "embedding_bag: per_sample_weights must have the shape of the input");
            }
        }
        let (rows, dim) = (weight.shape()[0], weight.shape()[1]);
        let idx = indices.to_dtype(DType::I64)?.to_vec::<i64>();
        if let Some((at, &bad)) = idx.iter().enumerate().find(|(_, &i)| i < 0 || i as usize >= rows) {
            // torch's fast path (sum and mean below float64) and its generic one word this differently
            if mode == BagMode::Max || weight.dtype() == DType::F64 {
                bail!(Runtime, "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {bad}");
            }
            bail!(Runtime, "Index {at} of input takes value {bad} which is not in the valid range [0, {rows})");
        }
        let bounds = bag_bounds(&offsets.to_dtype(DType::I64)?.to_vec::<i64>(), idx.len(), include_last_offset)?;
        let mut bags = Bags { members: Vec::with_capacity(idx.len()), sizes: vec![0; bounds.len()] };
        // Where include_last_offset closes the last bag before the end of the indices, torch's kernels still
        // size it to the end (the mean's divisor), and all but its fast path (float32 sum or mean without
        // padding) sum it to the end too.
        let fast_path = mode != BagMode::Max && padding_idx.is_none() && weight.dtype() != DType::F64;
        for (b, &(start, end)) in bounds.iter().enumerate() {
            let size_end = if b + 1 == bounds.len() { idx.len() } else { end };
            let member_end = if fast_path { end } else { size_end };
            for (p, &i) in idx.iter().enumerate().take(size_end).skip(start) {
                if padding_idx != Some(i as usize) {
                    if p < member_end {
                        bags.members.push((b, p));
                    }
                    bags.sizes[b] += 1;
                }
            }
        }
        let w = weight.detach().contiguous()?;
        let psw = per_sample_weights.map(|t| t.detach().contiguous()).transpose()?;
        let (out, max_rows) = with_dtype!(w.dtype(), T => {
            let scales: Option<Vec<T>> = psw.as_ref().map(|t| t.to_vec::<T>());
            w.with_data(|l, src: &[T]| {
                let src = &src[l.contiguous_range().expect("contiguous")];
                let row = |i: usize| &src[idx[i] as usize * dim..][..dim];
                let mut out = crate::pool::filled(bounds.len() * dim, T::ZERO);
                // the weight row each max came from, -1 where a bag is empty
                let mut max_rows = vec![-1i64; if mode == BagMode::Max { bounds.len() * dim } else { 0 }];
                for &(b, p) in &bags.members {
                    let acc = &mut out[b * dim..][..dim];
                    match mode {
                        BagMode::Max => {
                            let from = &mut max_rows[b * dim..][..dim];
                            for ((a, f), &v) in acc.iter_mut().zip(from.iter_mut()).zip(row(p)) {
                                if *f < 0 || better(v, *a, true) {
                                    (*a, *f) = (v, idx[p]);
                                }
                            }
                        }
                        _ => {
                            let s = scales.as_ref().map(|s| s[p]);
                            for (a, &v) in acc.iter_mut().zip(row(p)) {
                                *a = T::add(*a, s.map_or(v, |s| T::mul(v, s)));
                            }
                        }
                    }
                }
                if mode == BagMode::Mean {
                    for (acc, &size) in out.chunks_exact_mut(dim.max(1)).zip(&bags.sizes) {
                        if size > 1 {
                            let n = T::from_f64(size as f64);
                            acc.iter_mut().for_each(|a| *a = T::div(*a, n));
                        }
                    }
                }
                Tensor::from_vec(out, &[bounds.len(), dim]).map(|t| (t, max_rows))
            })?
        });
        let freq = scale_grad_by_freq.then(|| {
            let mut counts = vec![0usize; rows];
            idx.iter().for_each(|&i| counts[i as usize] += 1);
            counts
        });
        let aux = with_aux
            .then(|| {
                let aux_dtype = crate::dtype::result_type(indices.promotion_key(), offsets.promotion_key());
                // torch's fast path skips offset2bag for sum
                let skip = fast_path && mode == BagMode::Sum;
                let offset2bag = if skip { Vec::new() } else { offset2bag(&bounds, idx.len()) };
                BagAux::new(offset2bag, &bags.sizes, mode, &max_rows, aux_dtype, offsets.numel())
            })
            .transpose()?;
        let rule = |_: &Tensor| EmbeddingBagBackward0 {
            mode,
            padding_idx,
            scale_grad_by_freq,
            weight: SavedTensor::input(weight),
            per_sample_weights: per_sample_weights.map(SavedTensor::input),
            weight_sym_sizes: vec![rows, dim],
            plan: Arc::new(GradientPlan::new(&bags, &idx, mode, freq.as_deref(), max_rows)),
        };
        let inputs: Vec<&Tensor> = std::iter::once(weight).chain(per_sample_weights).collect();
        Ok((record(out, &inputs, rule), aux))
    }
}

/// `embedding_bag`'s settings after its tensors.
type BagArgs<'a> = (BagMode, Option<&'a Tensor>, bool, Option<usize>, bool);

/// Each index position's bag: the number of bag starts at or before it, less one (torch's `make_offset2bag`).
fn offset2bag(bounds: &[(usize, usize)], n: usize) -> Vec<i64> {
    let mut starts = vec![0i64; n + 1];
    for &(start, _) in bounds {
        starts[start] += 1;
    }
    let mut bag = -1;
    starts[..n]
        .iter()
        .map(|&k| {
            bag += k;
            bag
        })
        .collect()
}

impl BagAux {
    /// `offsets` counts the offsets given: torch's zero sizes for sum have that length, include_last_offset or not.
    fn new(
        offset2bag: Vec<i64>,
        sizes: &[usize],
        mode: BagMode,
        max_rows: &[i64],
        dtype: DType,
        offsets: usize,
    ) -> Result<BagAux> {
        let long = |v: Vec<i64>, shape: &[usize]| Tensor::from_vec(v, shape)?.to_dtype(dtype);
        let n = offset2bag.len();
        let bags = sizes.len();
        let bag_size: Vec<i64> =
            if mode == BagMode::Sum { vec![0; offsets] } else { sizes.iter().map(|&s| s as i64).collect() };
        let max_indices = if mode == BagMode::Max {
            let dim = max_rows.len().checked_div(bags).unwrap_or(0);
            long(max_rows.iter().map(|&r| r.max(0)).collect(), &[bags, dim])?
        } else {
            long(bag_size.clone(), &[bag_size.len()])?
        };
        let sizes_len = bag_size.len();
        Ok(BagAux { offset2bag: long(offset2bag, &[n])?, bag_size: long(bag_size, &[sizes_len])?, max_indices })
    }
}

/// Where each bag's gradient goes, fixed at the forward: for sum and mean, each taking-part index's weight
/// row, its bag and the factor its gradient is scaled by; for max, the weight element each output came from.
#[derive(Debug)]
pub(crate) struct GradientPlan {
    rows: Vec<i64>,
    bags: Vec<i64>,
    /// The mean's 1/size and scale_grad_by_freq's 1/count, multiplied (per_sample_weights apart).
    factors: Vec<f64>,
    /// Each member's position in `indices` (where its per_sample_weights entry is).
    positions: Vec<i64>,
    /// max mode: per output element, the weight element it came from (-1: an empty bag).
    max_positions: Positions,
}

impl GradientPlan {
    fn new(bags: &Bags, idx: &[i64], mode: BagMode, freq: Option<&[usize]>, max_rows: Vec<i64>) -> GradientPlan {
        let dim = if bags.sizes.is_empty() { 0 } else { max_rows.len() / bags.sizes.len() };
        let max_positions = max_rows
            .iter()
            .enumerate()
            .map(|(k, &r)| if r < 0 { -1 } else { r * dim as i64 + (k % dim.max(1)) as i64 })
            .collect();
        let factor = |b: usize, p: usize| {
            let mean = if mode == BagMode::Mean { 1.0 / bags.sizes[b] as f64 } else { 1.0 };
            mean / freq.map_or(1.0, |f| f[idx[p] as usize] as f64)
        };
        GradientPlan {
            rows: bags.members.iter().map(|&(_, p)| idx[p]).collect(),
            bags: bags.members.iter().map(|&(b, _)| b as i64).collect(),
            factors: bags.members.iter().map(|&(b, p)| factor(b, p)).collect(),
            positions: bags.members.iter().map(|&(_, p)| p as i64).collect(),
            max_positions: Arc::new(max_positions),
        }
    }
}

impl AsField for Arc<GradientPlan> {
    fn as_field(&self) -> Field<'_> {
        Field::Opaque
    }
}

crate::backward_rule! {
    /// `embedding_bag`: each bag's gradient added to the weight rows that took part, times their factor
    /// (and per_sample_weights entry); for max, to the element each maximum came from. per_sample_weights
    /// get the dot product of their bag's gradient and their row.
    pub struct EmbeddingBagBackward0 {
        mode: BagMode,
        padding_idx: Option<usize>,
        scale_grad_by_freq: bool,
        weight: SavedTensor,
        per_sample_weights: Option<SavedTensor>,
        weight_sym_sizes: Vec<usize>,
        plan: Arc<GradientPlan>,
    }
}
impl Backward for EmbeddingBagBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let plan = &self.plan;
        let zeros = Tensor::zeros(&self.weight_sym_sizes, g.dtype());
        if self.mode == BagMode::Max {
            let flat = zeros.reshape(&[zeros.numel()])?;
            let node = crate::ops::index::IndexPutBackward0::gradient_write(true);
            let grad = flat.put_flat(plan.max_positions.clone(), g, true, node)?;
            return Ok(vec![Some(grad.reshape(&self.weight_sym_sizes)?), None]);
        }
        let long = |v: &[i64]| Tensor::from_vec(v.to_vec(), &[v.len()]);
        let (rows, bags) = (long(&plan.rows)?, long(&plan.bags)?);
        let per_member = g.index_select(0, &bags)?;
        let factors = Tensor::from_vec(plan.factors.clone(), &[plan.factors.len(), 1])?.to_dtype(g.dtype())?;
        let psw = self.per_sample_weights.as_ref().map(|s| ctx.unpack(s)).transpose()?;
        let members_psw = psw.as_ref().map(|p| p.index_select(0, &long(&plan.positions)?)).transpose()?;
        let scaled = match &members_psw {
            Some(p) => per_member.mul(&factors)?.mul(&p.unsqueeze(1)?)?,
            None => per_member.mul(&factors)?,
        };
        let grad_weight = ctx.grad_if(0, || zeros.index_add(0, &rows, &scaled, 1.0))?;
        let grad_psw = match &psw {
            Some(p) if ctx.needs(1) => {
                let weight = ctx.unpack(&self.weight)?;
                let dots = per_member.mul(&weight.index_select(0, &rows)?)?.sum(Some(&[1isize]), false)?;
                Some(Tensor::zeros(p.shape(), g.dtype()).index_add(0, &long(&plan.positions)?, &dots, 1.0)?)
            }
            _ => None,
        };
        Ok(vec![grad_weight, grad_psw])
    }
}
