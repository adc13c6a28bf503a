//! The forward of `addmm` (and so of `linear`): the bias is written into the output first and the product
//! added to it, in one allocation and no second pass; one-row products run as dot products.
use crate::compile::MapAfter;
use crate::element::Element;
use crate::error::Result;
use crate::kernels::gemv::{dots_acc_into, DotElement};
use crate::kernels::matmul::{matmul_acc_into, MatRef};
use crate::layout::Layout;
use crate::tensor::Tensor;
use crate::DType;

/// Rows of `a` up to which `a @ b` runs as dot products over `b`'s columns rather than through gemm
/// (each row reads all of `b` again; gemm packs it once).
const DOT_ROWS: usize = 4;

/// `bias + a @ b` for matrices `a` (m×k) and `b` (k×n) of one float dtype and a bias of that dtype that
/// broadcasts to m×n, as a new contiguous tensor without history; None when the operands need the general
/// path (other dtypes or shapes, which also raises their errors). A map in `then` (of this dtype) runs over each part
/// of the output as soon as the part is final, into `then.out`.
pub(crate) fn bias_mm(bias: &Tensor, a: &Tensor, b: &Tensor, then: Option<&mut MapAfter>) -> Option<Result<Tensor>> {
    if a.ndim() != 2 || b.ndim() != 2 || a.shape()[1] != b.shape()[0] {
        return None;
    }
    let dtype = a.dtype();
    if !matches!(dtype, DType::F32 | DType::F64) || b.dtype() != dtype || bias.dtype() != dtype {
        return None;
    }
    let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    let bias_strides = broadcast_strides(bias.layout(), m, n)?;
    Some(match dtype {
        DType::F32 => product::<f32>(bias, bias_strides, a, b, m, k, n, then),
        _ => product::<f64>(bias, bias_strides, a, b, m, k, n, then),
    })
}

/// The bias's (row, column) strides as broadcast to m×n (0 along a broadcast dim), if it broadcasts.
fn broadcast_strides(l: &Layout, m: usize, n: usize) -> Option<(usize, usize)> {
    let along = |size: usize, stride: usize, to: usize| match size {
        1 => Some(0),
        s if s == to => Some(stride),
        _ => None,
    };
    match l.shape.len() {
        0 => Some((0, 0)),
        1 => Some((0, along(l.shape[0], l.strides[0], n)?)),
        2 => Some((along(l.shape[0], l.strides[0], m)?, along(l.shape[1], l.strides[1], n)?)),
        _ => None,
    }
}

#[allow(clippy::too_many_arguments)]
fn product<T: Element + DotElement>(
    bias: &Tensor,
    (brs, bcs): (usize, usize),
    a: &Tensor,
    b: &Tensor,
    m: usize,
    k: usize,
    n: usize,
    then: Option<&mut MapAfter>,
) -> Result<Tensor> {
    let mapped = MapAfter::output::<T>(then.as_deref(), m * n);
    let epilogue = mapped.as_ref().map(|m| move |first: usize, part: &[T]| m.map_part(first, part));
    let mut out: Vec<T> = crate::pool::take(m * n);
    bias.with_data(|lb, xb: &[T]| {
        for i in 0..m {
            let start = lb.offset + i * brs;
            if bcs == 1 {
                // a Linear's bias: one row copy, not a strided gather a scalar store at a time
                out.extend_from_slice(&xb[start..start + n]);
            } else {
                out.extend((0..n).map(|o| xb[start + o * bcs]));
            }
        }
    });
    a.with_data(|la, xa: &[T]| {
        b.with_data(|lb, xb: &[T]| {
            let (ars, acs) = (la.strides[0], la.strides[1]);
            let (brs, bcs) = (lb.strides[0], lb.strides[1]);
            // `b`'s columns are contiguous (the rows of a weight, `b` = weight.t()) when brs == 1
            if m <= DOT_ROWS && n > 0 && (k == 1 || k > 1 && acs == 1 && brs == 1) {
                for (i, row) in out.chunks_mut(n).enumerate() {
                    let x = &xa[la.offset + i * ars..][..k];
                    dots_acc_into(row, x, &xb[lb.offset..], bcs);
                }
                if let Some(epilogue) = &epilogue {
                    epilogue(0, &out);
                }
            } else {
                let ma = MatRef { offset: la.offset, row_stride: ars, col_stride: acs };
                let mb = MatRef { offset: lb.offset, row_stride: brs, col_stride: bcs };
                let epilogue = epilogue.as_ref().map(|e| e as &(dyn Fn(usize, &[T]) + Sync));
                matmul_acc_into(&mut out, xa, ma, xb, mb, m, k, n, epilogue);
            }
        })
    });
    if let (Some(mapped), Some(then)) = (mapped, then) {
        // Safety: the parts cover the m·n output once (`matmul_acc_into`), or the one call above did
        unsafe { mapped.finish(then, &[m, n])? };
    }
    Tensor::from_vec(out, &[m, n])
}
