//! `resize_` / `resize_as_`: a tensor takes a new shape over its own storage, which grows (old elements first,
//! zeros after) when the new shape reaches past its end; views of the storage keep reading it.
use crate::error::Result;
use crate::layout::{check_numel, Layout};
use crate::tensor::Tensor;
use crate::{bail, Error};
use std::sync::Arc;

/// Strides laying `shape`'s dims out densely in `order` (outermost first).
fn strides_in_order(shape: &[usize], order: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; shape.len()];
    let mut step = 1usize;
    for &d in order.iter().rev() {
        strides[d] = step;
        step = step.saturating_mul(shape[d].max(1));
    }
    strides
}

impl Tensor {
    /// The record `resize_(shape)` leaves (None: unchanged), and whether the sizes changed (torch bumps the version
    /// counter then, not for a restride alone). `order` lays the dims out as a memory format does (outermost
    /// first); without it a new shape is row-major and an unchanged one keeps its strides, as in torch.
    pub fn resized(&self, shape: &[usize], order: Option<&[usize]>) -> Result<(Option<Tensor>, bool)> {
        if self.requires_grad() {
            bail!(Runtime, "cannot resize variables that require grad");
        }
        let numel = check_numel(shape)?;
        let sizes_change = self.shape() != shape;
        if !sizes_change && order.is_none() {
            return Ok((None, false));
        }
        let strides = match order {
            Some(order) => {
                if order.len() != shape.len() || (0..shape.len()).any(|d| !order.contains(&d)) {
                    return Err(Error::Runtime(format!("resize_: {order:?} is not an order of {} dims", shape.len())));
                }
                strides_in_order(shape, order)
            }
            None => crate::layout::contiguous_strides(shape),
        };
        let layout = Layout { shape: shape.to_vec(), strides, offset: self.storage_offset() };
        if numel > 0 {
            // a complex tensor's storage holds (re, im) pairs of its component type
            let per_element = self.dtype().itemsize() / self.dtype().component().itemsize();
            let needed = layout.storage_extent().checked_mul(per_element);
            let needed = needed.ok_or_else(|| crate::alloc::out_of_memory(u128::MAX))?;
            self.storage().grow(needed)?;
        }
        let mut t = Tensor::from_parts(self.storage().clone(), layout, self.dtype());
        let fresh = Arc::get_mut(&mut t.0).expect("fresh tensor");
        fresh.is_view = self.0.is_view;
        fresh.is_inference = self.0.is_inference;
        Ok((Some(t), sizes_change))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    #[test]
    fn growing_keeps_the_elements_and_zeros_the_rest() {
        let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
        let (r, changed) = t.resized(&[2, 3], None).unwrap();
        let r = r.unwrap();
        assert!(changed);
        assert_eq!(r.to_vec::<f32>(), vec![1.0, 2.0, 3.0, 0.0, 0.0, 0.0]);
        assert!(r.same_storage(&t));
        assert_eq!(t.to_vec::<f32>(), vec![1.0, 2.0, 3.0]);
    }

    #[test]
    fn unchanged_sizes_keep_the_record_unless_a_format_is_given() {
        let t = Tensor::zeros(&[2, 3], DType::F32).transpose(0, 1).unwrap();
        assert!(t.resized(&[3, 2], None).unwrap().0.is_none());
        let (r, changed) = t.resized(&[3, 2], Some(&[0, 1])).unwrap();
        assert!(!changed);
        assert_eq!(r.unwrap().strides(), &[2, 1]);
        let (r, _) = Tensor::zeros(&[2], DType::F32).resized(&[1, 2, 2, 3], Some(&[0, 2, 3, 1])).unwrap();
        assert_eq!(r.unwrap().strides(), &[12, 1, 6, 2]);
    }

    #[test]
    fn shared_storage_does_not_grow() {
        let t = Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
        t.storage().share_memory().unwrap();
        assert!(t.storage().is_shared());
        assert_eq!(t.to_vec::<f64>(), vec![1.0, 2.0]);
        assert!(t.resized(&[3], None).is_err());
        assert_eq!(t.resized(&[1], None).unwrap().0.unwrap().to_vec::<f64>(), vec![1.0]);
    }
}
