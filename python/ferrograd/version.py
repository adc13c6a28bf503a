"""`torch.version`: what this build is (`__version__`, no CUDA, HIP, ROCm or XPU runtime, a release build)."""

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]

__version__ = "0.1.0"
git_version = "Unknown"
debug = False
cuda: str | None = None
hip: str | None = None
rocm: str | None = None
xpu: str | None = None
