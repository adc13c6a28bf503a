//! The orders PyTorch's CPU kernels leave a row in, so that ties pick the index torch picks: libstdc++'s
//! `std::sort` (introsort, used by `mode`) and `std::nth_element` (introselect, used by `nanmedian` on a
//! row of NaNs), and ATen's Sedgewick quickselect (`kthvalue`). Each is a step-for-step port over a slice
//! with the same comparator torch passes; a comparator that is no strict weak order (`<` with NaN) can walk
//! off the row in C++, so the unguarded scans here stop at the row's ends instead.

/// libstdc++'s `_S_threshold`: introsort leaves runs this short to the final insertion sort.
const INSERTION_THRESHOLD: usize = 16;
/// libstdc++'s introselect finishes runs of at most this many elements with an insertion sort.
const SELECT_THRESHOLD: usize = 3;

/// `std::__lg(n) * 2`: the recursion depth after which introsort falls back to heapsort.
fn depth_limit(n: usize) -> usize {
    2 * (usize::BITS - 1 - n.leading_zeros()) as usize
}

/// `std::sort(v.begin(), v.end(), less)`.
pub fn cxx_sort<T: Copy>(v: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    if v.is_empty() {
        return;
    }
    introsort_loop(v, 0, v.len(), depth_limit(v.len()), less);
    if v.len() > INSERTION_THRESHOLD {
        insertion_sort(v, 0, INSERTION_THRESHOLD, less);
        for i in INSERTION_THRESHOLD..v.len() {
            linear_insert(v, 0, i, less);
        }
    } else {
        insertion_sort(v, 0, v.len(), less);
    }
}

/// `std::partial_sort(v.begin(), v.begin() + middle, v.end(), less)`: the `middle` least, in order, before the rest.
pub fn cxx_partial_sort<T: Copy>(v: &mut [T], middle: usize, less: &impl Fn(&T, &T) -> bool) {
    let middle = middle.min(v.len());
    if middle == 0 {
        return;
    }
    heap_select(v, 0, middle, v.len(), less);
    sort_heap(v, 0, middle, less);
}

/// `std::nth_element(v.begin(), v.begin() + nth, v.end(), less)`.
pub fn cxx_nth_element<T: Copy>(v: &mut [T], nth: usize, less: &impl Fn(&T, &T) -> bool) {
    if nth >= v.len() {
        return;
    }
    let (mut first, mut last, mut depth) = (0, v.len(), depth_limit(v.len()));
    while last - first > SELECT_THRESHOLD {
        if depth == 0 {
            heap_select(v, first, nth + 1, last, less);
            v.swap(first, nth);
            return;
        }
        depth -= 1;
        let cut = partition_pivot(v, first, last, less);
        if cut <= nth {
            first = cut;
        } else {
            last = cut;
        }
    }
    insertion_sort(v, first, last, less);
}

fn introsort_loop<T: Copy>(
    v: &mut [T],
    first: usize,
    mut last: usize,
    mut depth: usize,
    less: &impl Fn(&T, &T) -> bool,
) {
    while last - first > INSERTION_THRESHOLD {
        if depth == 0 {
            heap_select(v, first, last, last, less);
            sort_heap(v, first, last, less);
            return;
        }
        depth -= 1;
        let cut = partition_pivot(v, first, last, less);
        introsort_loop(v, cut, last, depth, less);
        last = cut;
    }
}

/// `__unguarded_partition_pivot`: the median of three moved to `first`, then Hoare's partition.
fn partition_pivot<T: Copy>(v: &mut [T], first: usize, last: usize, less: &impl Fn(&T, &T) -> bool) -> usize {
    let mid = first + (last - first) / 2;
    let (a, b, c) = (first + 1, mid, last - 1);
    let to_first = if less(&v[a], &v[b]) {
        if less(&v[b], &v[c]) {
            b
        } else if less(&v[a], &v[c]) {
            c
        } else {
            a
        }
    } else if less(&v[a], &v[c]) {
        a
    } else if less(&v[b], &v[c]) {
        c
    } else {
        b
    };
    v.swap(first, to_first);
    let (mut lo, mut hi) = (first + 1, last);
    loop {
        while lo < last - 1 && less(&v[lo], &v[first]) {
            lo += 1;
        }
        hi -= 1;
        while hi > first && less(&v[first], &v[hi]) {
            hi -= 1;
        }
        if lo >= hi {
            return lo;
        }
        v.swap(lo, hi);
        lo += 1;
    }
}

fn insertion_sort<T: Copy>(v: &mut [T], first: usize, last: usize, less: &impl Fn(&T, &T) -> bool) {
    for i in (first + 1).min(last)..last {
        if less(&v[i], &v[first]) {
            v[first..=i].rotate_right(1);
        } else {
            linear_insert(v, first, i, less);
        }
    }
}

/// `__unguarded_linear_insert`: moves `v[at]` left past the larger elements before it.
fn linear_insert<T: Copy>(v: &mut [T], first: usize, mut at: usize, less: &impl Fn(&T, &T) -> bool) {
    let value = v[at];
    while at > first && less(&value, &v[at - 1]) {
        v[at] = v[at - 1];
        at -= 1;
    }
    v[at] = value;
}

/// `__heap_select(first, middle, last)`: a max-heap of `[first, middle)` holding the smallest elements.
fn heap_select<T: Copy>(v: &mut [T], first: usize, middle: usize, last: usize, less: &impl Fn(&T, &T) -> bool) {
    let len = middle - first;
    if len >= 2 {
        let mut parent = (len - 2) / 2;
        loop {
            adjust_heap(v, first, parent, len, v[first + parent], less);
            if parent == 0 {
                break;
            }
            parent -= 1;
        }
    }
    for i in middle..last {
        if less(&v[i], &v[first]) {
            let value = v[i];
            v[i] = v[first];
            adjust_heap(v, first, 0, len, value, less);
        }
    }
}

fn sort_heap<T: Copy>(v: &mut [T], first: usize, mut last: usize, less: &impl Fn(&T, &T) -> bool) {
    while last - first > 1 {
        last -= 1;
        let value = v[last];
        v[last] = v[first];
        adjust_heap(v, first, 0, last - first, value, less);
    }
}

/// `__adjust_heap` followed by its `__push_heap`.
fn adjust_heap<T: Copy>(
    v: &mut [T],
    base: usize,
    mut hole: usize,
    len: usize,
    value: T,
    less: &impl Fn(&T, &T) -> bool,
) {
    let top = hole;
    let mut child = hole;
    while child < len.saturating_sub(1) / 2 {
        child = 2 * (child + 1);
        if less(&v[base + child], &v[base + child - 1]) {
            child -= 1;
        }
        v[base + hole] = v[base + child];
        hole = child;
    }
    if len.is_multiple_of(2) && len >= 2 && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        v[base + hole] = v[base + child - 1];
        hole = child - 1;
    }
    while hole > top {
        let parent = (hole - 1) / 2;
        if !less(&v[base + parent], &value) {
            break;
        }
        v[base + hole] = v[base + parent];
        hole = parent;
    }
    v[base + hole] = value;
}

/// ATen's `quick_select_template`: partitions `v` so that `v[k]` is the k-th smallest under `greater`
/// (`gt_or_nan`: NaN above every number), swapping elements as torch does.
pub fn aten_quick_select<T: Copy>(v: &mut [T], k: usize, greater: &impl Fn(&T, &T) -> bool) {
    if v.len() < 2 {
        return;
    }
    let (mut lo, mut hi) = (0usize, v.len() - 1);
    loop {
        if hi <= lo {
            return;
        }
        if hi == lo + 1 {
            if greater(&v[lo], &v[hi]) {
                v.swap(lo, hi);
            }
            return;
        }
        v.swap((lo + hi) >> 1, lo + 1);
        if greater(&v[lo + 1], &v[hi]) {
            v.swap(lo + 1, hi);
        }
        if greater(&v[lo], &v[hi]) {
            v.swap(lo, hi);
        }
        if greater(&v[lo + 1], &v[lo]) {
            v.swap(lo + 1, lo);
        }
        let (mut i, mut j) = (lo + 1, hi);
        let pivot = v[lo];
        loop {
            i += 1;
            while i < hi && greater(&pivot, &v[i]) {
                i += 1;
            }
            j -= 1;
            while j > lo && greater(&v[j], &pivot) {
                j -= 1;
            }
            if j < i {
                break;
            }
            v.swap(i, j);
        }
        v.swap(lo, j);
        if j <= k {
            lo = i;
        }
        if j >= k {
            if j == 0 {
                return;
            }
            hi = j - 1;
        }
    }
}
