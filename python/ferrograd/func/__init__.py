"""`ferrograd.func` (torch.func): composable function transforms over the reverse-mode engine.

`grad`, `vjp`, `jacrev` and the rest differentiate with `autograd.grad`; forward mode (`jvp`, `jacfwd`) is the
double-vjp trick; `vmap` runs the function per batch element and stacks the results (no batching rules). See
`_autodiff` and `_vmap` for what that means for speed and for the few differences from torch.
"""

from ._autodiff import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._functional_call import functional_call, stack_module_state
from ._misc import debug_unwrap, functionalize, replace_all_batch_norm_modules_
from ._vmap import vmap

__all__ = [
    "grad",
    "grad_and_value",
    "vmap",
    "replace_all_batch_norm_modules_",
    "functionalize",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "vjp",
    "functional_call",
    "stack_module_state",
    "debug_unwrap",
]
