"""`torch._dynamo.exc`: the errors `compile` raises."""


class Unsupported(RuntimeError):
    """What `fullgraph=True` raises for a function that cannot be captured (`.item()`, an untraced op)."""
