//! Sobol sequences as `torch.quasirandom.SobolEngine` draws them: each dimension's 30 direction numbers
//! made from the Joe–Kuo initial numbers and primitive polynomials by Bratley and Fox's recurrence, points
//! in Gray-code order (point k is the XOR of the direction numbers of the set bits of `k ^ (k >> 1)`, so
//! each step XORs the one of the lowest zero bit of the previous index), and torch's scrambling: a random
//! lower-triangular bit matrix with a unit diagonal applied to each direction number (Owen's linear matrix
//! scramble) and a random digital shift. The numbers are 30-bit integers; a point is them times 2^-30.
//!
//! The table (`sobol_directions.bin`, written by `tools/pack_sobol_directions.py`) holds the dimensions
//! whose polynomial has degree <= 16, the first 5715 of torch's 21201, at ~82 KB instead of ~360 KB.
use crate::bail;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use std::sync::LazyLock;

/// Bits of each Sobol integer (torch's `MAXBIT`).
pub const MAXBIT: usize = 30;

static PACKED: &[u8] = include_bytes!("sobol_directions.bin");

/// Per dimension: its polynomial and its initial direction numbers m_1..m_s (s the polynomial's degree).
struct Directions {
    poly: Vec<u32>,
    initial: Vec<Vec<u32>>,
}

static TABLE: LazyLock<Directions> = LazyLock::new(unpack);

fn unpack() -> Directions {
    let count = u32::from_le_bytes(PACKED[..4].try_into().expect("4 bytes")) as usize;
    let mut poly = vec![1u32];
    let mut initial = vec![vec![1u32]];
    let polys = &PACKED[4..4 + 2 * (count - 1)];
    let stream = &PACKED[4 + 2 * (count - 1)..];
    let mut bit = 0usize;
    let mut take = |width: usize| -> u32 {
        let mut v = 0u32;
        for b in 0..width {
            let at = bit + b;
            v |= (((stream[at / 8] >> (at % 8)) & 1) as u32) << b;
        }
        bit += width;
        v
    };
    for pair in polys.chunks_exact(2) {
        let p = ((u16::from_le_bytes([pair[0], pair[1]]) as u32) << 1) | 1;
        let degree = 31 - p.leading_zeros() as usize;
        initial.push((1..=degree).map(|i| (take(i - 1) << 1) | 1).collect());
        poly.push(p);
    }
    Directions { poly, initial }
}

/// The number of dimensions the packed table covers.
pub fn sobol_table_dimensions() -> usize {
    TABLE.poly.len()
}

/// torch's `sobolstate`: int64 `[dimension, 30]`, row d the direction numbers of dimension d scaled to
/// 30-bit integers (column j times 2^(29 - j)).
pub fn sobol_initial_state(dimension: usize) -> Result<Tensor> {
    let table = &*TABLE;
    if dimension == 0 || dimension > table.poly.len() {
        bail!(
            Value,
            "ferrograd's SobolEngine carries the Joe-Kuo direction numbers of dimensions [1, {}], got {dimension}",
            table.poly.len()
        );
    }
    let mut out = vec![0i64; dimension * MAXBIT];
    for (d, row) in out.chunks_exact_mut(MAXBIT).enumerate() {
        if d == 0 {
            row.fill(1);
        } else {
            let p = table.poly[d] as i64;
            let m = table.initial[d].len();
            for (slot, &v) in row.iter_mut().zip(&table.initial[d]) {
                *slot = v as i64;
            }
            // v_j = v_{j-m} ^ (2^m v_{j-m}) ^ XOR over the polynomial's inner coefficients a_k of 2^k v_{j-k}
            for j in m..MAXBIT {
                let mut v = row[j - m];
                for k in 1..=m {
                    if (p >> (m - k)) & 1 == 1 {
                        v ^= row[j - k] << k;
                    }
                }
                row[j] = v;
            }
        }
        for (j, slot) in row.iter_mut().enumerate() {
            *slot <<= MAXBIT - 1 - j;
        }
    }
    Tensor::from_vec(out, &[dimension, MAXBIT])
}

fn check_state(state: &Tensor) -> Result<usize> {
    if state.dtype() != DType::I64 || state.ndim() != 2 || state.shape()[1] != MAXBIT {
        bail!(Runtime, "sobolstate needs to be of type Long and shape [dimension, {MAXBIT}]");
    }
    Ok(state.shape()[0])
}

/// torch's bound: points up to index 2^30 - 1, past which the 30-bit integers would repeat.
fn check_count(index: u64, n: u64) -> Result<()> {
    if index.saturating_add(n) >= 1 << MAXBIT {
        bail!(Value, "SobolEngine can generate at most {} points", 1u64 << MAXBIT);
    }
    Ok(())
}

fn check_quasi(quasi: &Tensor, dimension: usize) -> Result<Vec<i64>> {
    if quasi.dtype() != DType::I64 || quasi.shape() != [dimension] {
        bail!(Runtime, "quasi needs to be of type Long and shape [{dimension}]");
    }
    Ok(quasi.to_vec::<i64>())
}

/// Scrambles `state` (the unscrambled `sobolstate`) with the 0/1 draws torch's `_scramble` makes:
/// `shift_bits` `[dimension, 30]` (bit j of dimension d's shift) and `ltm` `[dimension, 30, 30]` (only the
/// strict lower triangle is read: the diagonal is 1). Returns the scrambled state and the shift (int64
/// `[dimension]`).
pub fn sobol_scramble(state: &Tensor, shift_bits: &Tensor, ltm: &Tensor) -> Result<(Tensor, Tensor)> {
    let dimension = check_state(state)?;
    if shift_bits.shape() != [dimension, MAXBIT] || ltm.shape() != [dimension, MAXBIT, MAXBIT] {
        bail!(Runtime, "shift and ltm must be of shapes [{dimension}, {MAXBIT}] and [{dimension}, {MAXBIT}, {MAXBIT}]");
    }
    let bits = shift_bits.to_vec::<i64>();
    let shift: Vec<i64> = bits.chunks_exact(MAXBIT).map(|r| r.iter().rev().fold(0i64, |a, &b| (a << 1) + b)).collect();
    let ltm = ltm.to_vec::<i64>();
    let mut v = state.to_vec::<i64>();
    for (d, row) in v.chunks_exact_mut(MAXBIT).enumerate() {
        // row p of the matrix as a 30-bit integer, column k at bit 29 - k (so a direction number's bit
        // 29 - k meets it)
        let mats = &ltm[d * MAXBIT * MAXBIT..(d + 1) * MAXBIT * MAXBIT];
        let rows: Vec<i64> = (0..MAXBIT)
            .map(|p| {
                let r = &mats[p * MAXBIT..(p + 1) * MAXBIT];
                (0..MAXBIT).fold(0i64, |acc, k| {
                    let b = if k == p {
                        1
                    } else if k < p {
                        r[k]
                    } else {
                        0
                    };
                    acc.wrapping_add(b.wrapping_shl((MAXBIT - 1 - k) as u32))
                })
            })
            .collect();
        for slot in row.iter_mut() {
            let x = *slot;
            *slot =
                (0..MAXBIT).fold(0i64, |acc, p| acc | (((rows[p] & x).count_ones() as i64) & 1) << (MAXBIT - 1 - p));
        }
    }
    Ok((Tensor::from_vec(v, &[dimension, MAXBIT])?, Tensor::from_vec(shift, &[dimension])?))
}

/// The lowest zero bit of `k` (below 30 by `check_count`): the direction number the step after index k XORs in.
fn step_column(k: u64) -> usize {
    k.trailing_ones() as usize
}

/// `n` points after `quasi` (the point of index `index`), as `dtype` `[n, dimension]`, and the last point's
/// integers: torch's `_sobol_engine_draw`.
pub fn sobol_draw(quasi: &Tensor, n: usize, state: &Tensor, index: u64, dtype: DType) -> Result<(Tensor, Tensor)> {
    let dimension = check_state(state)?;
    let mut q = check_quasi(quasi, dimension)?;
    check_count(index, n as u64)?;
    if !matches!(dtype, DType::F32 | DType::F64) {
        bail!(NotImplemented, "\"_sobol_engine_draw\" not implemented for '{}'", dtype.scalar_type_name());
    }
    crate::alloc::check_new_shape(&[n, dimension], dtype.itemsize())?;
    let v = state.to_vec::<i64>();
    // the direction numbers by bit, so that a step XORs one contiguous row into the point
    let mut by_bit = vec![0i64; MAXBIT * dimension];
    for (j, row) in v.chunks_exact(MAXBIT).enumerate() {
        for (l, &x) in row.iter().enumerate() {
            by_bit[l * dimension + j] = x;
        }
    }
    // the integers converted to the dtype, then scaled by 2^-30 (exact: a power of two)
    let out = match dtype {
        DType::F64 => {
            let points = walk(&mut q, n, &by_bit, index, |x| x as f64 * (1.0 / (1u64 << MAXBIT) as f64));
            Tensor::from_vec(points, &[n, dimension])
        }
        _ => {
            let points = walk(&mut q, n, &by_bit, index, |x| x as f32 * (1.0 / (1u64 << MAXBIT) as f32));
            Tensor::from_vec(points, &[n, dimension])
        }
    }?;
    Ok((out, Tensor::from_vec(q, &[dimension])?))
}

/// The `n` points after `q` (of index `index`), each element mapped by `convert`, row after row; `q` ends
/// as the last point.
fn walk<T>(q: &mut [i64], n: usize, by_bit: &[i64], index: u64, convert: impl Fn(i64) -> T) -> Vec<T> {
    let dimension = q.len();
    let mut out = Vec::with_capacity(n * dimension);
    for i in 0..n as u64 {
        let l = step_column(index + i);
        for (x, &d) in q.iter_mut().zip(&by_bit[l * dimension..(l + 1) * dimension]) {
            *x ^= d;
            out.push(convert(*x));
        }
    }
    out
}

/// `quasi` (the point of index `index`) moved `n` points on (torch's `_sobol_engine_ff_`): the XOR of the
/// direction numbers of the bits where the Gray codes of the two indices differ, O(dimension · 30) whatever n.
pub fn sobol_fast_forward(quasi: &Tensor, n: u64, state: &Tensor, index: u64) -> Result<Tensor> {
    let dimension = check_state(state)?;
    let mut q = check_quasi(quasi, dimension)?;
    check_count(index, n)?;
    let gray = |k: u64| k ^ (k >> 1);
    let flips = gray(index.wrapping_add(n)) ^ gray(index);
    let v = state.to_vec::<i64>();
    for (j, x) in q.iter_mut().enumerate() {
        for l in 0..MAXBIT {
            if (flips >> l) & 1 == 1 {
                *x ^= v[j * MAXBIT + l];
            }
        }
    }
    Tensor::from_vec(q, &[dimension])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(t: &Tensor) -> Vec<i64> {
        t.to_vec::<i64>()
    }

    #[test]
    fn direction_numbers_are_torchs() {
        // rows 0..3, first five columns, as torch's `SobolEngine(5).sobolstate` prints them
        let s = ints(&sobol_initial_state(5).unwrap());
        let expect: [[i64; 5]; 4] = [
            [536870912, 268435456, 134217728, 67108864, 33554432],
            [536870912, 805306368, 671088640, 1006632960, 570425344],
            [536870912, 805306368, 402653184, 603979776, 973078528],
            [536870912, 805306368, 134217728, 335544320, 1040187392],
        ];
        for (d, row) in expect.iter().enumerate() {
            assert_eq!(&s[d * MAXBIT..d * MAXBIT + 5], row);
        }
        assert_eq!(sobol_table_dimensions(), 5715);
        assert!(sobol_initial_state(5715).is_ok() && sobol_initial_state(5716).is_err());
    }

    #[test]
    fn fast_forward_lands_where_drawing_does() {
        let state = sobol_initial_state(7).unwrap();
        let start = Tensor::from_vec(vec![0i64; 7], &[7]).unwrap();
        for (index, n) in [(0u64, 1u64), (0, 5), (3, 17), (100, 1000), (1023, 1)] {
            let here = sobol_fast_forward(&start, index, &state, 0).unwrap();
            let (_, drawn) = sobol_draw(&here, n as usize, &state, index, DType::F64).unwrap();
            let jumped = sobol_fast_forward(&here, n, &state, index).unwrap();
            assert_eq!(ints(&drawn), ints(&jumped), "index {index}, n {n}");
        }
    }

    #[test]
    fn identity_scramble_keeps_the_state_and_sums_the_shift_bits() {
        let state = sobol_initial_state(3).unwrap();
        let mut bits = vec![0i64; 3 * MAXBIT];
        bits[0] = 1;
        bits[MAXBIT + 2] = 1;
        bits[2 * MAXBIT + 29] = 1;
        let shift_bits = Tensor::from_vec(bits, &[3, MAXBIT]).unwrap();
        let ltm = Tensor::from_vec(vec![0i64; 3 * MAXBIT * MAXBIT], &[3, MAXBIT, MAXBIT]).unwrap();
        let (scrambled, shift) = sobol_scramble(&state, &shift_bits, &ltm).unwrap();
        assert_eq!(ints(&scrambled), ints(&state));
        assert_eq!(ints(&shift), vec![1, 4, 1 << 29]);
    }

    #[test]
    fn draws_refuse_other_dtypes() {
        let state = sobol_initial_state(2).unwrap();
        let quasi = Tensor::from_vec(vec![0i64; 2], &[2]).unwrap();
        let err = sobol_draw(&quasi, 2, &state, 0, DType::F16).unwrap_err();
        assert!(err.to_string().contains("not implemented for 'Half'"), "{err}");
    }
}
