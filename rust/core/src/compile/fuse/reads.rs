//! How a fused chain reads a tensor from outside, chunk by chunk: contiguous in the chain's shape, or broadcast to
//! it the two ways models broadcast (a bias or a norm's weight `[C]` over `[N, C]`: the same `C` values again and
//! again; a per-row statistic `[N, 1]`: each value repeated `C` times). A broadcast operand's chunk is filled from
//! its few values into a buffer of the worker's (or once per call, when every chunk is alike), so the op's
//! kernel reads two plain chunks as eager's contiguous path reads two tensors.
use crate::element::Element;
use crate::tensor::Tensor;

/// Where element `e` of the chain (in row-major order) is in the operand's data, from its offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pattern {
    /// `e`: contiguous, of the chain's shape.
    Run,
    /// `e % period`: broadcast over leading dims (a `[C]` weight over `[N, C]`; period 1 is one value everywhere).
    Periodic(usize),
    /// `e / repeat`: broadcast over trailing dims (a `[N, 1]` statistic over `[N, C]`).
    Stretched(usize),
}

/// How `t` maps onto a chain of `shape` (broadcasting as the elementwise ops do: aligned on the right), or None
/// when it is read some other way (a transpose, a broadcast in the middle): the chain then replays node by node.
pub(super) fn pattern(t: &Tensor, shape: &[usize]) -> Option<Pattern> {
    let layout = t.layout();
    let pad = shape.len().checked_sub(layout.shape.len())?;
    // (size, stride) of each dim of the chain that is not 1, the stride 0 where `t` is broadcast
    let mut dims = Vec::with_capacity(shape.len());
    for (i, &size) in shape.iter().enumerate() {
        let (own, stride) = match i.checked_sub(pad) {
            Some(j) => (layout.shape[j], layout.strides[j]),
            None => (1, 0),
        };
        if own != size && own != 1 {
            return None;
        }
        if size != 1 {
            dims.push((size, if own == 1 { 0 } else { stride }));
        }
    }
    // the dims whose stride is not 0 must be one block, contiguous within itself
    let first = dims.iter().position(|&(_, s)| s != 0);
    let Some(first) = first else { return Some(Pattern::Periodic(1)) };
    let last = dims.iter().rposition(|&(_, s)| s != 0).expect("one is not 0");
    let mut expected = 1;
    for &(size, stride) in dims[first..=last].iter().rev() {
        if stride != expected {
            return None;
        }
        expected *= size;
    }
    let after: usize = dims[last + 1..].iter().map(|&(size, _)| size).product();
    match (first, last + 1 == dims.len()) {
        (0, true) => Some(Pattern::Run),
        (_, true) => Some(Pattern::Periodic(expected)),
        (0, false) => Some(Pattern::Stretched(after)),
        // broadcast on both sides (`[1, C, 1]` over `[N, C, HW]`)
        _ => None,
    }
}

/// An outside operand's elements as one call of the chain reads them.
pub(super) enum Chunks<'a, T> {
    /// Chunk `start..` is `data[start..]`.
    Run(&'a [T]),
    /// Every chunk is these values (a period dividing the chunk, one value included), filled once per call.
    Fixed(Vec<T>),
    /// Filled for each chunk from `data` by the pattern.
    Filled(&'a [T], Pattern),
}

impl<'a, T: Element> Chunks<'a, T> {
    /// `data` is the operand's storage from its offset; every chunk read starts at a multiple of `block` and is at
    /// most `block` long.
    pub(super) fn new(data: &'a [T], pattern: Pattern, block: usize) -> Chunks<'a, T> {
        match pattern {
            Pattern::Run => Chunks::Run(data),
            Pattern::Periodic(period) if block.is_multiple_of(period) => {
                Chunks::Fixed((0..block).map(|i| data[i % period]).collect())
            }
            _ => Chunks::Filled(data, pattern),
        }
    }

    /// Whether each chunk is filled into a buffer of the worker's.
    pub(super) fn is_filled(&self) -> bool {
        matches!(self, Chunks::Filled(..))
    }

    /// Elements `start..start + buf.len()` of the chain, for a `Filled` operand.
    pub(super) fn fill(&self, start: usize, buf: &mut [T]) {
        let Chunks::Filled(data, pattern) = self else { return };
        match *pattern {
            Pattern::Periodic(period) => {
                let (mut at, mut from) = (0, start % period);
                while at < buf.len() {
                    let n = (period - from).min(buf.len() - at);
                    buf[at..at + n].copy_from_slice(&data[from..from + n]);
                    (at, from) = (at + n, 0);
                }
            }
            Pattern::Stretched(repeat) => {
                let mut at = 0;
                while at < buf.len() {
                    let e = start + at;
                    let n = (repeat - e % repeat).min(buf.len() - at);
                    buf[at..at + n].fill(data[e / repeat]);
                    at += n;
                }
            }
            Pattern::Run => unreachable!("a contiguous operand is read in place"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::fuse::CHUNK;

    fn t(shape: &[usize]) -> Tensor {
        Tensor::zeros(shape, crate::DType::F32)
    }

    #[test]
    fn patterns_of_the_broadcasts_models_make() {
        let chain = [4usize, 3, 5];
        assert_eq!(pattern(&t(&chain), &chain), Some(Pattern::Run));
        assert_eq!(pattern(&t(&[5]), &chain), Some(Pattern::Periodic(5)));
        assert_eq!(pattern(&t(&[3, 5]), &chain), Some(Pattern::Periodic(15)));
        assert_eq!(pattern(&t(&[1, 1, 5]), &chain), Some(Pattern::Periodic(5)));
        assert_eq!(pattern(&t(&[4, 1, 1]), &chain), Some(Pattern::Stretched(15)));
        assert_eq!(pattern(&t(&[4, 3, 1]), &chain), Some(Pattern::Stretched(5)));
        assert_eq!(pattern(&t(&[]), &chain), Some(Pattern::Periodic(1)));
        assert_eq!(pattern(&t(&[3, 1]), &chain), None, "broadcast on both sides");
        assert_eq!(pattern(&t(&[5, 3]).t().unwrap(), &[5, 3]), None, "a transpose");
        assert_eq!(pattern(&t(&[6]), &chain), None);
        let expanded = t(&[5]).expand(&[4, 3, 5]).unwrap();
        assert_eq!(pattern(&expanded, &chain), Some(Pattern::Periodic(5)));
    }

    #[test]
    fn filled_chunks_follow_the_pattern_across_boundaries() {
        let data: Vec<f32> = (0..40).map(|i| i as f32).collect();
        for pattern in [Pattern::Periodic(7), Pattern::Stretched(3)] {
            let chunks = Chunks::new(&data, pattern, CHUNK);
            assert!(chunks.is_filled());
            let mut buf = vec![0.0f32; 11];
            chunks.fill(5, &mut buf);
            let want: Vec<f32> = (5..16)
                .map(|e| match pattern {
                    Pattern::Periodic(p) => data[e % p],
                    Pattern::Stretched(r) => data[e / r],
                    Pattern::Run => unreachable!(),
                })
                .collect();
            assert_eq!(buf, want, "{pattern:?}");
        }
        match Chunks::new(&data, Pattern::Periodic(4), CHUNK) {
            Chunks::Fixed(values) => assert_eq!(&values[..9], &[0.0, 1.0, 2.0, 3.0, 0.0, 1.0, 2.0, 3.0, 0.0]),
            _ => panic!("a period dividing the chunk is filled once"),
        }
    }
}
