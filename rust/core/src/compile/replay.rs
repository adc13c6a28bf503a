//! Running a captured graph over new inputs: each node's own eager entry point in order (so autograd
//! records the same rules as eager mode), fused groups chunk by chunk (`fuse.rs`), and every value
//! dropped after its last reader so its buffer goes back to the pool for the next node.
use super::fuse::{run_recorded, ProductEpilogue, RowGroup, Step};
use super::graph::Graph;
use super::ir::{Node, Operand, Run};
use super::kernel::MapAfter;
use crate::autograd::grad_mode::{self, GradModeGuard};
use crate::bail;
use crate::error::Result;
use crate::tensor::Tensor;

impl Graph {
    /// The graph's outputs for `inputs` (which must match the capture's guards: shapes, dtypes, layouts).
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        if inputs.len() != self.n_inputs {
            bail!(Runtime, "the compiled graph takes {} inputs, got {}", self.n_inputs, inputs.len());
        }
        let mut values: Vec<Option<Tensor>> = inputs.iter().cloned().map(Some).collect();
        values.resize(self.n_inputs + self.nodes.len(), None);
        let mut is_output = vec![false; values.len()];
        for &v in &self.outputs {
            is_output[v] = true;
        }
        for step in &self.plan {
            let (first, last) = match step {
                Step::Node(i) => {
                    self.run_into(*i, &mut values)?;
                    (*i, *i)
                }
                Step::Fused(group) => {
                    let fused = match group.run(self.n_inputs, &self.nodes, &values)? {
                        Some(out) => Some(out),
                        // an operand needs a gradient: fused, with one node for the chain's backward
                        None => run_recorded(group, self.n_inputs, &self.nodes, &values)?,
                    };
                    let out = match fused {
                        Some(out) => out,
                        // not fusable with these inputs (a layout, a gradient): node by node
                        None => {
                            for i in group.first..group.last {
                                values[self.n_inputs + i] = Some(self.run_node(i, &values)?);
                            }
                            self.run_node(group.last, &values)?
                        }
                    };
                    values[self.n_inputs + group.last] = Some(out);
                    (group.first, group.last)
                }
                Step::Rows(group) => {
                    self.run_rows(group, &mut values)?;
                    (group.first, group.last)
                }
                Step::Epilogue(epilogue) => {
                    self.run_epilogue(epilogue, &mut values)?;
                    (epilogue.product, epilogue.map_node())
                }
            };
            for i in first..=last {
                self.free_after(i, &mut values, &is_output);
            }
        }
        Ok(self.outputs.iter().map(|&v| values[v].clone().expect("an output is computed before the end")).collect())
    }

    /// A row group's values (those read after it), then its deferred nodes; node by node in capture order when
    /// it cannot run fused.
    fn run_rows(&self, group: &RowGroup, values: &mut [Option<Tensor>]) -> Result<()> {
        let fused = match group.run(self.n_inputs, &self.nodes, values)? {
            Some(outs) => Some(outs),
            None => run_recorded(group, self.n_inputs, &self.nodes, values)?.map(|out| vec![out]),
        };
        let Some(outs) = fused else {
            for i in group.first..=group.last {
                self.run_into(i, values)?;
            }
            return Ok(());
        };
        for (&i, out) in group.outputs.iter().zip(outs) {
            values[self.n_inputs + i] = Some(out);
        }
        for &i in &group.deferred {
            self.run_into(i, values)?;
        }
        Ok(())
    }

    /// A product with its op run over its output as it is made, the op's node recorded over the values as eager
    /// records it; the op node by node when the product's path does not run it.
    fn run_epilogue(&self, epilogue: &ProductEpilogue, values: &mut [Option<Tensor>]) -> Result<()> {
        let (i, j) = (epilogue.product, epilogue.map_node());
        let (product, map) = (&self.nodes[i], &self.nodes[j]);
        let (Some(run), Some(kernel), Some(record)) = (&product.product, &map.kernel, &map.recorder) else {
            unreachable!("an epilogue's product and op carry their handles")
        };
        let mut then = MapAfter { kernel, out: None };
        let value = {
            let _mode = mode_of(product);
            run(&self.operands(i, values), &mut then)?
        };
        let mapped = then.out.map(|mapped| {
            let _mode = mode_of(map);
            record(&value, mapped)
        });
        values[self.n_inputs + i] = Some(value);
        match mapped {
            Some(mapped) => {
                #[cfg(test)]
                super::fuse::EPILOGUE_RUNS.with(|n| n.set(n.get() + 1));
                values[self.n_inputs + j] = Some(mapped)
            }
            None => self.run_into(j, values)?,
        }
        Ok(())
    }

    pub(crate) fn operands<'a>(&'a self, i: usize, values: &'a [Option<Tensor>]) -> Vec<&'a Tensor> {
        self.nodes[i]
            .operands
            .iter()
            .map(|op| match op {
                Operand::Value(v) => values[*v].as_ref().expect("a value is computed before its readers"),
                Operand::Constant(t) => t,
            })
            .collect()
    }

    /// Node `i`'s value (a fused group's nodes have one output each).
    fn run_node(&self, i: usize, values: &[Option<Tensor>]) -> Result<Tensor> {
        let node = &self.nodes[i];
        let _mode = mode_of(node);
        match &node.run {
            Run::One(run) => run(&self.operands(i, values)),
            Run::Many(_) | Run::Output => bail!(Runtime, "compiled graph: {} has several outputs", node.name),
        }
    }

    /// Runs node `i` into `values`: a multi-output op fills its own value and its `Run::Output` nodes'.
    fn run_into(&self, i: usize, values: &mut [Option<Tensor>]) -> Result<()> {
        let node = &self.nodes[i];
        match &node.run {
            Run::One(_) => values[self.n_inputs + i] = Some(self.run_node(i, values)?),
            Run::Many(run) => {
                let outs = {
                    let _mode = mode_of(node);
                    run(&self.operands(i, values))?
                };
                let slots = 1 + self.nodes[i + 1..].iter().take_while(|n| matches!(n.run, Run::Output)).count();
                if outs.len() != slots {
                    bail!(Runtime, "compiled graph: {} gave {} outputs, captured {slots}", node.name, outs.len());
                }
                for (k, out) in outs.into_iter().enumerate() {
                    values[self.n_inputs + i + k] = Some(out);
                }
            }
            // set by the node that made it
            Run::Output => {}
        }
        Ok(())
    }

    fn free_after(&self, i: usize, values: &mut [Option<Tensor>], is_output: &[bool]) {
        for op in &self.nodes[i].operands {
            if let Operand::Value(v) = op {
                if self.last_use[*v] == Some(i) && !is_output[*v] {
                    values[*v] = None;
                }
            }
        }
    }
}

/// The grad mode a node ran in at capture, set for its replay when it is not the current one.
fn mode_of(node: &Node) -> Option<GradModeGuard> {
    (node.grad_enabled != grad_mode::is_enabled()).then(|| GradModeGuard::new(node.grad_enabled))
}
