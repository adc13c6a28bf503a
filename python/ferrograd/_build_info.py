"""What torch reports about its build, answered for ferrograd's: LAPACK-style linear algebra is there (its
own routines, `ferrograd.linalg`), OpenMP is not (ferrograd's threads are its own pool), nor torch's FFT; no
C++ ABI is exposed; and `get_file_path` joins paths under the directory holding the package, as torch's does."""

import builtins
import os

__all__ = ["compiled_with_cxx11_abi", "get_file_path", "has_lapack", "has_openmp", "has_spectral"]

has_lapack = True
has_openmp = False
has_spectral = False


def compiled_with_cxx11_abi() -> builtins.bool:
    """Whether torch's C++ library uses the C++11 ABI of libstdc++: ferrograd has no C++ library, so the
    ABI that extensions would build against is the default, new one."""
    return True


def get_file_path(*path_components: str) -> str:
    """`path_components` joined under the directory that holds the package."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), *path_components)
