"""`AdaptiveLogSoftmaxWithLoss` (Grave et al., "Efficient softmax approximation for GPUs"): the frequent classes
(below `cutoffs[0]`) are scored by a head layer, which also scores one entry per cluster of rarer classes; a class
in a cluster gets the cluster's head log-probability plus its log-probability within the cluster, from a smaller
projection. Each batch runs the projections of the clusters its targets fall in only."""

from collections import namedtuple

from ... import _core
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])

_BAD_CUTOFFS = (
    "cutoffs should be a sequence of unique, positive integers sorted in an increasing order, where each value is "
    "between 1 and n_classes-1"
)


class AdaptiveLogSoftmaxWithLoss(Module):
    """`forward(input, target)` gives each row's log-probability of its target and their mean negative (the loss);
    `log_prob(input)` every class's, `predict(input)` the most likely class."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if not cutoffs:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        increasing = all(a < b for a, b in zip(cutoffs, cutoffs[1:]))
        if not (increasing and cutoffs[0] > 0 and cutoffs[-1] <= n_classes - 1 and all(int(c) == c for c in cutoffs)):
            raise ValueError(_BAD_CUTOFFS)
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device, dtype=dtype)
        self.tail = ModuleList()
        for k, (low, high) in enumerate(zip(self.cutoffs, self.cutoffs[1:])):
            # each cluster's projection is `div_value` times narrower than the one before
            width = int(in_features // (div_value ** (k + 1)))
            self.tail.append(
                Sequential(
                    Linear(in_features, width, bias=False, device=device, dtype=dtype),
                    Linear(width, high - low, bias=False, device=device, dtype=dtype),
                )
            )

    def reset_parameters(self):
        self.head.reset_parameters()
        for projection in self.tail:
            for layer in projection:
                layer.reset_parameters()

    def forward(self, input_, target_):
        batched = _check_shapes(input_, target_)
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        rows = target.shape[0]
        # the head column each row reads (its class in the shortlist, else its cluster's entry) and, for rows in a
        # cluster, the log-probability within it
        head_column = target.clone()
        within = _core.zeros(rows, dtype=input.dtype)
        covered = 0
        bounds = [0] + self.cutoffs
        for k, (low, high) in enumerate(zip(bounds, bounds[1:])):
            picked = ((target >= low) & (target < high)).nonzero().flatten()
            if picked.numel() == 0:
                continue
            covered += picked.numel()
            if k == 0:
                continue
            scores = self.tail[k - 1](input.index_select(0, picked)).log_softmax(1)
            local = target.index_select(0, picked) - low
            within = within.index_add(0, picked, scores.gather(1, local.unsqueeze(1)).squeeze(1))
            head_column = head_column.index_fill(0, picked, self.shortlist_size + k - 1)
        if covered != rows:
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. "
            )
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = within + head_logprob.gather(1, head_column.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, : self.shortlist_size]]
        for k, projection in enumerate(self.tail):
            cluster = self.shortlist_size + k
            parts.append(F.log_softmax(projection(input), dim=1) + head_logprob[:, cluster : cluster + 1])
        return _core.cat(parts, 1)

    def log_prob(self, input):
        """Every class's log-probability, (batch, n_classes)."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each row; the clusters' projections run only for rows whose head prefers a
        cluster."""
        head_output = self.head(input)
        output = head_output.argmax(1)
        outside = output >= self.shortlist_size
        if not bool(outside.any()):
            return output
        if bool(outside.all()):
            return self._full_log_prob(input, head_output).argmax(1)
        output[outside] = self._full_log_prob(input[outside], head_output[outside]).argmax(1)
        return output


def _check_shapes(input, target):
    """torch's checks of a (batch, features) input with (batch,) targets, or a (features,) one with a 0-dim target;
    whether the call is batched."""
    if target.dim() == 1:
        if input.shape[0] != target.shape[0]:
            raise RuntimeError("Input and target should have the same size in the batch dimension.")
        if input.dim() != 2:
            raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size {input.shape}")
        return True
    if target.dim() == 0:
        if input.dim() != 1:
            raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size {input.shape}")
        return False
    raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
