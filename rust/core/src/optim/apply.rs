//! Running one step: checks, counters, then the fused pass straight over the storages where it applies,
//! and a copying pass for the rest (strided or 16-bit tensors, tensors that share memory).
use super::{Counter, Group, Real, Slot, Update, MAX_BUFFERS};
use crate::dtype::DType;
use crate::element::Element;
use crate::error::Result;
use crate::kernels::simd::{level, Level, PARALLEL_ABOVE};
use crate::kernels::threads::{par_for, threads};
use crate::layout::broadcast_shapes;
use crate::storage::{Buffer, Storage};
use crate::tensor::Tensor;
use crate::{bail, with_dtype};
use parking_lot::{Mutex, RwLockReadGuard, RwLockWriteGuard};
use rustc_hash::FxHashMap;
use std::ops::Range;
use std::sync::Arc;

/// Elements per unit of work a thread takes (four f32 arrays of it fit in a core's L2 cache).
const CHUNK: usize = 1 << 14;

/// Steps every slot of every group: counters first, then parameters and buffers in place. Nothing is
/// written when a check fails.
pub fn step<U: Update>(groups: &[Group<U>]) -> Result<()> {
    for g in groups {
        for s in &g.slots {
            check(&g.rule, s)?;
        }
    }
    let mut plans = Vec::new();
    for g in groups {
        for s in &g.slots {
            let mut counters = s
                .counters
                .iter()
                .map(|t| Ok(Counter::new(t.item()?.to_f64(), t.dtype())))
                .collect::<Result<Vec<_>>>()?;
            let coeffs = g.rule.advance(&mut counters, s.fresh);
            plans.push(Plan { rule: &g.rule, slot: s, coeffs, counters });
        }
    }
    let (fused, copied) = split_paths(&plans);
    fused_pass::<U, f32>(&fused[0]);
    fused_pass::<U, f64>(&fused[1]);
    for p in copied {
        if p.slot.param.dtype() == DType::F64 {
            copying_pass::<U, f64>(p)?;
        } else {
            copying_pass::<U, f32>(p)?;
        }
    }
    for p in &plans {
        for (t, c) in p.slot.counters.iter().zip(&p.counters) {
            write_counter(t, c.get());
        }
    }
    Ok(())
}

/// Stores `v` (already rounded to the tensor's dtype) as the one element of a counter, bumping its version.
fn write_counter(t: &Tensor, v: f64) {
    let at = t.storage_offset();
    with_dtype!(t.dtype(), T => {
        let mut buffer = t.storage().write();
        T::data_mut(&mut buffer).expect("the storage holds the tensor's dtype").as_mut_slice()[at] = T::from_f64(v);
    });
    t.storage().bump_version();
}

/// One slot with its rule and this step's coefficients.
struct Plan<'a, U: Update> {
    rule: &'a U,
    slot: &'a Slot,
    coeffs: U::Coeffs,
    counters: Vec<Counter>,
}

fn check<U: Update>(rule: &U, s: &Slot) -> Result<()> {
    if s.buffers.len() != rule.buffers() || s.counters.len() != rule.counters() {
        bail!(
            Runtime,
            "optimizer state has {} buffers and {} counters for a parameter, expected {} and {}",
            s.buffers.len(),
            s.counters.len(),
            rule.buffers(),
            rule.counters()
        );
    }
    if !s.param.dtype().is_float() {
        bail!(Runtime, "an optimizer can only update floating point parameters, not {}", s.param.dtype());
    }
    for t in std::iter::once(&s.grad).chain(&s.buffers) {
        if t.shape() != s.param.shape() {
            let out = broadcast_shapes(t.shape(), s.param.shape())?;
            bail!(Runtime, "output with shape {:?} doesn't match the broadcast shape {:?}", t.shape(), out);
        }
    }
    if let Some(c) = s.counters.iter().find(|c| c.numel() != 1) {
        bail!(Runtime, "a Tensor with {} elements cannot be converted to Scalar", c.numel());
    }
    Ok(())
}

fn storage_key(t: &Tensor) -> *const Storage {
    Arc::as_ptr(t.storage())
}

/// The tensors a slot writes: its parameter and its buffers.
fn written(s: &Slot) -> impl Iterator<Item = &Tensor> {
    std::iter::once(&s.param).chain(&s.buffers)
}

/// Whether a slot can be updated straight in its storages: contiguous float32/float64 tensors of one
/// dtype, none sharing memory with another.
fn fusable(s: &Slot) -> bool {
    let dtype = s.param.dtype();
    let all = || written(s).chain(std::iter::once(&s.grad));
    if !matches!(dtype, DType::F32 | DType::F64) || all().any(|t| t.dtype() != dtype || !t.is_contiguous()) {
        return false;
    }
    let mut keys: Vec<_> = all().map(storage_key).collect();
    keys.sort_unstable();
    keys.windows(2).all(|w| w[0] != w[1])
}

/// Fusable slots by dtype (float32, float64), and the slots the copying pass takes: those that are not
/// fusable, and those whose memory another slot writes or reads (the fused pass locks each storage once).
#[allow(clippy::type_complexity)]
fn split_paths<'p, 'a, U: Update>(plans: &'p [Plan<'a, U>]) -> ([Vec<&'p Plan<'a, U>>; 2], Vec<&'p Plan<'a, U>>) {
    let fusable: Vec<bool> = plans.iter().map(|p| fusable(p.slot)).collect();
    // writers and readers of each storage among the fusable slots
    let mut uses: FxHashMap<*const Storage, (usize, usize)> =
        FxHashMap::with_capacity_and_hasher(plans.len() * (MAX_BUFFERS + 2), Default::default());
    for p in plans.iter().zip(&fusable).filter(|(_, &f)| f).map(|(p, _)| p) {
        written(p.slot).for_each(|t| uses.entry(storage_key(t)).or_default().0 += 1);
        uses.entry(storage_key(&p.slot.grad)).or_default().1 += 1;
    }
    let alone = |s: &Slot| written(s).all(|t| uses[&storage_key(t)] == (1, 0)) && uses[&storage_key(&s.grad)].0 == 0;
    let (mut fused, mut copied) = ([Vec::new(), Vec::new()], Vec::new());
    for (p, f) in plans.iter().zip(fusable) {
        if f && alone(p.slot) {
            fused[usize::from(p.slot.param.dtype() == DType::F64)].push(p);
        } else {
            copied.push(p);
        }
    }
    (fused, copied)
}

/// A run of elements of one slot, ready to update.
struct Work<'a, U: Update, T> {
    rule: &'a U,
    coeffs: &'a U::Coeffs,
    p: &'a mut [T],
    g: &'a [T],
    bufs: [&'a mut [T]; MAX_BUFFERS],
    n_bufs: usize,
}

impl<U: Update, T: Real> Work<'_, U, T> {
    #[inline(always)]
    fn run(self) {
        let Work { rule, coeffs, p, g, mut bufs, n_bufs } = self;
        rule.apply(coeffs, p, g, &mut bufs[..n_bufs]);
    }

    /// `run` compiled for the widest instruction set this CPU has (the update loops vectorize).
    fn run_vectorized(self) {
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
            unsafe fn avx512<U: Update, T: Real>(w: Work<'_, U, T>) {
                w.run()
            }
            #[target_feature(enable = "avx2,fma")]
            unsafe fn avx2<U: Update, T: Real>(w: Work<'_, U, T>) {
                w.run()
            }
            match level() {
                // SAFETY: each version runs only when `level()` found its features on this CPU
                Level::Avx512 => return unsafe { avx512(self) },
                // SAFETY: as above
                Level::Avx2 => return unsafe { avx2(self) },
                Level::Baseline => {}
            }
        }
        self.run()
    }
}

enum Guard<'a> {
    Write(RwLockWriteGuard<'a, Buffer>),
    Read(RwLockReadGuard<'a, Buffer>),
}

/// Updates the slots in their own memory, all in one parallel pass: every storage is locked once (in
/// address order), cut into the slots' runs, and the runs are shared out in chunks.
fn fused_pass<U: Update, T: Real>(plans: &[&Plan<'_, U>]) {
    if plans.is_empty() {
        return;
    }
    let mut storages: Vec<(*const Storage, &Arc<Storage>, bool)> = Vec::new();
    for p in plans {
        storages.extend(written(p.slot).map(|t| (storage_key(t), t.storage(), true)));
        storages.push((storage_key(&p.slot.grad), p.slot.grad.storage(), false));
    }
    storages.sort_unstable_by_key(|s| s.0);
    storages.dedup_by_key(|s| s.0); // only gradients repeat (split_paths saw to it)
    let mut guards: Vec<Guard<'_>> =
        storages.iter().map(|&(_, s, w)| if w { Guard::Write(s.write()) } else { Guard::Read(s.read()) }).collect();
    let mut writes: FxHashMap<*const Storage, &mut [T]> =
        FxHashMap::with_capacity_and_hasher(storages.len(), Default::default());
    let mut reads: FxHashMap<*const Storage, &[T]> =
        FxHashMap::with_capacity_and_hasher(plans.len(), Default::default());
    for (guard, &(key, _, _)) in guards.iter_mut().zip(&storages) {
        match guard {
            Guard::Write(b) => {
                writes.insert(key, T::data_mut(b).expect("dtype checked").as_mut_slice());
            }
            Guard::Read(b) => {
                reads.insert(key, T::data(b).expect("dtype checked").as_slice());
            }
        }
    }
    let mut work = Vec::new();
    let mut total = 0;
    for plan in plans {
        let s = plan.slot;
        let mut take = |t: &Tensor| &mut writes.remove(&storage_key(t)).expect("locked")[range(t)];
        let p = take(&s.param);
        let mut bufs: Vec<std::slice::ChunksMut<'_, T>> = s.buffers.iter().map(|b| take(b).chunks_mut(CHUNK)).collect();
        let g = &reads[&storage_key(&s.grad)][range(&s.grad)];
        total += p.len();
        for (p, g) in p.chunks_mut(CHUNK).zip(g.chunks(CHUNK)) {
            let mut chunk: [&mut [T]; MAX_BUFFERS] = Default::default();
            for (c, b) in chunk.iter_mut().zip(bufs.iter_mut()) {
                *c = b.next().expect("buffers have the parameter's size");
            }
            work.push(Work { rule: plan.rule, coeffs: &plan.coeffs, p, g, bufs: chunk, n_bufs: s.buffers.len() });
        }
    }
    if total >= PARALLEL_ABOVE && work.len() > 1 && threads() > 1 {
        let cells: Vec<Mutex<Option<Work<'_, U, T>>>> = work.into_iter().map(|w| Mutex::new(Some(w))).collect();
        par_for(cells.len(), &|i| {
            if let Some(w) = cells[i].lock().take() {
                w.run_vectorized();
            }
        });
    } else {
        work.into_iter().for_each(Work::run_vectorized);
    }
    drop((writes, reads));
    drop(guards);
    for p in plans {
        written(p.slot).for_each(|t| t.storage().bump_version());
    }
}

/// Where a contiguous tensor's elements lie in its storage.
fn range(t: &Tensor) -> Range<usize> {
    t.layout().contiguous_range().expect("contiguous")
}

/// Updates a slot through copies in the compute dtype `T`, written back (cast, through any layout) with
/// `copy_from`, which bumps the versions.
fn copying_pass<U: Update, T: Real>(plan: &Plan<'_, U>) -> Result<()> {
    let s = plan.slot;
    let mut p = s.param.to_vec::<T>();
    let g = s.grad.to_vec::<T>();
    let mut bufs: Vec<Vec<T>> = s.buffers.iter().map(|b| b.to_vec::<T>()).collect();
    let mut chunk: [&mut [T]; MAX_BUFFERS] = Default::default();
    for (c, b) in chunk.iter_mut().zip(bufs.iter_mut()) {
        *c = b.as_mut_slice();
    }
    let n_bufs = s.buffers.len();
    Work { rule: plan.rule, coeffs: &plan.coeffs, p: &mut p, g: &g, bufs: chunk, n_bufs }.run_vectorized();
    s.param.copy_from(&Tensor::from_vec(p, s.param.shape())?)?;
    for (t, b) in s.buffers.iter().zip(bufs) {
        t.copy_from(&Tensor::from_vec(b, t.shape())?)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::reference::values;
    use crate::optim::{Adam, Sgd, WeightDecay};

    fn adam() -> Adam {
        Adam {
            lr: 0.01,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: WeightDecay::None,
            amsgrad: false,
            maximize: false,
        }
    }

    fn tensor(v: Vec<f64>, shape: &[usize], dtype: DType) -> Tensor {
        Tensor::from_vec(v, shape).unwrap().to_dtype(dtype).unwrap()
    }

    /// An Adam slot over `n` elements with fresh state, in `dtype`.
    fn adam_slot(n: usize, seed: u64, dtype: DType) -> Slot {
        Slot {
            param: tensor(values(n, seed), &[n], dtype),
            grad: tensor(values(n, seed + 1), &[n], dtype),
            buffers: vec![Tensor::zeros(&[n], dtype), Tensor::zeros(&[n], dtype)],
            counters: vec![Tensor::zeros(&[], DType::F32)],
            fresh: true,
        }
    }

    /// What one Adam step gives on plain vectors (the kernel itself, no driver).
    fn expected(h: &Adam, s: &Slot) -> (Vec<f64>, Vec<f64>) {
        let mut counters = [Counter::new(s.counters[0].item().unwrap().to_f64(), DType::F32)];
        let c = h.advance(&mut counters, false);
        let (mut p, g) = (s.param.to_vec::<f64>(), s.grad.to_vec::<f64>());
        let mut m = s.buffers[0].to_vec::<f64>();
        let mut v = s.buffers[1].to_vec::<f64>();
        if s.param.dtype() == DType::F32 {
            let mut p32: Vec<f32> = p.iter().map(|&x| x as f32).collect();
            let g32: Vec<f32> = g.iter().map(|&x| x as f32).collect();
            let mut m32: Vec<f32> = m.iter().map(|&x| x as f32).collect();
            let mut v32: Vec<f32> = v.iter().map(|&x| x as f32).collect();
            h.apply(&c, &mut p32, &g32, &mut [&mut m32[..], &mut v32[..]]);
            return (p32.iter().map(|&x| x as f64).collect(), m32.iter().map(|&x| x as f64).collect());
        }
        h.apply(&c, &mut p, &g, &mut [&mut m[..], &mut v[..]]);
        (p, m)
    }

    #[test]
    fn one_call_updates_every_group_chunked_and_threaded_and_bumps_versions() {
        // big enough for the threaded pass, sizes that are not multiples of the chunk
        let sizes = [PARALLEL_ABOVE + 5, 3, CHUNK * 2 + 1];
        let groups: Vec<Group<Adam>> = vec![
            Group { rule: adam(), slots: vec![adam_slot(sizes[0], 1, DType::F32), adam_slot(sizes[1], 3, DType::F64)] },
            Group { rule: Adam { lr: 0.1, amsgrad: false, ..adam() }, slots: vec![adam_slot(sizes[2], 5, DType::F32)] },
        ];
        let want: Vec<Vec<(Vec<f64>, Vec<f64>)>> =
            groups.iter().map(|g| g.slots.iter().map(|s| expected(&g.rule, s)).collect()).collect();
        let versions: Vec<u64> = groups.iter().flat_map(|g| &g.slots).map(|s| s.param.version()).collect();
        step(&groups).unwrap();
        for (g, w) in groups.iter().zip(&want) {
            for (s, (p, m)) in g.slots.iter().zip(w) {
                assert_eq!(&s.param.to_vec::<f64>(), p);
                assert_eq!(&s.buffers[0].to_vec::<f64>(), m);
                assert_eq!(s.counters[0].item().unwrap().to_f64(), 1.0);
            }
        }
        for (s, v) in groups.iter().flat_map(|g| &g.slots).zip(versions) {
            assert_eq!(s.param.version(), v + 1);
        }
    }

    #[test]
    fn strided_half_and_aliased_slots_take_the_copying_pass_with_the_fused_result() {
        let (h, n) = (adam(), 12);
        // a transposed view whose logical (row-major) values are values(n, seed)
        let transposed = |seed| {
            let storage = tensor(values(n, seed), &[4, 3], DType::F32).t().unwrap().contiguous_copy().unwrap();
            storage.t().unwrap()
        };
        let mut strided = adam_slot(n, 7, DType::F32);
        strided.param = transposed(7);
        strided.grad = transposed(8);
        strided.buffers = vec![Tensor::zeros(&[4, 3], DType::F32), Tensor::zeros(&[4, 3], DType::F32)];
        let want_strided = expected(&h, &adam_slot(n, 7, DType::F32));

        let mut half = adam_slot(n, 11, DType::F16);
        half.buffers = vec![Tensor::zeros(&[n], DType::F16), Tensor::zeros(&[n], DType::F16)];
        let mut as_f32 = adam_slot(n, 11, DType::F32);
        as_f32.param = half.param.to_dtype(DType::F32).unwrap();
        as_f32.grad = half.grad.to_dtype(DType::F32).unwrap();
        let rounded = |v: &[f64]| tensor(v.to_vec(), &[n], DType::F16).to_vec::<f64>();
        let want_half = expected(&h, &as_f32);

        // a parameter that is its own gradient reads the gradient before the write
        let mut aliased = adam_slot(n, 9, DType::F32);
        aliased.grad = aliased.param.clone();
        let mut twin = adam_slot(n, 9, DType::F32);
        twin.grad = twin.param.contiguous_copy().unwrap();
        let want_aliased = expected(&h, &twin);

        // slot `reader`'s gradient is slot `writer`'s parameter: both leave the fused pass, in order
        let writer = adam_slot(n, 13, DType::F32);
        let mut reader = adam_slot(n, 15, DType::F32);
        reader.grad = writer.param.clone();
        let mut reader_twin = adam_slot(n, 15, DType::F32);
        reader_twin.grad = writer.param.contiguous_copy().unwrap();
        let (want_reader, want_writer) = (expected(&h, &reader_twin), expected(&h, &writer));

        for s in [&strided, &half, &aliased] {
            assert!(!fusable(s));
        }
        let slots = vec![strided, half, aliased, reader, writer];
        let versions: Vec<u64> = slots.iter().map(|s| s.param.version()).collect();
        let groups = [Group { rule: h, slots }];
        step(&groups).unwrap();
        let s = &groups[0].slots;
        assert_eq!(s[0].param.to_vec::<f64>(), want_strided.0);
        assert_eq!(s[0].buffers[0].to_vec::<f64>(), want_strided.1);
        assert_eq!(s[1].param.dtype(), DType::F16);
        assert_eq!(s[1].param.to_vec::<f64>(), rounded(&want_half.0));
        assert_eq!(s[1].buffers[0].to_vec::<f64>(), rounded(&want_half.1));
        assert_eq!(s[2].param.to_vec::<f64>(), want_aliased.0);
        assert_eq!(s[3].param.to_vec::<f64>(), want_reader.0);
        assert_eq!(s[4].param.to_vec::<f64>(), want_writer.0);
        for (s, v) in s.iter().zip(versions) {
            assert!(s.param.version() > v, "the write bumps the version");
        }
    }

    #[test]
    fn a_bad_slot_fails_the_step_before_anything_is_written() {
        let good = adam_slot(4, 1, DType::F32);
        let mut bad = adam_slot(4, 2, DType::F32);
        bad.buffers[1] = Tensor::zeros(&[3], DType::F32);
        let before = good.param.to_vec::<f64>();
        let groups = [Group { rule: adam(), slots: vec![good, bad] }];
        let err = step(&groups).unwrap_err().to_string();
        assert!(err.contains("must match the size"), "{err}");
        assert_eq!(groups[0].slots[0].param.to_vec::<f64>(), before);
        assert_eq!(groups[0].slots[0].counters[0].item().unwrap().to_f64(), 0.0);
    }

    #[test]
    fn sgd_starts_its_momentum_buffer_from_the_gradient_then_accumulates() {
        let h = Sgd { lr: 0.1, momentum: 0.9, dampening: 0.5, weight_decay: 0.0, nesterov: false, maximize: false };
        let slot = |fresh| Slot {
            param: tensor(vec![1.0, 2.0], &[2], DType::F64),
            grad: tensor(vec![0.5, -1.0], &[2], DType::F64),
            buffers: vec![tensor(vec![2.0, 2.0], &[2], DType::F64)],
            counters: vec![],
            fresh,
        };
        let groups = [Group { rule: h, slots: vec![slot(true), slot(false)] }];
        step(&groups).unwrap();
        let s = &groups[0].slots;
        assert_eq!(s[0].buffers[0].to_vec::<f64>(), vec![0.5, -1.0]);
        assert_eq!(s[0].param.to_vec::<f64>(), vec![1.0 - 0.1 * 0.5, 2.0 + 0.1]);
        assert_eq!(s[1].buffers[0].to_vec::<f64>(), vec![0.9 * 2.0 + 0.25, 0.9 * 2.0 - 0.5]);
    }
}
