use super::*;
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

#[test]
fn numbers_become_constants_of_the_graph() {
    let g = graph(capture(&[ramp(4)], |x| Ok(vec![x[0].mul(&Tensor::wrapped_scalar(Scalar::Float(2.0)))?])));
    assert_eq!(g.describe(), "%1 = mul(%0, 2)\nreturn (%1)");
    let y = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    assert_eq!(g.run(&[y]).unwrap()[0].to_vec::<f32>(), vec![2.0, 4.0, 6.0, 8.0]);
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
