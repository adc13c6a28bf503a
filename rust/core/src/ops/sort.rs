//! sort, argsort, topk and median along one dim. Each row's indices are found once, the rows split across the
//! threads; the values are then gathered at them (`gather_along`), and the gradient added back there.
use crate::autograd::{one, record, Backward, Ctx, Grads, SavedTensor};
use crate::bail;
use crate::compile::traced_pair;
use crate::element::Element;
use crate::error::Result;
use crate::kernels::cxx_order::{cxx_nth_element, cxx_partial_sort, cxx_sort};
use crate::kernels::split::COPY_ELEMENTS;
use crate::layout::wrap_dim;
use crate::ops::reorder::build_rows_with;
use crate::tensor::Tensor;
use crate::with_dtype;
use std::cmp::Ordering;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Ascending order with NaN as the largest value (NaNs tie with each other); `unique` orders by it too.
pub(crate) fn ascending<T: Element>(a: T, b: T) -> Ordering {
    #[allow(clippy::eq_op)]
    match (a != a, b != b) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// A value beside its position in the row, ordered as a stable sort orders them: by `ascending` (or its reverse),
/// then by position. The order of the dtypes without an integer key.
#[derive(Clone, Copy)]
struct Ranked<T> {
    value: T,
    at: usize,
    descending: bool,
}
impl<T: Element> Ranked<T> {
    fn by_value(&self, other: &Self) -> Ordering {
        if self.descending {
            ascending(other.value, self.value)
        } else {
            ascending(self.value, other.value)
        }
    }
}
impl<T: Element> Ord for Ranked<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.by_value(other).then(self.at.cmp(&other.at))
    }
}
impl<T: Element> PartialOrd for Ranked<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T: Element> PartialEq for Ranked<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<T: Element> Eq for Ranked<T> {}

/// An integer whose order is `ascending`'s for float32 (reversed for `descending`): NaN above everything, every NaN
/// alike, -0 as 0 (so ties between them keep their positions' order, as the comparison sort does). Without a branch:
/// one on the sign made `topk` of random values mispredict every other element.
#[inline(always)]
fn f32_key(v: f32, descending: bool) -> u32 {
    let bits = (v + 0.0).to_bits(); // -0 + 0 is +0
    let flip = ((bits as i32) >> 31) as u32 | 1 << 31; // a negative value's bits all flipped, a positive one's sign bit
    let key = bits ^ flip;
    let key = if v.is_nan() { u32::MAX } else { key };
    key ^ 0u32.wrapping_sub(u32::from(descending))
}

/// `f32_key` for float64.
#[inline(always)]
fn f64_key(v: f64, descending: bool) -> u64 {
    let bits = (v + 0.0).to_bits();
    let key = bits ^ (((bits as i64) >> 63) as u64 | 1 << 63);
    let key = if v.is_nan() { u64::MAX } else { key };
    key ^ 0u64.wrapping_sub(u64::from(descending))
}

/// The k least keys of a row seen so far, ascending, and the least of the keys left out of them: beside the k-th, it
/// tells whether a left-out value ties with it (then torch's topk may pick another of the tied).
struct Least<K> {
    keys: Vec<K>,
    left_out: Option<K>,
}

impl<K: Ord + Copy> Least<K> {
    fn with_capacity(k: usize) -> Self {
        Least { keys: Vec::with_capacity(k), left_out: None }
    }

    fn leave_out(&mut self, key: K) {
        if self.left_out.is_none_or(|least| key < least) {
            self.left_out = Some(key);
        }
    }
}

/// The `k` least of `keys` (all distinct), ascending, into `least`: one pass that keeps the k least seen so far. A
/// key joins them only when below the k-th, which for k much smaller than the row is rare, so the pass is about one
/// compare a key. `topk(5, 1)` of 1000×1000 float32 picked the k-th out of the whole row first (`select_nth`): 7.9
/// ms, torch 1.0.
fn least_k<K: Ord + Copy>(keys: impl Iterator<Item = K>, k: usize, least: &mut Least<K>) {
    least.keys.clear();
    least.left_out = None;
    if k > 0 {
        more_least_k(keys, k, least);
    }
}

/// `least_k` going on from the k least (or fewer) already in `least`.
fn more_least_k<K: Ord + Copy>(keys: impl Iterator<Item = K>, k: usize, least: &mut Least<K>) {
    for key in keys {
        if least.keys.len() == k {
            if key >= least.keys[k - 1] {
                least.leave_out(key);
                continue;
            }
            let kth = least.keys.pop().expect("k > 0 keys");
            least.leave_out(kth);
        }
        let at = least.keys.partition_point(|&b| b < key);
        least.keys.insert(at, key);
    }
}

/// The keys of a contiguous float32 row (`f32_key` above the position), into `keys`. Its own function over the row:
/// built through `sort_rows`' closures, the loop reloaded what they capture for every key (half a tied topk's time).
#[inline(always)]
fn f32_row_keys(row: &[f32], descending: bool, keys: &mut Vec<u64>) {
    keys.clear();
    keys.extend(row.iter().enumerate().map(|(j, &v)| (u64::from(f32_key(v, descending)) << 32) | j as u64));
}

/// `least_k` of a contiguous float32 row's keys (`f32_key` above the position), sixteen values at a time: a block is
/// looked into only when its least key's value half is below the k-th's (a later key with the same value half comes
/// after it), which once the k best are found is rare, so the pass is a vectorized min. Key by key, `topk(5, 1)` of
/// 1000×1000 took 1.15 ms, torch 0.9.
#[inline(always)]
fn least_k_f32(row: &[f32], k: usize, descending: bool, least: &mut Least<u64>) {
    const BLOCK: usize = 16;
    let key = |j: usize| (u64::from(f32_key(row[j], descending)) << 32) | j as u64;
    let head = k.min(row.len());
    least_k((0..head).map(key), k, least);
    if k == 0 || least.keys.len() < k {
        return;
    }
    let mut j = head;
    while j + BLOCK <= row.len() {
        let kth = (least.keys[k - 1] >> 32) as u32;
        let block_least = row[j..j + BLOCK].iter().fold(u32::MAX, |m, &v| m.min(f32_key(v, descending)));
        if block_least < kth {
            more_least_k((j..j + BLOCK).map(key), k, least);
        } else {
            least.leave_out(u64::from(block_least) << 32); // its value is what a tie is told by
        }
        j += BLOCK;
    }
    more_least_k((j..row.len()).map(key), k, least);
}

/// Whether a row of n takes its first k by `least_k` rather than by selecting the k-th and sorting the k before it.
/// On random float32 rows `least_k` costs ~0.4 ns a value plus ~55 ns for each of the ~k·ln(n/k) values that enter
/// the k best, selection ~2.2 ns a value (1000 long, k = 5: 1.7 against 2.2 µs a row; k = 16: 4 against 2.2;
/// 100 000 long, k = 100: 120 against 220), so the first is taken while k·ln(n/k) < n/30, in log2: k·log2(n/k)·21 < n.
/// With k·8 < n alone, `topk(100, 1)` of 1000×1000 took 7.3 ms (torch 5.9); by selection 1.5.
fn streams(k: usize, n: usize) -> bool {
    k * 8 < n && k.saturating_mul((n / k.max(1)).ilog2() as usize).saturating_mul(21) < n
}

/// What each row gives of its order.
#[derive(Clone, Copy, PartialEq)]
enum Pick {
    /// its first k, in order (sort, topk)
    First(usize),
    /// its lower median, the ((n-1)/2)-th, or its first NaN when it holds one (median)
    Median,
}

impl Pick {
    fn len(self) -> usize {
        match self {
            Pick::First(k) => k,
            Pick::Median => 1,
        }
    }
}

/// `keys` = `key(j)` for j in 0..n. Written through a slice rather than pushed: the loop then keeps what `key` reads in
/// registers (pushed, it reloaded them for every key, half of a tied topk's time).
fn fill_keys<K>(keys: &mut Vec<K>, n: usize, key: impl Fn(usize) -> K) {
    keys.clear();
    keys.reserve(n);
    for (j, slot) in keys.spare_capacity_mut()[..n].iter_mut().enumerate() {
        slot.write(key(j));
    }
    // SAFETY: the first n slots were written just above.
    unsafe { keys.set_len(n) };
}

/// Torch's order of a row's ties, where it is not their positions' order (a stable sort, `stable=True`, and median,
/// whose comparison is torch's too: those take `None`).
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum Ties {
    /// As torch's `sort(stable=False)` leaves them: libstdc++'s `std::sort` over (value, position) by value alone.
    CxxSort,
    /// As torch's `topk` leaves them: `std::partial_sort` when k·64 ≤ n, else `std::nth_element` at the k-th and, when
    /// `sorted`, `std::sort` of the k - 1 before it (unsorted: the selection's own order, as torch returns it).
    CxxTopk { sorted: bool },
}

impl Ties {
    /// Whether a row whose first keys (in the stable order) are `picked`, with `left_out` the least of the rest, comes
    /// out otherwise in torch's order: only when values tie among the picked or with the last picked, or when torch
    /// leaves the k unsorted. Without ties the order is the values' own, and the keyed pass already gave it.
    fn differ<K: Copy>(self, picked: &[K], left_out: Option<K>, n: usize, value_less: impl Fn(K, K) -> bool) -> bool {
        let tied = |a: K, b: K| !value_less(a, b); // a's key is below b's, so not less means equal values
        match self {
            Ties::CxxTopk { sorted: false } if !partial_sorts(picked.len(), n) && !picked.is_empty() => true,
            Ties::CxxSort | Ties::CxxTopk { .. } => {
                picked.windows(2).any(|w| tied(w[0], w[1]))
                    || matches!((picked.last(), left_out), (Some(&kth), Some(out)) if tied(kth, out))
            }
        }
    }

    /// Rearranges a whole row (its keys in position order) as torch's kernel does; its first k are then the picked.
    fn arrange<K: Copy>(self, row: &mut [K], k: usize, less: &impl Fn(&K, &K) -> bool) {
        match self {
            Ties::CxxSort => cxx_sort(row, less),
            // partial_sort leaves them sorted, asked to or not
            Ties::CxxTopk { .. } if partial_sorts(k, row.len()) => cxx_partial_sort(row, k, less),
            Ties::CxxTopk { sorted } => {
                if k > 0 {
                    cxx_nth_element(row, k - 1, less);
                    if sorted {
                        cxx_sort(&mut row[..k - 1], less);
                    }
                }
            }
        }
    }
}

/// torch's topk chooses `std::partial_sort` over `std::nth_element` when k·64 ≤ n (`use_partial_sort`).
fn partial_sorts(k: usize, n: usize) -> bool {
    k * 64 <= n
}

/// A dtype's own `least_k` of outer row o of a last dim: `(o, k, least)`.
type RowLeast<'a, K> = dyn Fn(usize, usize, &mut Least<K>) + Sync + 'a;

/// A dtype's own kernels for the rows of a last dim.
struct LastDimRows<'a, K> {
    /// `least_k` of outer row o: `(o, k, least)`
    least: &'a RowLeast<'a, K>,
    /// all the keys of outer row o, in position order: `(o, keys)`
    keys: &'a (dyn Fn(usize, &mut Vec<K>) + Sync + 'a),
}

/// The keys of a row's values, and how they read back.
struct RowKeys<Key, Src, Nan, Less> {
    /// `key(flat position, position in the row)`: distinct keys, the position breaking ties as a stable sort
    key: Key,
    /// the position in the row a key was made at
    src_of: Src,
    /// whether a key is a NaN's
    is_nan: Nan,
    /// whether a key's value comes before another's (torch's comparison: positions aside)
    value_less: Less,
}

/// Each row's `pick` of positions along the dim, by its `keys`, ties coming out as `ties` says (None: in their
/// positions' order), and a last dim's rows
/// by the dtype's own kernels when given: int64 indices shaped (outer, pick.len(), inner), the outer rows split across
/// the threads.
fn sort_rows<K: Ord + Copy>(
    (outer, n, inner): (usize, usize, usize),
    pick: Pick,
    ties: Option<Ties>,
    keys: RowKeys<
        impl Fn(usize, usize) -> K + Sync,
        impl Fn(K) -> usize + Sync,
        impl Fn(K) -> bool + Sync,
        impl Fn(K, K) -> bool + Sync,
    >,
    last_dim: Option<LastDimRows<'_, K>>,
) -> Vec<i64> {
    let last_dim = last_dim.filter(|_| inner == 1);
    let RowKeys { key, src_of, is_nan, value_less } = keys;
    let parallel = outer > 1 && outer * n * inner >= COPY_ELEMENTS;
    let len = pick.len();
    let streamed = matches!(pick, Pick::First(k) if streams(k, n));
    // Once most rows' ties mattered, the rows after them go to torch's order at once: data with ties (integers, rounded
    // or clamped values) has them in every row, and the keyed pass would be done for nothing; random floats tie in a
    // row now and then (a 1000-long float32 row in ~3% of rows). The indices are the same either way.
    let (keyed_rows, tied_rows) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let mostly_tied = || {
        let (keyed, tied) = (keyed_rows.load(Relaxed), tied_rows.load(Relaxed));
        keyed >= 4 && tied * 2 > keyed
    };
    build_rows_with(outer, len * inner, parallel, &|o, out| {
        let mut least = Least::with_capacity(if streamed { len } else { n });
        for i in 0..inner {
            let first = o * n * inner + i;
            let row = || (0..n).map(|j| key(first + j * inner, j));
            let all_keys = |keys: &mut Vec<K>| match &last_dim {
                Some(rows) => (rows.keys)(o, keys),
                None => fill_keys(keys, n, |j| key(first + j * inner, j)),
            };
            let in_torch_order = |least: &mut Least<K>, ties: Ties| {
                all_keys(&mut least.keys);
                ties.arrange(&mut least.keys, len, &|a: &K, b: &K| value_less(*a, *b));
                least.keys.truncate(len);
            };
            let torch_at_once = ties.filter(|_| mostly_tied());
            if let Some(ties) = torch_at_once {
                in_torch_order(&mut least, ties);
            } else if let (true, Some(rows)) = (streamed, &last_dim) {
                (rows.least)(o, len, &mut least);
            } else if streamed {
                least_k(row(), len, &mut least);
            } else {
                let keys = &mut least.keys;
                all_keys(keys);
                least.left_out = None;
                match pick {
                    Pick::First(k) => {
                        if k < n {
                            keys.select_nth_unstable(k - 1);
                            least.left_out = keys[k..].iter().copied().min();
                        }
                        keys.truncate(k);
                        keys.sort_unstable();
                    }
                    // the first NaN has the least key of the NaNs: a NaN's position orders it among them
                    Pick::Median => match keys.iter().copied().filter(|&key| is_nan(key)).min() {
                        Some(first_nan) => keys[0] = first_nan,
                        None => keys[0] = *keys.select_nth_unstable((n - 1) / 2).1,
                    },
                }
                keys.truncate(len);
            }
            if let (None, Some(ties)) = (torch_at_once, ties) {
                keyed_rows.fetch_add(1, Relaxed);
                if ties.differ(&least.keys, least.left_out, n, &value_less) {
                    tied_rows.fetch_add(1, Relaxed);
                    in_torch_order(&mut least, ties);
                }
            }
            for (j, &key) in least.keys.iter().enumerate() {
                out[j * inner + i].write(src_of(key) as i64);
            }
        }
    })
}

impl Tensor {
    /// Each row along `dim`'s `pick` of its elements in sorted order, ties as `ties` says (None: in their positions'
    /// order): their indices along `dim`, shaped as this tensor with `pick.len()` along `dim`.
    fn picked_indices(&self, dim: usize, pick: Pick, descending: bool, ties: Option<Ties>) -> Result<Tensor> {
        let shape = self.shape().to_vec();
        let n = if shape.is_empty() { 1 } else { shape[dim] };
        let inner: usize = shape.iter().skip(dim + 1).product();
        let outer = self.numel().checked_div(n * inner).unwrap_or(0);
        let mut out_shape = shape.clone();
        if !out_shape.is_empty() {
            out_shape[dim] = pick.len();
        }
        let rows = (outer, n, inner);
        let src = self.contiguous()?;
        let idx = match self.dtype() {
            // float32 and float64 by integer keys (value, position): one compare of two integers each; a NaN's key
            // has all its value bits set (ascending)
            crate::DType::F32 if n <= u32::MAX as usize => src.with_data(|l, values: &[f32]| {
                let values = &values[l.contiguous_range().expect("contiguous")];
                let keys = RowKeys {
                    key: |at: usize, j: usize| (u64::from(f32_key(values[at], descending)) << 32) | j as u64,
                    src_of: |key: u64| (key & u64::from(u32::MAX)) as usize,
                    // a NaN's value half is all ones ascending, all zeros descending
                    is_nan: |key: u64| key >> 32 == u64::from(f32_key(f32::NAN, descending)),
                    value_less: |a: u64, b: u64| a >> 32 < b >> 32,
                };
                let least = |o: usize, k: usize, least: &mut Least<u64>| {
                    crate::kernels::simd::dispatch!(least_k_f32(&values[o * n..(o + 1) * n], k, descending, least))
                };
                let row_keys = |o: usize, keys: &mut Vec<u64>| {
                    crate::kernels::simd::dispatch!(f32_row_keys(&values[o * n..(o + 1) * n], descending, keys))
                };
                sort_rows(rows, pick, ties, keys, Some(LastDimRows { least: &least, keys: &row_keys }))
            }),
            crate::DType::F64 if n <= u32::MAX as usize => src.with_data(|l, values: &[f64]| {
                let values = &values[l.contiguous_range().expect("contiguous")];
                let keys = RowKeys {
                    key: |at: usize, j: usize| (u128::from(f64_key(values[at], descending)) << 64) | j as u128,
                    src_of: |key: u128| (key & u128::from(u64::MAX)) as usize,
                    is_nan: |key: u128| key >> 64 == u128::from(f64_key(f64::NAN, descending)),
                    value_less: |a: u128, b: u128| a >> 64 < b >> 64,
                };
                sort_rows(rows, pick, ties, keys, None)
            }),
            dtype => with_dtype!(dtype, T => src.with_data(|l, values: &[T]| {
                let values = &values[l.contiguous_range().expect("contiguous")];
                #[allow(clippy::eq_op)]
                let keys = RowKeys {
                    key: |at: usize, j: usize| Ranked { value: values[at], at: j, descending },
                    src_of: |ranked: Ranked<T>| ranked.at,
                    is_nan: |r: Ranked<T>| r.value != r.value,
                    value_less: |a: Ranked<T>, b: Ranked<T>| a.by_value(&b) == Ordering::Less,
                };
                sort_rows(rows, pick, ties, keys, None)
            })),
        };
        Tensor::from_vec(idx, &out_shape)
    }

    /// `sort(dim, descending, stable)`: (values, indices); NaN sorts as the largest value. Unstable, ties come out as
    /// torch's (libstdc++'s `std::sort`) leaves them.
    pub fn sort(&self, dim: isize, descending: bool, stable: bool) -> Result<(Tensor, Tensor)> {
        let eager = move |x: &[&Tensor]| x[0].sort_eager(dim, descending, stable).map(|(v, i)| vec![v, i]);
        traced_pair("sort", &[self], || eager(&[self]), || eager)
    }

    fn sort_eager(&self, dim: isize, descending: bool, stable: bool) -> Result<(Tensor, Tensor)> {
        let d = wrap_dim(dim, self.ndim())?;
        let n = if self.ndim() == 0 { 1 } else { self.shape()[d] };
        let ties = (!stable).then_some(Ties::CxxSort);
        let indices = self.picked_indices(d, Pick::First(n), descending, ties)?;
        let node =
            SortBackward0 { dim: d, indices: SavedTensor::input(&indices), self_sym_sizes: self.shape().to_vec() };
        Ok((self.take_along(d, &indices, node)?, indices))
    }

    /// `topk(k, dim, largest, sorted)`: the k largest (or smallest) along `dim`, in order unless not `sorted` (then in
    /// torch's order for k·64 > n: `std::nth_element`'s), ties as torch's kernel leaves them.
    pub fn topk(&self, k: isize, dim: isize, largest: bool, sorted: bool) -> Result<(Tensor, Tensor)> {
        let eager = move |x: &[&Tensor]| x[0].topk_eager(k, dim, largest, sorted).map(|(v, i)| vec![v, i]);
        traced_pair("topk", &[self], || eager(&[self]), || eager)
    }

    fn topk_eager(&self, k: isize, dim: isize, largest: bool, sorted: bool) -> Result<(Tensor, Tensor)> {
        let d = wrap_dim(dim, self.ndim())?;
        let n = if self.ndim() == 0 { 1 } else { self.shape()[d] };
        if k < 0 || k as usize > n {
            bail!(Runtime, "selected index k out of range");
        }
        // a 0-dim tensor is its own top element, whatever k (as in PyTorch)
        let k = if self.ndim() == 0 { 1 } else { k as usize };
        let indices = self.picked_indices(d, Pick::First(k), largest, Some(Ties::CxxTopk { sorted }))?;
        let node =
            TopkBackward0 { dim: d, indices: SavedTensor::input(&indices), self_sym_sizes: self.shape().to_vec() };
        Ok((self.take_along(d, &indices, node)?, indices))
    }

    /// The values at `indices` along `dim`, recorded as `node` (whose rule puts the gradient back there).
    fn take_along<N: Backward>(&self, dim: usize, indices: &Tensor, node: N) -> Result<Tensor> {
        let out = self.gather_along(dim, indices)?;
        Ok(record(out, &[self], |_| node))
    }

    /// `median(dim, keepdim)`: (values, indices) of each row's lower median, the ((n-1)/2)-th element of a
    /// stable ascending sort, so ties pick the index torch picks; a row holding NaN gives its first NaN.
    /// The gradient goes to that index (MedianBackward1).
    pub fn median_dim(&self, dim: isize, keepdim: bool) -> Result<(Tensor, Tensor)> {
        if self.dtype() == crate::DType::Bool {
            bail!(NotImplemented, "\"median_out\" not implemented for 'Bool'");
        }
        let d = wrap_dim(dim, self.ndim())?;
        let n = if self.ndim() == 0 { 1 } else { self.shape()[d] };
        if n == 0 {
            bail!(Index, "median(): Expected reduction dim {d} to have non-zero size.");
        }
        let picked = self.picked_indices(d, Pick::Median, false, None)?;
        let values = self.gather_along(d, &picked)?;
        let (values, indices) = if keepdim || self.ndim() == 0 {
            (values, picked)
        } else {
            (values.squeeze_dim(d as isize)?, picked.squeeze_dim(d as isize)?)
        };
        let sizes = self.shape().to_vec();
        let node = MedianBackward1 { dim: d, indices: SavedTensor::input(&indices), keepdim, self_sym_sizes: sizes };
        Ok((record(values, &[self], |_| node), indices))
    }

    /// `median()`: the lower median of all elements (NaN if any is NaN, or if there are none); the gradient is
    /// shared evenly among the elements equal to it (MedianBackward0).
    pub fn median(&self) -> Result<Tensor> {
        use crate::autograd::record;
        use crate::ops::extreme::{ExtremeBackward, ExtremeFn};
        if self.dtype() == crate::DType::Bool {
            bail!(NotImplemented, "\"median_cpu\" not implemented for 'Bool'");
        }
        let out = if self.numel() == 0 {
            if !self.dtype().is_float() {
                bail!(Index, "median(): Expected reduction dim to be specified for input.numel() == 0.");
            }
            Tensor::full(&[], crate::Scalar::Float(f64::NAN), self.dtype())
        } else {
            self.detach().reshape(&[self.numel()])?.median_dim(0, false)?.0
        };
        let dims: Vec<usize> = (0..self.ndim()).collect();
        Ok(record(out, &[self], |out| ExtremeBackward::new(ExtremeFn::Median, dims, self, out)))
    }
}

// The nodes of the sorting ops' values (each output's gradient goes back to where `indices` took it from).
crate::backward_rule! {
    pub struct SortBackward0 { dim: usize, indices: SavedTensor, self_sym_sizes: Vec<usize> }
}
impl Backward for SortBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(Tensor::put_back_along(&self.self_sym_sizes, self.dim, &ctx.unpack(&self.indices)?, g))
    }
}
crate::backward_rule! {
    pub struct TopkBackward0 { dim: usize, indices: SavedTensor, self_sym_sizes: Vec<usize> }
}
impl Backward for TopkBackward0 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        one(Tensor::put_back_along(&self.self_sym_sizes, self.dim, &ctx.unpack(&self.indices)?, g))
    }
}
crate::backward_rule! {
    pub struct MedianBackward1 { dim: usize, indices: SavedTensor, keepdim: bool, self_sym_sizes: Vec<usize> }
}
impl Backward for MedianBackward1 {
    fn apply(&self, ctx: &Ctx<'_>, g: &Tensor) -> Result<Grads> {
        let (mut g, mut indices) = (g.clone(), ctx.unpack(&self.indices)?);
        if !self.keepdim && !self.self_sym_sizes.is_empty() {
            (g, indices) = (g.unsqueeze(self.dim as isize)?, indices.unsqueeze(self.dim as isize)?);
        }
        one(Tensor::put_back_along(&self.self_sym_sizes, self.dim, &indices, &g))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stable sort by `ascending`: what the keyed rows must give.
    fn stable_order(row: &[f64], descending: bool) -> Vec<usize> {
        let mut order: Vec<usize> = (0..row.len()).collect();
        order.sort_by(|&a, &b| if descending { ascending(row[b], row[a]) } else { ascending(row[a], row[b]) });
        order
    }

    #[test]
    fn the_float32_blocks_pick_the_stable_order_first_k_at_nans_zeros_and_ties() {
        // rows of a last dim (blocks of 16 and a tail) with values repeated across blocks, NaNs and signed zeros
        let specials = [f64::NAN, -0.0, 0.0, f64::INFINITY, -f64::INFINITY];
        let (rows, n) = (4, 101);
        let values: Vec<f64> = (0..rows * n)
            .map(|p| if p % 13 == 5 { specials[p / 13 % 5] } else { ((p * 37) % 23) as f64 - 11.0 })
            .collect();
        let t = Tensor::from_vec(values.iter().map(|&v| v as f32).collect::<Vec<_>>(), &[rows, n]).unwrap();
        for descending in [false, true] {
            for k in [1, 2, 5, 12] {
                let idx = t.picked_indices(1, Pick::First(k), descending, None).unwrap().to_vec::<i64>();
                for r in 0..rows {
                    let want = stable_order(&values[r * n..(r + 1) * n], descending);
                    let got: Vec<usize> = idx[r * k..(r + 1) * k].iter().map(|&i| i as usize).collect();
                    assert_eq!(got, want[..k], "row {r}, k={k}, descending={descending}");
                }
            }
        }
    }

    /// Torch's kernel run on the whole row: what the keyed pass plus `Ties::differ` must give, tied or not.
    fn torch_order(row: &[f64], k: usize, descending: bool, ties: Ties) -> Vec<usize> {
        let mut order: Vec<usize> = (0..row.len()).collect();
        let less = |&a: &usize, &b: &usize| {
            if descending { ascending(row[b], row[a]) } else { ascending(row[a], row[b]) }.is_lt()
        };
        ties.arrange(&mut order, k, &less);
        order.truncate(k);
        order
    }

    #[test]
    fn the_keyed_pass_falls_back_to_torchs_order_exactly_when_ties_matter() {
        // rows long enough for the float32 blocks (`streams`: k up to 7 here) and the selection, with values from a few
        // kinds (ties everywhere), from many (a tie now and then, sometimes only past the k-th) and all distinct
        // (kinds 0: all distinct but for a value tied with the k-th, k = 5..8, in a later block of lesser ones;
        // kinds 1: the same for k = 37, which selection picks)
        let n = 2000;
        for kinds in [2, 5, 40, 1000, usize::MAX, 0, 1] {
            let values: Vec<f64> = (0..4 * n)
                .map(|p| {
                    let v = (p * 7919 + p * p * 31) % 100_003;
                    match kinds {
                        usize::MAX => p as f64 * 0.5 - 300.0,
                        0 if p % n == 200 + p / n => -((p / n + 4) as f64),
                        1 if p % n == 1500 => -36.0, // the 37th largest again, past the k picked by selection
                        0 | 1 => -((p % n) as f64),
                        kinds => (v % kinds) as f64,
                    }
                })
                .collect();
            for dtype in [crate::DType::F32, crate::DType::F64, crate::DType::I64] {
                let t = Tensor::from_vec(values.clone(), &[4, n]).unwrap().to_dtype(dtype).unwrap();
                let values = t.to_dtype(crate::DType::F64).unwrap().to_vec::<f64>(); // as cast (int64 adds ties)
                for descending in [false, true] {
                    for (k, sorted) in
                        [(1, true), (4, true), (5, true), (5, false), (7, true), (37, true), (37, false), (n, true)]
                    {
                        let ties = Ties::CxxTopk { sorted };
                        let idx = t.picked_indices(1, Pick::First(k), descending, Some(ties)).unwrap().to_vec::<i64>();
                        for r in 0..4 {
                            let want = torch_order(&values[r * n..(r + 1) * n], k, descending, ties);
                            let got: Vec<usize> = idx[r * k..(r + 1) * k].iter().map(|&i| i as usize).collect();
                            assert_eq!(got, want, "{dtype:?} kinds={kinds} k={k} sorted={sorted} desc={descending}");
                        }
                    }
                    let idx =
                        t.picked_indices(1, Pick::First(n), descending, Some(Ties::CxxSort)).unwrap().to_vec::<i64>();
                    for r in 0..4 {
                        let want = torch_order(&values[r * n..(r + 1) * n], n, descending, Ties::CxxSort);
                        let got: Vec<usize> = idx[r * n..(r + 1) * n].iter().map(|&i| i as usize).collect();
                        assert_eq!(got, want, "sort {dtype:?} kinds={kinds} desc={descending}");
                    }
                }
            }
        }
    }

    #[test]
    fn keyed_rows_sort_as_the_stable_comparison_at_nans_zeros_and_ties() {
        let row = [2.0, f64::NAN, -0.0, 1.0, 0.0, -f64::INFINITY, 2.0, -f64::NAN, f64::INFINITY, -1.5, 1.0, 0.0];
        let n = row.len();
        // (3, n, 2): each row of dim 1 is `row` shifted; float32 and float64 alike
        let values: Vec<f64> = (0..3 * n * 2).map(|p| row[(p / 2 % n + p / (2 * n)) % n]).collect();
        for dtype in [crate::DType::F32, crate::DType::F64] {
            let t = Tensor::from_vec(values.clone(), &[3, n, 2]).unwrap().to_dtype(dtype).unwrap();
            for descending in [false, true] {
                for k in [0, 1, 5, n] {
                    let indices = t.picked_indices(1, Pick::First(k), descending, None).unwrap();
                    assert_eq!(indices.shape(), &[3, k, 2]);
                    let idx = indices.to_vec::<i64>();
                    for o in 0..3 {
                        for i in 0..2 {
                            let line: Vec<f64> = (0..n).map(|j| values[(o * n + j) * 2 + i]).collect();
                            let want = stable_order(&line, descending);
                            for (j, &src) in want.iter().enumerate().take(k) {
                                let at = (o * k + j) * 2 + i;
                                assert_eq!(idx[at], src as i64, "{dtype:?} desc={descending} k={k} ({o}, {j}, {i})");
                            }
                        }
                    }
                }
            }
        }
    }
}
