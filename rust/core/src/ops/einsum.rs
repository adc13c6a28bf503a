//! `einsum`, composed of differentiable ops (as PyTorch's is): repeated subscripts within an operand
//! become `diagonal`s, subscripts used nowhere else are summed out, and operands are contracted
//! pairwise, left to right, by one batched matrix product each (permute + reshape to
//! batch × rows × inner), or by a broadcasting multiply when nothing is contracted.
use crate::bail;
use crate::error::Result;
use crate::tensor::Tensor;

/// A subscript: a letter (0..52) or one dim of the ellipsis (52 + its index in the widest ellipsis).
type Label = usize;
const ELLIPSIS: Label = 52;

fn letter(c: char) -> Option<Label> {
    match c {
        'A'..='Z' => Some(c as usize - 'A' as usize),
        'a'..='z' => Some(26 + c as usize - 'a' as usize),
        _ => None,
    }
}

fn label_name(l: Label) -> String {
    match l {
        0..26 => ((b'A' + l as u8) as char).to_string(),
        26..ELLIPSIS => ((b'a' + (l - 26) as u8) as char).to_string(),
        _ => "...".to_string(),
    }
}

/// One term of the equation: its letters, and where its ellipsis stands (if it has one).
struct Term {
    letters: Vec<Label>,
    ellipsis_at: Option<usize>,
}

fn parse_term(term: &str, start: usize, operand: usize) -> Result<Term> {
    let mut letters = Vec::new();
    let mut ellipsis_at = None;
    let chars: Vec<char> = term.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '.' {
            if ellipsis_at.is_some() || chars.get(i + 1) != Some(&'.') || chars.get(i + 2) != Some(&'.') {
                bail!(Runtime, "einsum(): found '.' for operand {operand} that is not part of any ellipsis");
            }
            ellipsis_at = Some(letters.len());
            i += 3;
            continue;
        }
        match letter(c) {
            Some(l) => letters.push(l),
            None => bail!(
                Runtime,
                "einsum(): invalid subscript given at index {} in the equation string, subscripts must be in [a-zA-Z]",
                start + i
            ),
        }
        i += 1;
    }
    Ok(Term { letters, ellipsis_at })
}

/// The labels of a term's dims, given how many dims its ellipsis covers out of the widest one.
fn expand_term(term: &Term, ell_dims: usize, widest: usize) -> Vec<Label> {
    let mut out = term.letters.clone();
    if let Some(at) = term.ellipsis_at {
        let ell: Vec<Label> = (widest - ell_dims..widest).map(|k| ELLIPSIS + k).collect();
        out.splice(at..at, ell);
    }
    out
}

/// An operand on its way through the contraction: a tensor and the label of each of its dims.
struct Labeled {
    t: Tensor,
    labels: Vec<Label>,
}

impl Labeled {
    fn size(&self, l: Label) -> usize {
        self.labels.iter().position(|&x| x == l).map_or(1, |d| self.t.shape()[d])
    }

    /// Sums out the labels `keep` rejects.
    fn sum_out(self, keep: impl Fn(Label) -> bool) -> Result<Labeled> {
        let dims: Vec<isize> = (0..self.labels.len()).filter(|&d| !keep(self.labels[d])).map(|d| d as isize).collect();
        if dims.is_empty() {
            return Ok(self);
        }
        let labels = self.labels.iter().copied().filter(|&l| keep(l)).collect();
        Ok(Labeled { t: self.t.sum(Some(&dims), false)?, labels })
    }

    /// Reorders the dims to `order` (a permutation of this operand's labels); no op when already so.
    fn permute_to(self, order: &[Label]) -> Result<Labeled> {
        let perm: Vec<isize> =
            order.iter().map(|l| self.labels.iter().position(|x| x == l).expect("label") as isize).collect();
        if perm.iter().enumerate().all(|(i, &p)| i as isize == p) {
            return Ok(self);
        }
        Ok(Labeled { t: self.t.permute(&perm)?, labels: order.to_vec() })
    }
}

/// `einsum(equation, operands)`.
pub fn einsum(equation: &str, operands: &[Tensor]) -> Result<Tensor> {
    if operands.is_empty() {
        bail!(Runtime, "einsum(): must provide at least one operand");
    }
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.find("->") {
        Some(p) => (&eq[..p], Some(&eq[p + 2..])),
        None => (&eq[..], None),
    };
    let mut terms = Vec::new();
    let mut start = 0;
    for (i, part) in lhs.split(',').enumerate() {
        terms.push(parse_term(part, start, i)?);
        start += part.len() + 1;
    }
    if terms.len() < operands.len() {
        bail!(Runtime, "einsum(): more operands were provided than specified in the equation");
    }
    if terms.len() > operands.len() {
        bail!(Runtime, "einsum(): fewer operands were provided than specified in the equation");
    }
    // how many dims each ellipsis covers; they align from the right
    let mut ell_dims = Vec::with_capacity(terms.len());
    for (i, (term, t)) in terms.iter().zip(operands).enumerate() {
        let n = term.letters.len();
        match term.ellipsis_at {
            None if n != t.ndim() => bail!(
                Runtime,
                "einsum(): the number of subscripts in the equation ({n}) does \
                not match the number of dimensions ({}) for operand {i} and no ellipsis was given",
                t.ndim()
            ),
            Some(_) if n > t.ndim() => bail!(
                Runtime,
                "einsum(): the number of subscripts in the equation ({n}) is \
                more than the number of dimensions ({}) for operand {i}",
                t.ndim()
            ),
            _ => ell_dims.push(t.ndim() - n),
        }
    }
    let widest = ell_dims.iter().copied().max().unwrap_or(0);
    let labels: Vec<Vec<Label>> = terms.iter().zip(&ell_dims).map(|(t, &e)| expand_term(t, e, widest)).collect();
    let ellipsis: Vec<Label> = (0..widest).map(|k| ELLIPSIS + k).collect();
    let output: Vec<Label> = match rhs {
        Some(rhs) => {
            let term = parse_term(rhs, lhs.len() + 2, terms.len())?;
            for (i, &l) in term.letters.iter().enumerate() {
                if term.letters[..i].contains(&l) {
                    bail!(Runtime, "einsum(): output subscript {} appears more than once in the output", label_name(l));
                }
                if !labels.iter().any(|ls| ls.contains(&l)) {
                    bail!(
                        Runtime,
                        "einsum(): output subscript {} does not appear in the equation for any input operand",
                        label_name(l)
                    );
                }
            }
            expand_term(&term, widest, widest)
        }
        None => {
            // the ellipsis dims, then the letters used exactly once, in alphabetical order (A-Z, a-z)
            let mut out = ellipsis.clone();
            out.extend((0..ELLIPSIS).filter(|l| labels.iter().flatten().filter(|&x| x == l).count() == 1));
            out
        }
    };
    // each operand on its own: diagonals for repeated labels, sums for labels no one else uses
    let mut pending: Vec<Labeled> = Vec::with_capacity(operands.len());
    for (i, (t, ls)) in operands.iter().zip(&labels).enumerate() {
        let mut op = Labeled { t: t.clone(), labels: ls.clone() };
        while let Some((p, q)) = repeated(&op.labels) {
            let (a, b) = (op.t.shape()[p], op.t.shape()[q]);
            if a != b {
                bail!(
                    Runtime,
                    "einsum(): subscript {} is repeated for operand {i} but the sizes don't match, {b} != {a}",
                    label_name(op.labels[p])
                );
            }
            let l = op.labels[p];
            op.t = op.t.diagonal(0, p as isize, q as isize)?;
            op.labels.remove(q);
            op.labels.remove(p);
            op.labels.push(l);
        }
        let elsewhere =
            |l: Label| output.contains(&l) || labels.iter().enumerate().any(|(j, ls)| j != i && ls.contains(&l));
        pending.push(op.sum_out(elsewhere)?);
    }
    check_sizes(&pending)?;
    let mut pending = pending.into_iter();
    let mut acc = pending.next().expect("one operand at least");
    let rest: Vec<Labeled> = pending.collect();
    for (k, next) in rest.iter().enumerate() {
        let needed = |l: Label| output.contains(&l) || rest[k + 1..].iter().any(|o| o.labels.contains(&l));
        acc = contract(acc, Labeled { t: next.t.clone(), labels: next.labels.clone() }, &output, needed)?;
    }
    let acc = acc.sum_out(|l| output.contains(&l))?;
    // a label of size 1 everywhere may have been dropped by a broadcast; put it back
    let mut acc = acc;
    for &l in &output {
        if !acc.labels.contains(&l) {
            acc = Labeled {
                t: acc.t.unsqueeze(acc.labels.len() as isize)?,
                labels: acc.labels.iter().copied().chain([l]).collect(),
            };
        }
    }
    Ok(acc.permute_to(&output)?.t)
}

/// Two dims of one operand with the same label, if any.
fn repeated(labels: &[Label]) -> Option<(usize, usize)> {
    for q in 0..labels.len() {
        if let Some(p) = labels[..q].iter().position(|&l| l == labels[q]) {
            return Some((p, q));
        }
    }
    None
}

/// Every label has one size across operands, or size 1 where it broadcasts.
fn check_sizes(ops: &[Labeled]) -> Result<()> {
    let mut seen: std::collections::HashMap<Label, usize> = Default::default();
    for (i, o) in ops.iter().enumerate() {
        for (d, &l) in o.labels.iter().enumerate() {
            let n = o.t.shape()[d];
            match seen.get(&l) {
                Some(&s) if s != n && s != 1 && n != 1 => {
                    bail!(
                        Runtime,
                        "einsum(): subscript {} has size {n} for operand {i} which does not broadcast with \
                        previously seen size {s}",
                        label_name(l)
                    );
                }
                Some(&s) if s != 1 => {}
                _ => {
                    seen.insert(l, n);
                }
            }
        }
    }
    Ok(())
}

/// Contracts `a` with `b` over the labels they share that `needed` says no one needs later.
fn contract(a: Labeled, b: Labeled, output: &[Label], needed: impl Fn(Label) -> bool) -> Result<Labeled> {
    // labels only one side has and no one needs any more can go first
    let a = {
        let bl = b.labels.clone();
        a.sum_out(|l| bl.contains(&l) || needed(l))?
    };
    let b = {
        let al = a.labels.clone();
        b.sum_out(|l| al.contains(&l) || needed(l))?
    };
    // groups ordered as the output wants them, so the final permute is usually no op
    let rank = |l: &Label| output.iter().position(|x| x == l).unwrap_or(usize::MAX);
    let by_output = |mut v: Vec<Label>| {
        v.sort_by_key(rank);
        v
    };
    let batch = by_output(a.labels.iter().copied().filter(|l| b.labels.contains(l) && needed(*l)).collect());
    let inner: Vec<Label> = a.labels.iter().copied().filter(|l| b.labels.contains(l) && !needed(*l)).collect();
    let left = by_output(a.labels.iter().copied().filter(|l| !b.labels.contains(l)).collect());
    let right = by_output(b.labels.iter().copied().filter(|l| !a.labels.contains(l)).collect());
    if inner.is_empty() {
        return broadcast_mul(a, b, &[batch, left, right].concat());
    }
    // a contracted label of size 1 on one side only: sum the other side over it first
    let (mut a, mut b) = (a, b);
    for &l in &inner {
        let (na, nb) = (a.size(l), b.size(l));
        if na == 1 && nb != 1 {
            b = sum_keep(b, l)?;
        } else if nb == 1 && na != 1 {
            a = sum_keep(a, l)?;
        }
    }
    let sizes: Vec<usize> = batch.iter().map(|&l| a.size(l).max(b.size(l))).collect();
    let count = |ls: &[Label], o: &Labeled| ls.iter().map(|&l| o.size(l)).product::<usize>();
    let (nb, nl, nk, nr) = (sizes.iter().product::<usize>(), count(&left, &a), count(&inner, &a), count(&right, &b));
    let as_batched = |o: Labeled, first: &[Label], second: &[Label], rows: usize, cols: usize| -> Result<Tensor> {
        let order = [batch.clone(), first.to_vec(), second.to_vec()].concat();
        let o = o.permute_to(&order)?;
        let mut full: Vec<usize> = sizes.clone();
        full.extend(o.t.shape()[batch.len()..].iter().copied());
        let t = if o.t.shape() == full.as_slice() { o.t } else { o.t.expand(&full)? };
        t.reshape(&[nb, rows, cols])
    };
    let left_sizes: Vec<usize> = left.iter().map(|&l| a.size(l)).collect();
    let right_sizes: Vec<usize> = right.iter().map(|&l| b.size(l)).collect();
    let out = as_batched(a, &left, &inner, nl, nk)?.bmm(&as_batched(b, &inner, &right, nk, nr)?)?;
    let shape = [sizes, left_sizes, right_sizes].concat();
    let labels = [batch, left, right].concat();
    Ok(Labeled { t: out.reshape(&shape)?, labels })
}

/// Sums `o` over label `l`, keeping the dim (size 1).
fn sum_keep(o: Labeled, l: Label) -> Result<Labeled> {
    let d = o.labels.iter().position(|&x| x == l).expect("label") as isize;
    Ok(Labeled { t: o.t.sum(Some(&[d]), true)?, labels: o.labels })
}

/// `a * b` with both laid out as `order` (size-1 dims where one lacks a label).
fn broadcast_mul(a: Labeled, b: Labeled, order: &[Label]) -> Result<Labeled> {
    let align = |o: Labeled| -> Result<Tensor> {
        let mine: Vec<Label> = order.iter().copied().filter(|l| o.labels.contains(l)).collect();
        let mut t = o.permute_to(&mine)?.t;
        for (d, l) in order.iter().enumerate() {
            if !mine.contains(l) {
                t = t.unsqueeze(d as isize)?;
            }
        }
        Ok(t)
    };
    Ok(Labeled { t: align(a)?.mul(&align(b)?)?, labels: order.to_vec() })
}
