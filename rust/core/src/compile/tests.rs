use super::*;
use crate::ops::binary::{ClampBound, ClampMethod};
use crate::tensor::Tensor;
use crate::Scalar;

fn capture(inputs: &[Tensor], f: impl Fn(&[Tensor]) -> crate::Result<Vec<Tensor>>) -> Capture {
    begin(inputs).unwrap();
    match f(inputs) {
        Ok(outs) => finish(&outs).unwrap(),
        Err(e) => {
            abort();
            panic!("{e}")
        }
    }
}

fn graph(c: Capture) -> Graph {
    match c {
        Capture::Graph(g) => g,
        Capture::Break(reason) => panic!("unexpected break: {reason}"),
    }
}

fn chain(x: &[Tensor]) -> crate::Result<Vec<Tensor>> {
    let x = &x[0];
    Ok(vec![x.mul(x)?.add(x)?.exp()?.sum(None, false)?])
}

fn ramp(n: usize) -> Tensor {
    Tensor::from_vec((0..n).map(|i| (i as f32 / n as f32) - 0.5).collect(), &[n]).unwrap()
}

#[test]
fn a_chain_is_captured_as_its_nodes() {
    let g = graph(capture(&[ramp(8)], chain));
    assert_eq!(g.describe(), "%1 = mul(%0, %0)\n%2 = add(%1, %0)\n%3 = Exp(%2)\n%4 = sum(%3)\nreturn (%4)");
    assert!(!is_capturing());
}

#[test]
fn replay_gives_the_eager_values_on_new_inputs() {
    let g = graph(capture(&[ramp(8)], chain));
    let y = Tensor::from_vec(vec![1.0f32, -2.0, 0.25, 3.0, 0.0, -0.5, 2.0, 1.5], &[8]).unwrap();
    let want = chain(std::slice::from_ref(&y)).unwrap();
    assert_eq!(g.run(&[y]).unwrap()[0].to_vec::<f32>(), want[0].to_vec::<f32>());
}

#[test]
fn a_long_chain_that_ends_in_a_sum_is_fused_and_agrees_with_eager() {
    let n = 1_000_003; // not a multiple of the chunk
    let g = graph(capture(&[ramp(64)], chain));
    assert_eq!(g.fused_groups(), 0, "64 elements are below the fusion size");
    let g = graph(capture(&[ramp(n)], chain));
    assert_eq!(g.fused_groups(), 1);
    let x = ramp(n);
    let want = chain(std::slice::from_ref(&x)).unwrap()[0].to_vec::<f32>()[0];
    let got = g.run(&[x]).unwrap()[0].to_vec::<f32>()[0];
    assert!((got - want).abs() <= 1e-6 * want.abs(), "{got} vs {want}");
}

fn ramp64(n: usize) -> Tensor {
    Tensor::from_vec((0..n).map(|i| (i as f64 / n as f64) * 4.0 - 2.0).collect(), &[n]).unwrap()
}

fn number_bound(v: f64) -> ClampBound {
    ClampBound::Number(Scalar::Float(v))
}

fn number(v: f64) -> Tensor {
    Tensor::wrapped_scalar(Scalar::Float(v))
}

/// Captures `f` at `x`, checks how many groups are fused, and returns (replayed, eager) outputs at `x`.
fn replay_and_eager(x: &Tensor, groups: usize, f: fn(&[Tensor]) -> crate::Result<Vec<Tensor>>) -> (Tensor, Tensor) {
    let g = graph(capture(std::slice::from_ref(x), f));
    assert_eq!(g.fused_groups(), groups, "{}", g.describe());
    let got = g.run(std::slice::from_ref(x)).unwrap().remove(0);
    let want = f(std::slice::from_ref(x)).unwrap().remove(0);
    assert_eq!(got.dtype(), want.dtype());
    assert_eq!(got.shape(), want.shape());
    (got, want)
}

fn scalar_chain(x: &[Tensor]) -> crate::Result<Vec<Tensor>> {
    // numbers on either side, sub/div/pow/neg, then amax
    let x = &x[0];
    let y = number(2.0).sub(x)?.div(&number(3.0))?.pow(&number(2.0))?.neg()?.mul(x)?;
    Ok(vec![y.amax_amin(None, false, true, false)?])
}

#[test]
fn numbers_on_either_side_and_amax_fuse_exactly_in_float64() {
    let (got, want) = replay_and_eager(&ramp64(100_000), 1, scalar_chain);
    assert_eq!(got.to_vec::<f64>(), want.to_vec::<f64>());
}

fn silu_written_out(x: &[Tensor]) -> crate::Result<Vec<Tensor>> {
    Ok(vec![x[0].mul(&x[0].sigmoid()?)?])
}

#[test]
fn a_chain_without_a_reduction_writes_one_output_equal_to_eager() {
    let (got, want) = replay_and_eager(&ramp64(70_001), 1, silu_written_out);
    assert_eq!(got.to_vec::<f64>(), want.to_vec::<f64>());
    let (got, want) = replay_and_eager(&ramp(300_000), 1, silu_written_out);
    for (a, b) in got.to_vec::<f32>().iter().zip(want.to_vec::<f32>()) {
        assert!((a - b).abs() <= 1e-6 * b.abs().max(1e-30), "{a} vs {b}");
    }
}

fn sum_chain(x: &[Tensor]) -> crate::Result<Vec<Tensor>> {
    Ok(vec![x[0].mul(&x[0])?.add(&x[0])?.sum(None, false)?])
}

#[test]
fn a_fused_sum_agrees_with_eager_in_float64_and_propagates_nan_and_inf() {
    let (got, want) = replay_and_eager(&ramp64(1_000_003), 1, sum_chain);
    let (a, b) = (got.to_vec::<f64>()[0], want.to_vec::<f64>()[0]);
    assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} vs {b}");
    let mut v = vec![1.0f32; 100_000];
    v[77_777] = f32::NAN;
    let (got, _) = replay_and_eager(&Tensor::from_vec(v.clone(), &[100_000]).unwrap(), 1, sum_chain);
    assert!(got.to_vec::<f32>()[0].is_nan());
    v[77_777] = f32::INFINITY;
    let (got, _) = replay_and_eager(&Tensor::from_vec(v.clone(), &[100_000]).unwrap(), 1, sum_chain);
    assert_eq!(got.to_vec::<f32>()[0], f32::INFINITY);
    v[5] = f32::NAN;
    let amin = |x: &[Tensor]| Ok(vec![x[0].neg()?.exp()?.amax_amin(None, false, false, false)?]);
    let (got, want) = replay_and_eager(&Tensor::from_vec(v, &[100_000]).unwrap(), 1, amin);
    assert!(got.to_vec::<f32>()[0].is_nan() && want.to_vec::<f32>()[0].is_nan());
}

#[test]
fn a_node_without_a_slice_kernel_or_a_value_read_later_splits_the_chain() {
    // clamp has no slice kernel: mul+add before it fuse as one group, exp+sum after it as another
    let clamped = |x: &[Tensor]| {
        let y = x[0].mul(&x[0])?.add(&x[0])?.clamp(
            Some(number_bound(-0.1)),
            Some(number_bound(0.1)),
            ClampMethod::Clamp,
        )?;
        Ok(vec![y.exp()?.sum(None, false)?])
    };
    let (got, want) = replay_and_eager(&ramp(100_000), 2, clamped);
    let (a, b) = (got.to_vec::<f32>()[0], want.to_vec::<f32>()[0]);
    assert!((a - b).abs() <= 1e-6 * b.abs(), "{a} vs {b}");
    // `y` is returned: the chain stops before the sum and writes `y`; exp+sum after it is a group of its own
    let returned = |x: &[Tensor]| {
        let y = x[0].mul(&x[0])?.add(&x[0])?;
        Ok(vec![y.exp()?.sum(None, false)?, y])
    };
    let g = graph(capture(&[ramp(100_000)], returned));
    assert_eq!(g.fused_groups(), 2, "mul+add, then exp+sum");
    let x = ramp(100_000);
    let got = g.run(std::slice::from_ref(&x)).unwrap();
    let want = returned(std::slice::from_ref(&x)).unwrap();
    assert_eq!(got[1].to_vec::<f32>(), want[1].to_vec::<f32>());
    assert!((got[0].to_vec::<f32>()[0] - want[0].to_vec::<f32>()[0]).abs() <= 1e-6 * want[0].to_vec::<f32>()[0]);
}

#[test]
fn a_broadcast_or_an_int_operand_is_not_fused() {
    // the broadcast mul is a node of its own; exp+sum after it fuse
    let broadcast = |x: &[Tensor]| Ok(vec![x[0].mul(&x[0].sum(None, true)?)?.exp()?.sum(None, false)?]);
    let (got, want) = replay_and_eager(&ramp(100_000), 1, broadcast);
    let (a, b) = (got.to_vec::<f32>()[0], want.to_vec::<f32>()[0]);
    assert!((a - b).abs() <= 1e-6 * b.abs(), "{a} vs {b}");
    let ints = |x: &[Tensor]| Ok(vec![x[0].mul(&x[0])?.add(&x[0])?.sum(None, false)?]);
    let x = Tensor::from_vec((0..100_000i64).collect::<Vec<_>>(), &[100_000]).unwrap();
    let g = graph(capture(std::slice::from_ref(&x), ints));
    assert_eq!(g.fused_groups(), 0);
}

#[test]
fn a_non_contiguous_or_grad_requiring_input_runs_node_by_node_with_eager_values() {
    let square = |x: &[Tensor]| Ok(vec![x[0].mul(&x[0])?.add(&x[0])?.exp()?.sum(None, false)?]);
    let x = ramp64(400 * 300).reshape(&[400, 300]).unwrap();
    let g = graph(capture(std::slice::from_ref(&x), square));
    assert_eq!(g.fused_groups(), 1);
    let xt = ramp64(400 * 300).reshape(&[300, 400]).unwrap().t().unwrap();
    let got = g.run(std::slice::from_ref(&xt)).unwrap()[0].to_vec::<f64>()[0];
    let want = square(std::slice::from_ref(&xt)).unwrap()[0].to_vec::<f64>()[0];
    assert_eq!(got, want, "the transposed input is replayed node by node, as eager");
    let xg = x.with_requires_grad(true).unwrap();
    let out = g.run(std::slice::from_ref(&xg)).unwrap();
    assert!(out[0].grad_fn().is_some(), "a gradient is recorded by the eager rules");
}
#[test]
fn numbers_become_constants_of_the_graph() {
    let g = graph(capture(&[ramp(4)], |x| Ok(vec![x[0].mul(&Tensor::wrapped_scalar(Scalar::Float(2.0)))?])));
    assert_eq!(g.describe(), "%1 = mul(%0, 2)\nreturn (%1)");
    let y = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    assert_eq!(g.run(&[y]).unwrap()[0].to_vec::<f32>(), vec![2.0, 4.0, 6.0, 8.0]);
}

#[test]
fn every_output_of_a_split_is_a_value_and_a_replay_fills_them_all() {
    let pieces = |x: &[Tensor]| -> crate::Result<Vec<Tensor>> {
        let parts = x[0].split_with_sizes(&[2, 1, 3], 0)?;
        Ok(vec![parts[2].sum(None, false)?, parts[0].mul(&parts[0])?, parts[1].clone()])
    };
    let g = graph(capture(&[ramp(6)], pieces));
    let further = g.describe().lines().filter(|l| l.ends_with("[1]") || l.ends_with("[2]")).count();
    assert_eq!(further, 2, "{}", g.describe());
    let y = ramp(6).mul(&number(3.0)).unwrap();
    let (got, want) = (g.run(std::slice::from_ref(&y)).unwrap(), pieces(std::slice::from_ref(&y)).unwrap());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.shape(), w.shape());
        assert_eq!(g.to_vec::<f32>(), w.to_vec::<f32>());
    }
}

#[test]
fn a_tensor_from_before_the_capture_is_a_constant_read_as_it_is_at_replay() {
    let outside = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
    let g = graph(capture(&[ramp(3)], |x| Ok(vec![x[0].add(&outside)?])));
    assert!(g.describe().contains("const[3]"), "{}", g.describe());
    outside.fill_inplace(Scalar::Float(10.0), false).unwrap(); // the same tensor, changed in place after capture
    assert_eq!(g.run(&[ramp(3)]).unwrap()[0].to_vec::<f32>(), ramp(3).add(&outside).unwrap().to_vec::<f32>());
}

#[test]
fn a_chain_over_tensors_from_before_the_capture_is_fused_and_reads_them_as_they_are() {
    // (x*x + x).exp().sum() and (x*x + y) over a closure's x and y: no inputs at all, as a benchmark writes it
    let n = 100_003;
    let (x, y) = (ramp(n), ramp(n).mul(&number(0.5)).unwrap());
    let (xc, yc) = (x.clone(), y.clone());
    let g = graph(capture(&[], move |_| Ok(vec![xc.mul(&xc)?.add(&xc)?.exp()?.sum(None, false)?])));
    assert_eq!((g.fused_groups(), g.replay_steps()), (1, 1), "all four nodes in one group: {}", g.describe());
    let eager = || chain(std::slice::from_ref(&x)).unwrap()[0].to_vec::<f32>()[0];
    assert_eq!(g.run(&[]).unwrap()[0].to_vec::<f32>()[0], eager());
    x.fill_inplace(Scalar::Float(0.25), false).unwrap(); // changed in place after the capture: read anew
    assert_eq!(g.run(&[]).unwrap()[0].to_vec::<f32>()[0], eager());
    let g = graph(capture(&[], move |_| Ok(vec![x.mul(&x)?.add(&yc)?.neg()?])));
    assert_eq!(g.fused_groups(), 1, "{}", g.describe());
    let want: Vec<f32> = y.to_vec::<f32>().iter().map(|v| -(0.0625 + v)).collect();
    assert_eq!(g.run(&[]).unwrap()[0].to_vec::<f32>(), want);
}

#[test]
fn a_tensor_made_inside_breaks_the_graph() {
    let c = capture(&[ramp(3)], |x| Ok(vec![x[0].add(&Tensor::from_vec(vec![1.0f32; 3], &[3])?)?]));
    match c {
        Capture::Break(reason) => {
            assert!(reason.starts_with("add() reads a tensor that was made outside"), "{reason}")
        }
        Capture::Graph(g) => panic!("captured {}", g.describe()),
    }
}

#[test]
fn an_output_made_by_an_untraced_op_breaks_the_graph() {
    let c = capture(&[ramp(3)], |x| Ok(vec![x[0].detach()]));
    assert!(matches!(c, Capture::Break(r) if r.starts_with("an output")));
}

#[test]
fn an_unsupported_event_breaks_the_graph_and_nesting_is_refused() {
    let c = capture(&[ramp(3)], |x| {
        assert!(begin(x).is_err());
        unsupported("Tensor.item()");
        Ok(vec![x[0].exp()?])
    });
    assert!(matches!(c, Capture::Break(r) if r == "Tensor.item() cannot be captured"));
}

#[test]
fn an_op_built_from_traceable_ops_is_one_node() {
    // pow with exponent 0.5 runs sqrt inside: one node, not two
    let g = graph(capture(&[ramp(4)], |x| Ok(vec![x[0].pow(&Tensor::wrapped_scalar(Scalar::Float(0.5)))?])));
    assert_eq!(g.nodes.len(), 1);
    assert_eq!(g.nodes[0].name, "pow");
}

#[test]
fn gradients_flow_through_a_replay() {
    let x = Tensor::from_vec(vec![0.5f64, -1.0, 2.0], &[3]).unwrap().with_requires_grad(true).unwrap();
    let g = graph(capture(std::slice::from_ref(&x), chain));
    let out = g.run(std::slice::from_ref(&x)).unwrap();
    crate::autograd::backward(&[out[0].clone()], &[None], false, false, None).unwrap();
    let grad = x.grad().unwrap().to_vec::<f64>();
    for (i, v) in [0.5f64, -1.0, 2.0].into_iter().enumerate() {
        let want = (2.0 * v + 1.0) * (v * v + v).exp();
        assert!((grad[i] - want).abs() < 1e-12);
    }
}

#[test]
fn an_index_tensor_that_is_an_input_is_read_anew_on_every_replay() {
    let rows = |x: &[Tensor]| -> crate::Result<Vec<Tensor>> {
        let region = crate::Layout::contiguous(x[0].shape());
        Ok(vec![x[0].index_advanced(&region, &[(0, x[1].clone())])?])
    };
    let x = ramp(6).reshape(&[3, 2]).unwrap();
    let first = Tensor::from_vec(vec![0i64, 2], &[2]).unwrap();
    let g = graph(capture(&[x.clone(), first], rows));
    assert_eq!(g.describe(), "%2 = index(%0, %1)\nreturn (%2)");
    let other = Tensor::from_vec(vec![-1i64, 1, 1], &[3]).unwrap();
    let want = rows(&[x.clone(), other.clone()]).unwrap()[0].to_vec::<f32>();
    assert_eq!(g.run(&[x.clone(), other]).unwrap()[0].to_vec::<f32>(), want);
    let out_of_range = Tensor::from_vec(vec![3i64], &[1]).unwrap();
    assert!(g.run(&[x, out_of_range]).is_err());
}

/// minGPT's `NewGELU` written out: `0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`.
fn new_gelu(x: &[Tensor]) -> crate::Result<Vec<Tensor>> {
    let x = &x[0];
    let inner = x.add(&x.pow(&number(3.0))?.mul(&number(0.044715))?)?.mul(&number(0.797_884_560_802_865_4))?;
    Ok(vec![x.mul(&number(0.5))?.mul(&inner.tanh()?.add(&number(1.0))?)?])
}

#[test]
fn a_fused_chain_with_a_gradient_records_one_node_and_gives_eager_gradients_bit_for_bit() {
    let n = 70_001;
    let x = ramp64(n).with_requires_grad(true).unwrap();
    let g = graph(capture(std::slice::from_ref(&x), new_gelu));
    assert_eq!(g.fused_groups(), 1, "{}", g.describe());
    let upstream = ramp64(n).mul(&number(0.3)).unwrap().add(&number(1.0)).unwrap();
    let gradient_of = |out: &Tensor| {
        crate::autograd::grad(
            std::slice::from_ref(out),
            &[Some(upstream.clone())],
            std::slice::from_ref(&x),
            false,
            false,
            false,
        )
        .unwrap()
        .remove(0)
        .unwrap()
        .to_vec::<f64>()
    };
    let eager = new_gelu(std::slice::from_ref(&x)).unwrap().remove(0);
    let (eager_values, eager_gradient) = (eager.to_vec::<f64>(), gradient_of(&eager));
    for _ in 0..2 {
        let out = g.run(std::slice::from_ref(&x)).unwrap().remove(0);
        assert_eq!(out.grad_fn().map(|n| n.name()), Some("CompiledFunctionBackward"));
        assert_eq!(out.to_vec::<f64>(), eager_values);
        assert_eq!(gradient_of(&out), eager_gradient);
    }
    // the chain recomputed and eager's rules (18 ops) are one fused group
    assert_eq!(g.chain_backward_steps(), vec![1]);
}

#[test]
fn a_fused_chain_closed_by_a_sum_gives_eager_gradients_and_second_derivatives() {
    let n = 40_000;
    let x = ramp64(n).with_requires_grad(true).unwrap();
    let g = graph(capture(std::slice::from_ref(&x), chain));
    let out = g.run(std::slice::from_ref(&x)).unwrap().remove(0);
    assert_eq!(out.grad_fn().map(|n| n.name()), Some("CompiledFunctionBackward"));
    let grad = |y: &Tensor, create_graph: bool| {
        crate::autograd::grad(
            std::slice::from_ref(y),
            &[None],
            std::slice::from_ref(&x),
            create_graph,
            create_graph,
            false,
        )
        .unwrap()
        .remove(0)
        .unwrap()
    };
    // the backward: the gradient expanded, then the chain recomputed and its rules, in one fused group
    assert_eq!(g.chain_backward_steps(), vec![2]);
    let eager = || chain(std::slice::from_ref(&x)).unwrap().remove(0);
    assert_eq!(grad(&out, false).to_vec::<f64>(), grad(&eager(), false).to_vec::<f64>());
    // create_graph=True: the chain's eager ops again, so the gradient has history and a second derivative
    let out = g.run(std::slice::from_ref(&x)).unwrap().remove(0);
    let first = grad(&out, true);
    assert!(first.requires_grad());
    let second = grad(&first.sum(None, false).unwrap(), false).to_vec::<f64>();
    let eager_second = grad(&grad(&eager(), true).sum(None, false).unwrap(), false).to_vec::<f64>();
    assert_eq!(second, eager_second);
}

#[test]
fn a_saved_operand_written_in_place_before_backward_is_an_error_as_in_eager() {
    let n = 20_000;
    let leaf = ramp64(n).with_requires_grad(true).unwrap();
    let x = leaf.mul(&number(1.0)).unwrap();
    let g = graph(capture(std::slice::from_ref(&x), new_gelu));
    let out = g.run(std::slice::from_ref(&x)).unwrap().remove(0);
    {
        let _no_grad = crate::autograd::grad_mode::GradModeGuard::new(false);
        x.fill_inplace(Scalar::Float(1.0), false).unwrap();
    }
    let err = crate::autograd::backward(&[out.sum(None, false).unwrap()], &[None], false, false, None).unwrap_err();
    assert!(err.to_string().contains("modified by an inplace operation"), "{err}");
}

/// LLaMA's RMSNorm over rows of `ROW`: `x · rsqrt(mean(x², -1) + ε) · w`.
const ROW: isize = 100;

fn rms_norm(t: &[Tensor]) -> crate::Result<Vec<Tensor>> {
    let (x, w) = (&t[0], &t[1]);
    let x = x.view(&[-1, ROW])?;
    let r = x.pow(&number(2.0))?.mean(Some(&[-1]), true)?.add(&number(1e-6))?.rsqrt()?;
    Ok(vec![x.mul(&r)?.mul(w)?])
}

fn wavy(n: usize, phase: f64) -> Tensor {
    Tensor::from_vec((0..n).map(|i| ((i as f64) * 0.37 + phase).sin() * 2.0).collect(), &[n]).unwrap()
}

#[test]
fn a_row_group_runs_a_norm_with_its_row_means_in_one_pass_equal_to_eager() {
    let (x, w) = (wavy(100_000, 0.0), wavy(ROW as usize, 1.0).add(&number(1.0)).unwrap());
    for dtype in [crate::DType::F32, crate::DType::F64] {
        let inputs = [x.to_dtype(dtype).unwrap(), w.to_dtype(dtype).unwrap()];
        let g = graph(capture(&inputs, rms_norm));
        // the view, then pow, mean, add, rsqrt and both products in one group
        assert_eq!(g.fused_groups(), 1, "{}", g.describe());
        assert_eq!(g.replay_steps(), 2);
        let want = rms_norm(&inputs).unwrap().remove(0);
        let got = run_counting_fused(&g, &inputs, 1).remove(0);
        assert_eq!(got.shape(), want.shape());
        assert_eq!(got.to_vec::<f64>(), want.to_vec::<f64>(), "{dtype:?}");
    }
}

#[test]
fn a_row_group_with_a_gradient_records_one_node_and_its_backward_is_eager_bit_for_bit() {
    let n = 100_000;
    let x = wavy(n, 0.0).with_requires_grad(true).unwrap();
    let w = wavy(ROW as usize, 1.0).add(&number(1.0)).unwrap().with_requires_grad(true).unwrap();
    let inputs = [x.clone(), w.clone()];
    let g = graph(capture(&inputs, rms_norm));
    let upstream = wavy(n, 2.0).view(&[-1, ROW]).unwrap();
    let gradients_of = |out: &Tensor| -> Vec<Vec<f64>> {
        crate::autograd::grad(std::slice::from_ref(out), &[Some(upstream.clone())], &inputs, false, false, false)
            .unwrap()
            .into_iter()
            .map(|t| t.unwrap().to_vec::<f64>())
            .collect()
    };
    let eager = rms_norm(&inputs).unwrap().remove(0);
    let (eager_values, eager_gradients) = (eager.to_vec::<f64>(), gradients_of(&eager));
    let fused_runs = || crate::compile::fuse::FUSED_RUNS.with(|n| n.get());
    for _ in 0..2 {
        let out = run_counting_fused(&g, &inputs, 1).remove(0);
        assert_eq!(out.grad_fn().map(|n| n.name()), Some("CompiledFunctionBackward"));
        assert_eq!(out.to_vec::<f64>(), eager_values);
        let before = fused_runs();
        assert_eq!(gradients_of(&out), eager_gradients);
        assert_eq!(fused_runs() - before, 1, "the backward's row group ran fused");
    }
    // the backward (the chain recomputed, then eager's rules: 19 nodes) is one row group, with the weight's column sum
    // and its reshape deferred after it
    assert_eq!(g.chain_backward_steps(), vec![1], "{}", g.describe());
}

/// A row group with a node deferred between its own: `x.sum(0)` reads an input a later member reads too.
fn norm_and_column_sums(t: &[Tensor]) -> crate::Result<Vec<Tensor>> {
    let x = &t[0];
    let s = x.mul(x)?.mean(Some(&[-1]), true)?;
    let columns = x.sum(Some(&[0]), false)?;
    Ok(vec![x.mul(&s)?.sub(x)?, columns])
}

#[test]
fn a_node_deferred_after_a_row_group_reads_what_it_read_in_place() {
    let x = wavy(3001 * 9, 0.5).view(&[9, 3001]).unwrap();
    let g = graph(capture(std::slice::from_ref(&x), norm_and_column_sums));
    assert_eq!(g.fused_groups(), 1, "{}", g.describe());
    assert_eq!(g.replay_steps(), 1, "the column sum is deferred inside the group's step");
    let want = norm_and_column_sums(std::slice::from_ref(&x)).unwrap();
    for _ in 0..2 {
        let got = run_counting_fused(&g, std::slice::from_ref(&x), 1);
        for (a, b) in got.iter().zip(&want) {
            assert_eq!(a.shape(), b.shape());
            assert_eq!(a.to_vec::<f64>(), b.to_vec::<f64>());
        }
    }
}

fn layer_norm_by_hand(t: &[Tensor]) -> crate::Result<Vec<Tensor>> {
    let (x, w) = (&t[0], &t[1]);
    let x = x.view(&[-1, ROW])?;
    let centred = x.sub(&x.mean(Some(&[-1]), true)?)?;
    let r = centred.mul(&centred)?.mean(Some(&[-1]), true)?.add(&number(1e-5))?.rsqrt()?;
    Ok(vec![centred.mul(&r)?.mul(w)?.add(w)?])
}

fn softmax_by_hand(t: &[Tensor]) -> crate::Result<Vec<Tensor>> {
    let x = t[0].view(&[-1, ROW])?;
    let e = x.sub(&x.amax_amin(Some(&[-1]), true, true, false)?)?.exp()?;
    Ok(vec![e.div(&e.sum(Some(&[-1]), true)?)?.mul(&t[1])?])
}

/// Runs `g` at `inputs`, checking that its row group ran fused (not node by node) `runs` times.
fn run_counting_fused(g: &Graph, inputs: &[Tensor], runs: usize) -> Vec<Tensor> {
    let before = crate::compile::fuse::FUSED_RUNS.with(|n| n.get());
    let out = g.run(inputs).unwrap();
    assert_eq!(crate::compile::fuse::FUSED_RUNS.with(|n| n.get()) - before, runs, "{}", g.describe());
    out
}

#[test]
fn norms_and_a_softmax_written_out_run_as_one_row_group_reading_their_input_in_place() {
    let (x, w) = (wavy(100_000, 0.0), wavy(ROW as usize, 1.0));
    for f in [layer_norm_by_hand, softmax_by_hand, rms_norm] {
        let inputs = [x.clone(), w.clone()];
        let g = graph(capture(&inputs, f));
        assert_eq!((g.fused_groups(), g.replay_steps()), (1, 2), "{}", g.describe());
        let got = run_counting_fused(&g, &inputs, 1).remove(0);
        assert_eq!(got.to_vec::<f64>(), f(&inputs).unwrap()[0].to_vec::<f64>(), "{}", g.describe());
    }
}

#[test]
fn the_backwards_of_layer_norm_and_softmax_written_out_are_one_row_group_each_with_eager_gradients() {
    let x = wavy(100_000, 0.0).with_requires_grad(true).unwrap();
    let w = wavy(ROW as usize, 1.0).with_requires_grad(true).unwrap();
    let inputs = [x.clone(), w.clone()];
    let upstream = wavy(100_000, 2.0).view(&[-1, ROW]).unwrap();
    let gradients_of = |out: Tensor| -> Vec<Vec<f64>> {
        let found = crate::autograd::grad(&[out], &[Some(upstream.clone())], &inputs, false, false, false).unwrap();
        found.into_iter().map(|t| t.unwrap().to_vec::<f64>()).collect()
    };
    for f in [layer_norm_by_hand, softmax_by_hand] {
        let g = graph(capture(&inputs, f));
        let out = run_counting_fused(&g, &inputs, 1).remove(0);
        let before = crate::compile::fuse::FUSED_RUNS.with(|n| n.get());
        assert_eq!(gradients_of(out), gradients_of(f(&inputs).unwrap().remove(0)));
        assert_eq!(crate::compile::fuse::FUSED_RUNS.with(|n| n.get()) - before, 1);
        // LayerNorm's: the bias's and the weight's column sums deferred; softmax's: amax's mask a float one-pass node
        assert_eq!(g.chain_backward_steps(), vec![1], "{}", g.describe());
    }
}

fn values(shape: &[usize], seed: usize) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_vec((0..n).map(|i| ((i * 7919 + seed * 104_729) % 1000) as f32 / 500.0 - 1.0).collect(), shape)
        .unwrap()
}

fn linear_relu(x: &[Tensor]) -> crate::Result<Vec<Tensor>> {
    let bias = if x.len() > 2 { Some(&x[2]) } else { None };
    Ok(vec![Tensor::linear(&x[0], &x[1], bias)?.unary(crate::ops::unary::Relu)?])
}

#[test]
fn a_product_runs_the_op_that_reads_it_alone_as_its_epilogue_with_eager_values() {
    // rows split across threads, columns split, one-row dot products, a 3-d input, no bias (no epilogue path)
    for (input, out, bias) in [
        (vec![300, 200], 260, true),
        (vec![40, 200], 300, true),
        (vec![2, 64], 128, true),
        (vec![4, 50, 64], 96, true),
        (vec![300, 200], 260, false),
    ] {
        let k = input[input.len() - 1];
        let mut inputs = vec![values(&input, 0), values(&[out, k], 1)];
        if bias {
            inputs.push(values(&[out], 2));
        }
        let g = graph(capture(&inputs, linear_relu));
        assert_eq!(g.fused_groups(), 1, "{}", g.describe());
        let fresh: Vec<Tensor> = inputs.iter().enumerate().map(|(s, t)| values(t.shape(), s + 5)).collect();
        let want = linear_relu(&fresh).unwrap()[0].to_vec::<f32>();
        let runs = fuse::EPILOGUE_RUNS.with(|n| n.get());
        assert_eq!(g.run(&fresh).unwrap()[0].to_vec::<f32>(), want, "{input:?} -> {out}");
        let ran = fuse::EPILOGUE_RUNS.with(|n| n.get()) - runs;
        assert_eq!(ran, usize::from(bias), "the map ran inside the product only on the bias path: {input:?}");
    }
}

#[test]
fn a_product_read_by_two_nodes_or_returned_keeps_its_own_pass() {
    let inputs = [values(&[300, 200], 0), values(&[260, 200], 1), values(&[260], 2)];
    let returned = |x: &[Tensor]| {
        let y = Tensor::linear(&x[0], &x[1], Some(&x[2]))?;
        Ok(vec![y.unary(crate::ops::unary::Relu)?, y])
    };
    let g = graph(capture(&inputs, returned));
    assert_eq!(g.fused_groups(), 0, "{}", g.describe());
    let fresh: Vec<Tensor> = inputs.iter().enumerate().map(|(s, t)| values(t.shape(), s + 5)).collect();
    let (got, want) = (g.run(&fresh).unwrap(), returned(&fresh).unwrap());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.to_vec::<f32>(), w.to_vec::<f32>());
    }
}

#[test]
fn a_convolution_runs_the_op_that_reads_it_alone_as_its_epilogue_with_eager_values() {
    let win = crate::ops::conv::Window { kernel: [3, 3], stride: [1, 1], padding: [1, 1], dilation: [1, 1] };
    // one group (the epilogue runs), two groups (the grouped path: the op runs after it)
    for (channels_in, groups) in [(3, 1), (4, 2)] {
        let conv_relu = |x: &[Tensor]| {
            Ok(vec![Tensor::convolution(&x[0], &x[1], Some(&x[2]), &win, groups)?.unary(crate::ops::unary::Relu)?])
        };
        let inputs =
            [values(&[5, channels_in, 12, 12], 0), values(&[6, channels_in / groups, 3, 3], 1), values(&[6], 2)];
        let g = graph(capture(&inputs, conv_relu));
        assert_eq!(g.fused_groups(), 1, "{}", g.describe());
        let fresh: Vec<Tensor> = inputs.iter().enumerate().map(|(s, t)| values(t.shape(), s + 5)).collect();
        let want = conv_relu(&fresh).unwrap()[0].to_vec::<f32>();
        let runs = fuse::EPILOGUE_RUNS.with(|n| n.get());
        assert_eq!(g.run(&fresh).unwrap()[0].to_vec::<f32>(), want, "groups {groups}");
        let ran = fuse::EPILOGUE_RUNS.with(|n| n.get()) - runs;
        assert_eq!(ran, usize::from(groups == 1), "the map ran inside the convolution only with one group");
    }
}
