"""`DataParallel` (torch's `nn.parallel.DataParallel`, also `nn.DataParallel`): with no GPU, torch's keeps no
devices and calls the module as it is, which is what this one does. The module sits under `module`, so state-dict
keys get the `module.` prefix scripts expect (and strip when loading into the bare model)."""

from .module import Module


class DataParallel(Module):
    """Calls `module` on the CPU: `device_ids` is empty, as torch's without CUDA."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list[int] = []

    def forward(self, *inputs, **kwargs):
        from ...autograd.profiler import record_function

        with record_function("DataParallel.forward"):
            return self.module(*inputs, **kwargs)
