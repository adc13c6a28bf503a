"""`torch.__future__`: the two switches for how `Module._apply` (`.double()`, `.to(...)`, `.cpu()`) and
`load_state_dict` change a module's parameters. By default a parameter keeps its object and takes the new
values through `.data`; with overwriting, it is replaced by a new `Parameter`; with swapping (which wins), its
object takes the new tensor through `utils.swap_tensors`."""

_overwrite_module_params_on_conversion = False
_swap_module_params_on_conversion = False


def set_overwrite_module_params_on_conversion(value):
    """Whether `Module._apply` replaces each parameter by a new `Parameter` (False: keeps it, sets `.data`)."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = value


def get_overwrite_module_params_on_conversion():
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value):
    """Whether `Module._apply` and `load_state_dict` swap each parameter with its new tensor
    (`utils.swap_tensors`), which keeps the object and changes what it is."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = value


def get_swap_module_params_on_conversion():
    return _swap_module_params_on_conversion
