"""The MLP training step timed by run.py and measured for memory by memory.py, written once for any
framework with PyTorch's API (ferrograd or torch)."""


def train_step(ps, x, target, F, no_grad, lr=0.01, update=True):
    """Forward through (weight, bias) pairs with relu between, cross-entropy, backward, SGD update."""
    for p in ps:
        p.grad = None
    h = x
    for i in range(0, len(ps), 2):
        h = h @ ps[i] + ps[i + 1]
        if i + 2 < len(ps):
            h = h.relu()
    loss = F.cross_entropy(h, target)
    loss.backward()
    if update:
        with no_grad():
            for p in ps:
                p.sub_(p.grad * lr)
    return loss
