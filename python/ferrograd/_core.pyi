"""Type stubs for ``ferrograd._core``, the compiled Rust extension behind ``ferrograd``."""

from __future__ import annotations

import builtins
import os
from collections.abc import Callable, Iterator, Sequence
from types import EllipsisType
from typing import Any, ClassVar, NamedTuple, SupportsIndex, final, overload

import numpy as np
from typing_extensions import Self, TypeAlias, deprecated, disjoint_base

from ferrograd._size import Size

# The module defines `bool` (a dtype) and Tensor defines `bool`/`float` methods and a `dtype`
# property, so annotations spell the builtins as `builtins.X` and the dtype class as `_DType`.
_Bool: TypeAlias = builtins.bool
_Float: TypeAlias = builtins.float
_Number: TypeAlias = builtins.int | builtins.float | builtins.bool
_Operand: TypeAlias = Tensor | _Number
_ShapeArg: TypeAlias = SupportsIndex | Sequence[SupportsIndex]
_Dims: TypeAlias = SupportsIndex | Sequence[SupportsIndex]
_TensorData: TypeAlias = Tensor | np.ndarray[Any, Any] | _Number | Sequence[Any]
_IndexItem: TypeAlias = SupportsIndex | slice | EllipsisType | Tensor | None
_Index: TypeAlias = _IndexItem | tuple[_IndexItem, ...]
_Device: TypeAlias = str | None

__all__ = [
    "Tensor",
    "dtype",
    "Node",
    "RemovableHandle",
    "CompiledGraph",
    "_capture_begin",
    "_capture_finish",
    "_capture_abort",
    "_capture_effect",
    "_capture_unsupported",
    "_is_capturing",
    "_module_attribute_set",
    "CompiledCall",
    "_special",
    "_special_names",
    "_xlogy",
    "_xlog1py",
    "_zeta",
    "_igamma",
    "_igammac",
    "_grad",
    "_panic_for_tests",
    "_allocator_round_trip",
    "_check_new_shape",
    "_set_default_meta",
    "_profiler_start",
    "_profiler_enabled",
    "_profiler_stop",
    "_profiler_now",
    "_profiler_buffered",
    "_profiler_record_range",
    "_backward",
    "_attach_custom",
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "complex64",
    "complex128",
    "complex",
    "polar",
    "view_as_complex",
    "view_as_real",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "bool",
    "tensor",
    "ones",
    "pixel_shuffle",
    "pixel_unshuffle",
    "grid_sampler",
    "grid_sampler_2d",
    "grid_sampler_3d",
    "affine_grid_generator",
    "zeros",
    "full",
    "arange",
    "tril_indices",
    "triu_indices",
    "rand",
    "randn",
    "manual_seed",
    "from_numpy",
    "as_tensor",
    "from_dlpack",
    "is_grad_enabled",
    "get_num_threads",
    "_autocast_cache_is_enabled",
    "_autocast_cache_len",
    "_autocast_clear_cache",
    "_autocast_cpu_get_dtype",
    "_autocast_cpu_is_enabled",
    "_autocast_cpu_set_dtype",
    "_autocast_cpu_set_enabled",
    "_autocast_decrement_nesting",
    "_autocast_increment_nesting",
    "_autocast_set_cache_enabled",
    "set_num_threads",
    "_set_grad_enabled",
    "promote_types",
    "get_default_dtype",
    "set_default_dtype",
    "_set_inference_mode",
    "_empty_pool",
    "_grad_fn_names",
    "_unary_ops",
    "_param_unary_ops",
    "_method_forms",
    "cat",
    "stack",
    "var_mean",
    "std_mean",
    "searchsorted",
    "bucketize",
    "isin",
    "_tensordot",
    "block_diag",
    "_mul_number",
    "_div_number",
    "cdist",
    "pdist",
    "einsum",
    "_randint",
    "_randperm",
    "_multinomial",
    "_sparse_mm",
    "_orthogonal_polynomial",
    "_dropout_mask",
    "_standard_gamma",
    "_poisson",
    "_binomial",
    "_sobol_table_dimensions",
    "_sobol_initial_state",
    "_sobol_scramble",
    "_sobol_draw",
    "_sobol_fast_forward",
    "_check_piece_count",
    "is_inference_mode_enabled",
    "_set_anomaly_enabled",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "where",
    "_nll_loss",
    "_ctc_loss",
    "_without_derivative",
    "LinAlgError",
    "_linalg_inv",
    "_linalg_det",
    "_linalg_slogdet",
    "_logdet",
    "_linalg_solve",
    "_linalg_cholesky",
    "_linalg_eigh",
    "_linalg_eig",
    "_linalg_eigvals",
    "_linalg_svd",
    "_linalg_cross",
    "_linalg_qr",
    "_linalg_lstsq",
    "_linalg_solve_triangular",
    "_linalg_lu_factor_ex",
    "_linalg_lu",
    "_lu_unpack",
    "_linalg_lu_solve",
    "_linalg_inv_ex",
    "_linalg_solve_ex",
    "_linalg_cholesky_ex",
    "_triangular_solve",
    "_geqrf",
    "_mse_loss",
    "_linear",
    "_linspace",
    "_chain_layers",
    "_register_chain_layers",
    "Generator",
    "default_generator",
    "_smooth_l1_loss",
    "_binary_cross_entropy",
    "_binary_cross_entropy_with_logits",
    "_batch_norm",
    "_layer_norm",
    "_embedding_bag",
    "_embedding_bag_with_aux",
    "_embedding",
    "_pad",
    "_convolution",
    "_max_pool2d",
    "_avg_pool2d",
    "_adaptive_avg_pool2d",
    "_convolution3d",
    "_max_pool3d",
    "_avg_pool3d",
    "_adaptive_avg_pool3d",
    "_adaptive_max_pool3d",
    "_fractional_max_pool",
    "_max_unpool",
    "_upsample",
    "_im2col",
    "_col2im",
    "_lstm_cell",
    "_native_dropout_apply",
    "_lstm_layer",
    "_scaled_dot_product_attention",
    "_save",
    "_load",
    "_storage_key",
    "_storage_bytes",
    "_shared_fd",
    "_from_shared_fd",
    "_storage_crc32",
    "_write_storage",
    "_storage_from_bytes",
    "_view_of_storage",
    "_RecordFile",
    "_AtomicFile",
    "OptimRule",
]

@final
class dtype:
    """The element type of a tensor: ``ferrograd.float32``, ``float64``, ``float16``, ``bfloat16``,
    ``int64``, ``int32``, ``int16``, ``int8``, ``uint8``, ``bool``, ``complex64`` or ``complex128``."""

    @property
    def is_floating_point(self) -> _Bool:
        """True for the floating-point dtypes (float16, bfloat16, float32, float64)."""
    @property
    def is_complex(self) -> _Bool:
        """True for complex64 and complex128."""
    @property
    def itemsize(self) -> builtins.int:
        """Size of one element in bytes."""
    @property
    def is_signed(self) -> _Bool:
        """True for the signed dtypes (every dtype except bool and uint8)."""
    @property
    def _legacy_name(self) -> str:
        """torch's legacy tensor-type name: ``FloatTensor``, ``LongTensor``, ..."""
    @property
    def _scalar_type_name(self) -> str:
        """torch's C++ scalar-type name: ``Float``, ``Long``, ..., as its error messages spell it."""
    def __eq__(self, other: object, /) -> _Bool:
        """Dtypes are equal when they name the same element type."""
    def __hash__(self) -> builtins.int:
        """Hash consistent with ``__eq__``."""
    def __reduce__(self) -> tuple[str]:
        """Pickle support: the dtype's name, e.g. ``('float32',)``."""

_DType: TypeAlias = dtype

float32: dtype
"""32-bit floating point; the default dtype (``ferrograd.float``)."""
float64: dtype
"""64-bit floating point (``ferrograd.double``)."""
complex64: dtype
"""Complex of two float32 parts (``ferrograd.cfloat``), stored as (re, im) pairs."""
complex128: dtype
"""Complex of two float64 parts (``ferrograd.cdouble``), stored as (re, im) pairs."""
float16: dtype
"""16-bit IEEE floating point (``ferrograd.half``); computes in float32, stored rounded."""
bfloat16: dtype
"""16-bit brain floating point (float32's range, 8 significant bits); computes in float32."""
int64: dtype
"""64-bit signed integer (``ferrograd.long``)."""
int32: dtype
"""32-bit signed integer (``ferrograd.int``)."""
int16: dtype
"""16-bit signed integer (``ferrograd.short``)."""
int8: dtype
"""8-bit signed integer; arithmetic wraps on overflow."""
uint8: dtype
"""8-bit unsigned integer; arithmetic wraps on overflow."""
bool: dtype
"""Boolean (``ferrograd.bool``)."""

class _MantissaExponent(NamedTuple):
    mantissa: Tensor
    exponent: Tensor

class _ValuesIndices(NamedTuple):
    """Stub-only shape of ``ferrograd.return_types.max`` / ``min``: the result of ``max(dim)`` / ``min(dim)``."""

    values: Tensor
    indices: Tensor

class _MinMax(NamedTuple):
    """Stub-only shape of ``ferrograd.return_types.aminmax``."""

    min: Tensor
    max: Tensor

@final
class Node:
    """A node of the backward graph (a tensor's ``grad_fn``): each name, e.g. ``MulBackward0``, is a subclass.

    Attributes found at run time: ``_saved_<name>`` (what the rule kept for backward, as PyTorch names it) and
    an AccumulateGrad's ``variable`` (its leaf).
    """

    def __new__(cls) -> Node:
        """Not for users: the graph makes its node objects."""
    @property
    def metadata(self) -> dict[Any, Any]:
        """A dict for the user's own notes on this node (the same dict while the object lives)."""
    @property
    def _next_metadata(self) -> tuple[tuple[tuple[builtins.int, ...], str] | None, ...]:
        """``(shape, dtype name)`` of the gradient each of ``next_functions`` receives (None where none)."""
    def __dir__(self) -> list[str]:
        """The attributes, with this node's ``_saved_*`` ones."""
    def name(self) -> str:
        """Name of the backward function, e.g. ``'AddBackward0'``."""
    @property
    def next_functions(self) -> tuple[tuple[Node | None, builtins.int], ...]:
        """One ``(node or None, input_nr)`` pair per input of the op, following the graph towards the leaves."""
    @property
    def _sequence_nr(self) -> builtins.int:
        """Creation order of the node, used to schedule the backward pass."""
    def __eq__(self, other: object, /) -> _Bool:
        """Two Node objects are equal when they wrap the same graph node."""
    def __hash__(self) -> builtins.int:
        """Hash of the wrapped graph node (consistent with ``__eq__``)."""
    def register_hook(
        self,
        hook: Callable[[tuple[Tensor | None, ...], tuple[Tensor | None, ...]], Sequence[Tensor | None] | Tensor | None],
    ) -> RemovableHandle:
        """Runs ``hook(grad_inputs, grad_outputs)`` after this node; a non-None return replaces ``grad_inputs``."""
    def register_prehook(
        self,
        hook: Callable[[tuple[Tensor | None, ...]], Sequence[Tensor | None] | Tensor | None],
    ) -> RemovableHandle:
        """Runs ``hook(grad_outputs)`` before this node; a non-None return replaces ``grad_outputs``."""

@final
class CompiledGraph:
    """A captured graph (`ferrograd.compile`): `graph(inputs)` runs it over new inputs of its guards."""

    def __call__(self, inputs: list[Tensor]) -> list[Tensor]: ...
    def describe(self) -> str: ...
    @property
    def ops(self) -> list[str]: ...
    @property
    def num_nodes(self) -> int: ...
    @property
    def fused_groups(self) -> int: ...
    @property
    def is_current(self) -> _Bool: ...

def _capture_begin(inputs: list[Tensor]) -> None: ...
def _capture_finish(outputs: list[Tensor]) -> CompiledGraph | str: ...
def _capture_abort() -> None: ...
def _capture_effect(effect: str, targets: list[Tensor], owner: object, method: str) -> None: ...
def _capture_unsupported(what: str) -> None: ...
def _is_capturing() -> _Bool: ...
def _module_attribute_set() -> None: ...

@disjoint_base
class CompiledCall:
    """The per-call half of `ferrograd.compile`'s cache (`_dynamo.capture.CompiledFunction` subclasses it): a
    call of tensors whose graph returns one tensor runs in the core; any other goes to `_call_slow`."""

    def __new__(cls, *args: object, module: object = None, **kwargs: object) -> Self: ...
    def __call__(self, *args: object, **kwargs: object) -> Any: ...
    @property
    def cache(self) -> dict[Any, Any]: ...
    @property
    def module(self) -> Any: ...
    def _guards(self, tensors: list[Tensor]) -> tuple[bytes, list[Tensor]]: ...
    def _watch(self, bindings: list[tuple[object, str | None]]) -> None: ...
    @property
    def _watching(self) -> _Bool: ...
    @property
    def _watched_modules(self) -> list[Any]: ...

@final
class RemovableHandle:
    """Handle returned by ``register_hook`` / ``register_prehook``; ``remove()`` unregisters the hook."""

    def remove(self) -> None:
        """Unregisters the hook (a no-op if it was already removed)."""
    @property
    def id(self) -> builtins.int:
        """Identifier of the hook within its tensor or node."""
    def __enter__(self) -> Self:
        """Returns the handle; the hook is removed on exit from the ``with`` block."""
    def __exit__(self, a: object, b: object, c: object, /) -> None:
        """Removes the hook."""

@disjoint_base
class Tensor:
    """A multi-dimensional array with autograd support, backed by the Rust core."""

    @overload
    def __new__(cls, data: _TensorData, /) -> Self:
        """``Tensor(data)``: a float32 tensor copied from ``data``; ``Tensor(*sizes)``: float32 zeros."""
    @overload
    def __new__(cls, *sizes: SupportsIndex) -> Self: ...

    # ---- printing and Python protocols ----
    def __format__(self, spec: str) -> str:
        """Formats a 0-dim tensor like its Python number; other tensors format as ``repr``."""
    def __len__(self) -> builtins.int:
        """Size of the first dimension; TypeError for a 0-dim tensor."""
    def __iter__(self) -> Iterator[Tensor]:
        """Iterates over the first dimension, yielding views; TypeError for a 0-dim tensor."""
    def __hash__(self) -> builtins.int:
        """Identity hash (tensors hash by object, as in PyTorch)."""
    def __bool__(self) -> _Bool:
        """Truth value of a one-element tensor; RuntimeError for more elements."""
    def __complex__(self) -> builtins.complex:
        """The value of a one-element tensor as a Python complex."""
    def __float__(self) -> _Float:
        """The value of a one-element tensor as a Python float."""
    def __int__(self) -> builtins.int:
        """The value of a one-element tensor as a Python int (floats truncate)."""
    def __index__(self) -> builtins.int:
        """The value of a one-element integer or bool tensor, for use as an index."""
    def __getitem__(self, key: _Index, /) -> Tensor:
        """Basic indexing (ints, slices, ``None``, ``...``) returning a view."""
    def __setitem__(self, key: _Index, value: _TensorData, /) -> None:
        """Writes ``value`` (a tensor, number or nested sequence) into the indexed view in place."""
    def __array__(self, dtype: Any = None, copy: _Bool | None = None) -> np.ndarray[Any, Any]:
        """NumPy array protocol: a view of the data (cast to ``dtype`` / copied when ``copy=True``)."""
    def __deepcopy__(self, memo: dict[builtins.int, Any]) -> Self:
        """``copy.deepcopy``: a leaf with copied values, ``requires_grad`` and ``.grad`` (installed by
        ``ferrograd._utils``; non-leaves raise RuntimeError as in PyTorch)."""

    # ---- data ----
    @property
    def shape(self) -> Size:
        """The tensor's sizes as a ``ferrograd.Size``."""
    @overload
    def size(self, dim: None = None) -> Size:
        """The tensor's sizes as a ``ferrograd.Size``, or the size of dimension ``dim``."""
    @overload
    def size(self, dim: builtins.int) -> builtins.int: ...
    @overload
    def stride(self, dim: None = None) -> tuple[builtins.int, ...]:
        """The strides (in elements) of every dimension, or of dimension ``dim``."""
    @overload
    def stride(self, dim: builtins.int) -> builtins.int: ...
    def storage_offset(self) -> builtins.int:
        """Offset (in elements) of the first element within the underlying storage."""
    def dim(self) -> builtins.int:
        """Number of dimensions."""
    def ndimension(self) -> builtins.int:
        """Alias for ``dim()``."""
    @property
    def ndim(self) -> builtins.int:
        """Number of dimensions."""
    def numel(self) -> builtins.int:
        """Total number of elements."""
    def nelement(self) -> builtins.int:
        """Alias for ``numel()``."""
    def element_size(self) -> builtins.int:
        """Size of one element in bytes."""
    @property
    def dtype(self) -> _DType:
        """The tensor's element type."""
    @property
    def device(self) -> Any:
        """The tensor's device, a ``ferrograd.device``: the CPU, or 'meta' (installed by ``ferrograd._device``)."""
    @property
    def is_meta(self) -> _Bool:
        """Whether this is a meta tensor: a shape, dtype and strides with no data (``device='meta'``)."""
    # ---- installed by ferrograd._device, ferrograd._new and ferrograd._type on import ----
    @property
    def is_cuda(self) -> _Bool: ...
    @property
    def is_cpu(self) -> _Bool: ...
    def cpu(self, memory_format: Any = None) -> Tensor: ...
    # ---- installed by ferrograd._layout (the COO tensor itself is ferrograd.sparse's) ----
    @property
    def layout(self) -> Any:
        """``ferrograd.strided``: every dense tensor's layout."""
    @property
    def is_sparse(self) -> _Bool: ...
    def to_sparse(self, sparse_dim: builtins.int | None = None) -> Any:
        """A sparse COO tensor (``ferrograd.sparse.SparseTensor``) of the nonzero entries."""
    def to_sparse_coo(self) -> Any: ...
    def to_dense(self, dtype: _DType | None = None, *, masked_grad: Any = None) -> Tensor: ...
    def is_coalesced(self) -> _Bool:
        """Raises RuntimeError: only sparse tensors are coalesced or not."""
    def cuda(self, device: Any = None, non_blocking: _Bool = False, memory_format: Any = None) -> Tensor:
        """Raises ``AssertionError: Torch not compiled with CUDA enabled``, as torch's CPU build does."""
    def get_device(self) -> builtins.int: ...
    # ---- installed by ferrograd._splitting and ferrograd._tensor_vocab ----
    def tensor_split(self, indices_or_sections: Any, dim: builtins.int = 0) -> tuple[Tensor, ...]: ...
    def hsplit(self, indices_or_sections: Any) -> tuple[Tensor, ...]: ...
    def vsplit(self, indices_or_sections: Any) -> tuple[Tensor, ...]: ...
    def dsplit(self, indices_or_sections: Any) -> tuple[Tensor, ...]: ...
    def is_signed(self) -> _Bool: ...
    def is_nonzero(self) -> _Bool: ...
    def is_same_size(self, other: Tensor) -> _Bool: ...
    def ravel(self) -> Tensor: ...
    def reshape_as(self, other: Tensor) -> Tensor: ...
    def select(self, dim: builtins.int, index: builtins.int | Tensor) -> Tensor: ...
    def msort(self) -> Tensor: ...
    def rot90(self, k: builtins.int = 1, dims: Sequence[builtins.int] = (0, 1)) -> Tensor: ...
    def split_with_sizes(self, split_sizes: Sequence[builtins.int], dim: builtins.int = 0) -> tuple[Tensor, ...]: ...
    def narrow_copy(self, dim: builtins.int, start: builtins.int, length: builtins.int) -> Tensor: ...
    def unsafe_chunk(self, chunks: builtins.int, dim: builtins.int = 0) -> tuple[Tensor, ...]: ...
    def unsafe_split(self, split_size: builtins.int, dim: builtins.int = 0) -> tuple[Tensor, ...]: ...
    def unsafe_split_with_sizes(
        self, split_sizes: Sequence[builtins.int], dim: builtins.int = 0
    ) -> tuple[Tensor, ...]: ...
    def prelu(self, weight: Tensor) -> Tensor: ...
    def pinverse(self, rcond: _Float = 1e-15) -> Tensor: ...
    def histogram(
        self, bins: Any, *, range: Any = None, weight: Tensor | None = None, density: _Bool = False
    ) -> tuple[Tensor, Tensor]: ...
    def orgqr(self, input2: Tensor) -> Tensor: ...
    def nonzero_static(self, *, size: builtins.int, fill_value: builtins.int = -1) -> Tensor: ...
    # ---- installed by ferrograd._tensor_memory and ferrograd._spectral ----
    def dim_order(self, *, ambiguity_check: _Bool | list[Any] = False) -> tuple[builtins.int, ...]: ...
    def is_set_to(self, tensor: Tensor) -> _Bool: ...
    def new_empty_strided(
        self,
        size: Sequence[builtins.int],
        stride: Sequence[builtins.int],
        *,
        dtype: _DType | None = None,
        device: Any = None,
        requires_grad: _Bool = False,
        layout: Any = None,
        pin_memory: _Bool = False,
    ) -> Tensor: ...
    def module_load(self, other: Tensor, assign: _Bool = False) -> Tensor: ...
    def is_pinned(self, device: Any = None) -> _Bool: ...
    def pin_memory(self, device: Any = None) -> Tensor:
        """Raises RuntimeError: there is no accelerator to pin memory for."""
    def is_shared(self) -> _Bool:
        """Whether the storage lives in shared memory (``share_memory_``, or received from another process)."""
    def share_memory_(self) -> Self:
        """Moves the storage to shared memory in place (every view sees it); a no-op once shared."""
    def resize_(
        self, *sizes: _ShapeArg, size: Sequence[SupportsIndex] | None = None, memory_format: Any = None
    ) -> Self:
        """Resizes in place to ``sizes``: the storage grows (old elements first, zeros after) when too short."""
    def resize_as_(self, the_template: Tensor, memory_format: Any = None) -> Self:  # function form
        """Resizes in place to ``the_template``'s size (``resize_``)."""
    def is_distributed(self) -> _Bool: ...
    def sparse_dim(self) -> builtins.int: ...
    def dense_dim(self) -> builtins.int: ...
    def indices(self, *args: Any, **kwargs: Any) -> Tensor:
        """Raises RuntimeError: only a sparse tensor has indices."""
    def values(self, *args: Any, **kwargs: Any) -> Tensor:
        """Raises RuntimeError: only a sparse tensor has values."""
    def coalesce(self, *args: Any, **kwargs: Any) -> Tensor:
        """Raises RuntimeError: only a sparse tensor is coalesced."""
    def apply_(self, callable: Callable[[Any], Any]) -> Self: ...
    def map_(self, tensor: Tensor, callable: Callable[[Any, Any], Any]) -> Self: ...
    def map2_(self, x: Tensor, y: Tensor, callable: Callable[[Any, Any, Any], Any]) -> Self: ...
    def stft(
        self,
        n_fft: builtins.int,
        hop_length: builtins.int | None = None,
        win_length: builtins.int | None = None,
        window: Tensor | None = None,
        center: _Bool = True,
        pad_mode: str = "reflect",
        normalized: _Bool = False,
        onesided: _Bool | None = None,
        return_complex: _Bool | None = None,
        align_to_window: _Bool | None = None,
    ) -> Tensor: ...
    def istft(
        self,
        n_fft: builtins.int,
        hop_length: builtins.int | None = None,
        win_length: builtins.int | None = None,
        window: Tensor | None = None,
        center: _Bool = True,
        normalized: _Bool = False,
        onesided: _Bool | None = None,
        length: builtins.int | None = None,
        return_complex: _Bool = False,
    ) -> Tensor: ...
    # ---- installed by ferrograd._tensor_misc and ferrograd._random_fills ----
    def sum_to_size(self, *size: Any) -> Tensor: ...
    @property
    def itemsize(self) -> builtins.int: ...
    @property
    def nbytes(self) -> builtins.int: ...
    @property
    def H(self) -> Tensor: ...
    @property
    def mH(self) -> Tensor: ...
    def adjoint(self) -> Tensor: ...
    def new(self, *args: Any, **kwargs: Any) -> Tensor: ...
    def fill_diagonal_(self, fill_value: _Number, wrap: _Bool = False) -> Self: ...
    def put(self, index: Tensor, source: Tensor, accumulate: _Bool = False) -> Tensor: ...
    def index_reduce(
        self, dim: builtins.int, index: Tensor, source: Tensor, reduce: str, *, include_self: _Bool = True
    ) -> Tensor: ...
    def isreal(self) -> Tensor: ...
    def angle(self) -> Tensor: ...
    def hardshrink(self, lambd: _Float = 0.5) -> Tensor: ...
    def random_(self, *bounds: builtins.int | None, generator: Generator | None = None, **keywords: Any) -> Self: ...
    def log_normal_(self, mean: _Float = 1, std: _Float = 2, *, generator: Generator | None = None) -> Self: ...
    def cauchy_(self, median: _Float = 0, sigma: _Float = 1, *, generator: Generator | None = None) -> Self: ...
    def geometric_(self, p: _Float, *, generator: Generator | None = None) -> Self: ...
    def new_ones(
        self,
        *size: Any,
        dtype: _DType | None = None,
        device: Any = None,
        requires_grad: _Bool = False,
        layout: Any = None,
        pin_memory: _Bool = False,
    ) -> Tensor: ...
    def new_zeros(
        self,
        *size: Any,
        dtype: _DType | None = None,
        device: Any = None,
        requires_grad: _Bool = False,
        layout: Any = None,
        pin_memory: _Bool = False,
    ) -> Tensor: ...
    def new_empty(
        self,
        *args: Any,
        size: Any = None,
        dtype: _DType | None = None,
        device: Any = None,
        requires_grad: _Bool = False,
        layout: Any = None,
        pin_memory: _Bool = False,
    ) -> Tensor: ...
    def new_full(
        self,
        size: Any,
        fill_value: Any,
        *,
        dtype: _DType | None = None,
        device: Any = None,
        requires_grad: _Bool = False,
        layout: Any = None,
        pin_memory: _Bool = False,
    ) -> Tensor: ...
    def new_tensor(
        self,
        data: Any,
        *,
        dtype: _DType | None = None,
        device: Any = None,
        requires_grad: _Bool = False,
        layout: Any = None,
        pin_memory: _Bool = False,
    ) -> Tensor: ...
    def type(self, dtype: Any = None, non_blocking: _Bool = False, **kwargs: Any) -> Any:
        """The legacy name ('torch.FloatTensor') with no dtype, else the tensor cast (by ``ferrograd._type``)."""
    def is_complex(self) -> _Bool:  # function form
        """True for a complex64 or complex128 tensor."""
    def is_conj(self) -> _Bool:  # function form
        """Always False: ``conj()`` computes the conjugate (torch marks a lazy view)."""
    def resolve_conj(self) -> Tensor:  # function form
        """The tensor itself: no conjugation is ever pending here."""
    @property
    def real(self) -> Tensor:
        """The real parts of a complex tensor, a view that writes through; a real tensor itself."""
    @property
    def imag(self) -> Tensor:
        """The imaginary parts of a complex tensor, a view that writes through."""
    def conj(self) -> Tensor:  # function form
        """The complex conjugate (computed; a real tensor is its own)."""
    def conj_physical(self) -> Tensor:  # function form
        """The conjugate as a new tensor (a copy for a real tensor too)."""
    def _angle(self) -> Tensor: ...
    def _fft_c2c(self, dims: Sequence[builtins.int], forward: _Bool, scale: _Float) -> Tensor: ...
    def _fft_r2c(self, dims: Sequence[builtins.int], scale: _Float, onesided: _Bool) -> Tensor: ...
    def _fft_c2r(self, dims: Sequence[builtins.int], scale: _Float, last_size: builtins.int) -> Tensor: ...
    def is_floating_point(self) -> _Bool:
        """True if the dtype is a floating-point type."""
    def is_contiguous(self, memory_format: Any = None) -> _Bool:
        """True if the elements are laid out contiguously in row-major order."""
    @property
    def output_nr(self) -> builtins.int:
        """Which output of its ``grad_fn`` this tensor is (0 for a leaf or a single-output op)."""
    @property
    def _version(self) -> builtins.int:
        """Counter bumped by in-place writes; autograd uses it to detect modified saved tensors."""
    def tolist(self) -> Any:
        """The data as (nested) Python lists of numbers; a plain number for a 0-dim tensor."""
    def item(self) -> _Number:
        """The value of a one-element tensor as a Python number."""
    def numpy(self, *, force: _Bool = False) -> np.ndarray[Any, Any]:
        """A NumPy array sharing the tensor's memory; ``force=True`` returns a copy even if grad is required."""

    # ---- DLPack ----
    def __dlpack__(
        self,
        stream: Any = None,
        *,
        max_version: tuple[builtins.int, builtins.int] | None = None,
        dl_device: tuple[builtins.int, builtins.int] | None = None,
        copy: _Bool | None = None,
    ) -> Any:
        """A DLPack capsule over the tensor's memory ("dltensor_versioned" when ``max_version`` >= (1, 0))."""
    def __dlpack_device__(self) -> tuple[builtins.int, builtins.int]:
        """``(1, 0)``: DLPack's CPU device."""

    # ---- autograd ----
    @property
    def requires_grad(self) -> _Bool:
        """Whether autograd records operations on this tensor; settable on leaf tensors."""
    @requires_grad.setter
    def requires_grad(self, value: _Bool) -> None: ...
    def requires_grad_(self, requires_grad: _Bool = True) -> Self:
        """Sets ``requires_grad`` in place and returns this tensor."""
    @property
    def is_leaf(self) -> _Bool:
        """True for tensors not produced by a recorded operation (user-created or ``requires_grad=False``)."""
    def _is_view(self) -> _Bool:
        """True for a tensor a view op made from another tensor's storage."""
    def _use_count(self) -> int:
        """How many holders share this tensor's record (1: only this object)."""
    def _swap_tensor_impl(self, other: Tensor) -> None:
        """Exchanges what this tensor and ``other`` are, each keeping its Python object (``utils.swap_tensors``)."""
    def _own_weakrefs(self) -> list[Any]:
        """The weak references ferrograd itself holds to this tensor (its leaf's registry)."""
    @property
    def _base(self) -> Tensor | None:
        """The tensor a view reads (the root of its chain of views); None for a tensor that is no view."""
    def _copy_views(self, views: list[Tensor], grad_fn: str, alias: _Bool) -> list[Tensor]:
        """``views`` (the results of one view op on this tensor) as fresh contiguous tensors (with ``alias``, the
        views' storage untracked) whose node runs the view's rule under torch's name (``grad_fn``): the ``*_copy``
        functions and the ``unsafe_`` splits."""
    @property
    def grad_fn(self) -> Node | None:
        """The backward-graph node that produced this tensor, or None for leaves."""
    @property
    def grad(self) -> Tensor | None:
        """Gradient accumulated by ``backward()`` for a leaf tensor; None until computed. Settable."""
    @grad.setter
    def grad(self, value: Tensor | None) -> None: ...
    @property
    def data(self) -> Tensor:
        """A detached tensor sharing this tensor's data; assigning replaces the data, untracked by autograd."""
    @data.setter
    def data(self, value: Tensor) -> None: ...
    @property
    @deprecated(".creator is deprecated, use .grad_fn instead")
    def creator(self) -> Node | None:
        """Deprecated alias of ``grad_fn`` from the old Variable API."""
    def detach(self) -> Tensor:  # function form
        """A new tensor sharing the data but detached from the graph (``requires_grad=False``)."""
    def detach_(self) -> Self:
        """Detaches this tensor in place: it becomes a leaf that does not require grad."""
    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Calls ``hook(grad)`` when this tensor's gradient is computed; a returned Tensor replaces the gradient."""
    def data_ptr(self) -> int:
        """The address of the first element (0 on the meta device)."""
    def const_data_ptr(self) -> int:
        """The address of the first element (0 on the meta device)."""
    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        """Calls ``hook(self)`` each time this leaf's ``.grad`` has taken a new sum during backward."""
    def retain_grad(self) -> None:
        """Makes ``backward()`` populate ``.grad`` of this non-leaf tensor (a no-op on leaves)."""
    def is_inference(self) -> _Bool:
        """True if this tensor was made under ``inference_mode``."""
    @property
    def retains_grad(self) -> _Bool:
        """True if ``retain_grad()`` was called on this non-leaf tensor."""
    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: _Bool | None = None,
        create_graph: _Bool = False,
        inputs: Tensor | Sequence[Tensor] | None = None,
    ) -> None:
        """Computes gradients of this tensor w.r.t. graph leaves (or only ``inputs``) and accumulates them into
        ``.grad``.

        ``gradient`` is required for non-scalar tensors; ``retain_graph`` defaults to ``create_graph``.
        """

    # ---- in place (the tensor keeps its identity, bumps ``_version`` and takes the op's history) ----
    def add_(self, other: _Operand, deprecated_other: _Operand | None = None, *, alpha: _Number | None = None) -> Self:
        """In-place ``self += alpha * other``; two positionals are torch's deprecated ``(alpha, other)``."""
    def sub_(self, other: _Operand, deprecated_other: _Operand | None = None, *, alpha: _Number | None = None) -> Self:
        """In-place ``self -= alpha * other``; two positionals are torch's deprecated ``(alpha, other)``."""
    def mul_(self, other: _Operand) -> Self:
        """In-place ``self *= other``; returns this tensor."""
    def div_(self, other: _Operand) -> Self:
        """In-place ``self /= other``; returns this tensor."""
    def pow_(self, exponent: _Operand) -> Self:
        """In-place ``self **= exponent``; returns this tensor."""
    def eq_(self, other: _Operand) -> Self:
        """In-place ``eq()`` in this tensor's dtype; returns this tensor."""
    def ne_(self, other: _Operand) -> Self:
        """In-place ``ne()`` in this tensor's dtype; returns this tensor."""
    def lt_(self, other: _Operand) -> Self:
        """In-place ``lt()`` in this tensor's dtype; returns this tensor."""
    def le_(self, other: _Operand) -> Self:
        """In-place ``le()`` in this tensor's dtype; returns this tensor."""
    def gt_(self, other: _Operand) -> Self:
        """In-place ``gt()`` in this tensor's dtype; returns this tensor."""
    def ge_(self, other: _Operand) -> Self:
        """In-place ``ge()`` in this tensor's dtype; returns this tensor."""
    def neg_(self) -> Self:
        """In-place negation; returns this tensor."""
    def zero_(self) -> Self:
        """Fills this tensor with zeros in place; returns this tensor."""
    def fill_(self, value: _Number | Tensor) -> Self:
        """Fills this tensor with ``value`` (a number or a 0-dim tensor, whose gradient is then the sum of this
        tensor's) in place; returns this tensor."""
    def _fill(self, value: _Number | Tensor) -> Tensor:
        """``torch.fill(self, value)``: a new tensor of this one's shape and dtype holding ``value`` (a number or
        a 0-dim tensor)."""
    def copy_(self, src: Tensor) -> Self:
        """Copies ``src`` (broadcast and cast to this tensor's shape and dtype) into this tensor in place."""
    def __iadd__(self, other: _Operand, /) -> Self:
        """In-place ``self += other``."""
    def __isub__(self, other: _Operand, /) -> Self:
        """In-place ``self -= other``."""
    def __imul__(self, other: _Operand, /) -> Self:
        """In-place ``self *= other``."""
    def __itruediv__(self, other: _Operand, /) -> Self:
        """In-place ``self /= other``."""
    def __iand__(self, other: _Operand, /) -> Self:
        """In-place ``self &= other`` (the promoted dtype must cast to this tensor's)."""
    def __ior__(self, other: _Operand, /) -> Self:
        """In-place ``self |= other``."""
    def __ixor__(self, other: _Operand, /) -> Self:
        """In-place ``self ^= other``."""
    def __ilshift__(self, other: _Operand, /) -> Self:
        """In-place ``self <<= other``."""
    def __irshift__(self, other: _Operand, /) -> Self:
        """In-place ``self >>= other``."""
    def bitwise_and_(self, other: _Operand) -> Self:
        """In-place ``bitwise_and``; returns this tensor."""
    def bitwise_or_(self, other: _Operand) -> Self:
        """In-place ``bitwise_or``; returns this tensor."""
    def bitwise_xor_(self, other: _Operand) -> Self:
        """In-place ``bitwise_xor``; returns this tensor."""
    def bitwise_left_shift_(self, other: _Operand) -> Self:
        """In-place ``bitwise_left_shift``; returns this tensor."""
    def bitwise_right_shift_(self, other: _Operand) -> Self:
        """In-place ``bitwise_right_shift``; returns this tensor."""
    def bitwise_not_(self) -> Self:
        """In-place ``bitwise_not``; returns this tensor."""
    def logical_and_(self, other: Tensor) -> Self:
        """In-place ``logical_and`` (the truth values, in this tensor's dtype); returns this tensor."""
    def logical_or_(self, other: Tensor) -> Self:
        """In-place ``logical_or``; returns this tensor."""
    def logical_xor_(self, other: Tensor) -> Self:
        """In-place ``logical_xor``; returns this tensor."""
    def logical_not_(self) -> Self:
        """In-place ``logical_not``; returns this tensor."""

    # ---- arithmetic ----
    def __add__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``self + other`` with broadcasting and type promotion."""
    def __radd__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``other + self``."""
    def __sub__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``self - other``."""
    def __rsub__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``other - self``."""
    def __mul__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``self * other``."""
    def __rmul__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``other * self``."""
    def __truediv__(self, other: _Operand, /) -> Tensor:
        """Elementwise true division ``self / other``."""
    def __rtruediv__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``other / self`` (computed as ``self.reciprocal() * other``)."""
    def __floordiv__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``self // other``."""
    def __rfloordiv__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``other // self``."""
    def __and__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``self & other`` on bool and integer tensors (see ``bitwise_and``)."""
    def __rand__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``other & self``."""
    def __or__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``self | other`` on bool and integer tensors."""
    def __ror__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``other | self``."""
    def __xor__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``self ^ other`` on bool and integer tensors."""
    def __rxor__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``other ^ self``."""
    def __lshift__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``self << other`` on integer tensors (see ``bitwise_left_shift``)."""
    def __rlshift__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``other << self``."""
    def __rshift__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``self >> other`` on integer tensors (see ``bitwise_right_shift``)."""
    def __rrshift__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``other >> self``."""
    def __invert__(self) -> Tensor:
        """``~self``: ``bitwise_not`` (a TypeError for float tensors, as torch)."""
    def __matmul__(self, other: Tensor, /) -> Tensor:
        """Matrix product ``self @ other`` (see ``matmul``)."""
    def __rmatmul__(self, other: Tensor, /) -> Tensor:
        """Matrix product ``other @ self``."""
    def __pow__(self, other: _Operand, mod: None = None, /) -> Tensor:
        """Elementwise power ``self ** other``."""
    def __rpow__(self, other: _Operand, mod: None = None, /) -> Tensor:
        """Elementwise power ``other ** self``."""
    def __mod__(self, other: _Operand, /) -> Tensor:
        """Elementwise Python-style remainder ``self % other`` (see ``remainder``)."""
    def __rmod__(self, other: _Operand, /) -> Tensor:
        """Elementwise Python-style remainder ``other % self``."""
    def __abs__(self) -> Tensor: ...
    def __neg__(self) -> Tensor:
        """Elementwise negation ``-self``."""
    def __pos__(self) -> Self:
        """``+self``: returns this tensor unchanged."""
    def add(self, other: _Operand, *, alpha: _Number | None = None) -> Tensor:  # function form
        """Elementwise ``self + alpha * other`` (tensor or number), broadcasting."""
    def sub(self, other: _Operand, *, alpha: _Number | None = None) -> Tensor:  # function form
        """Elementwise ``self - alpha * other`` (tensor or number), broadcasting."""
    def mul(self, other: _Operand) -> Tensor:  # function form
        """Elementwise product with ``other`` (tensor or number), broadcasting."""
    def div(self, other: _Operand, *, rounding_mode: str | None = None) -> Tensor:  # function form
        """Elementwise division by ``other``: true division, or rounded ('trunc', 'floor'), broadcasting."""
    def floor_divide(self, other: _Operand) -> Tensor:  # function form
        """Elementwise ``self // other`` (Python's floor division)."""
    def pow(self, other: _Operand) -> Tensor:  # function form
        """Elementwise power with exponent ``other`` (tensor or number)."""

    # ---- comparisons (bool tensors) ----
    def eq(self, other: _Operand) -> Tensor:  # function form
        """Elementwise ``self == other`` as a bool tensor."""
    def __eq__(self, other: _Operand, /) -> Tensor:  # type: ignore[override]
        """Elementwise ``self == other`` as a bool tensor."""
    def ne(self, other: _Operand) -> Tensor:  # function form
        """Elementwise ``self != other`` as a bool tensor."""
    def __ne__(self, other: _Operand, /) -> Tensor:  # type: ignore[override]
        """Elementwise ``self != other`` as a bool tensor."""
    def lt(self, other: _Operand) -> Tensor:  # function form
        """Elementwise ``self < other`` as a bool tensor."""
    def __lt__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``self < other`` as a bool tensor."""
    def le(self, other: _Operand) -> Tensor:  # function form
        """Elementwise ``self <= other`` as a bool tensor."""
    def __le__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``self <= other`` as a bool tensor."""
    def gt(self, other: _Operand) -> Tensor:  # function form
        """Elementwise ``self > other`` as a bool tensor."""
    def __gt__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``self > other`` as a bool tensor."""
    def ge(self, other: _Operand) -> Tensor:  # function form
        """Elementwise ``self >= other`` as a bool tensor."""
    def __ge__(self, other: _Operand, /) -> Tensor:
        """Elementwise ``self >= other`` as a bool tensor."""

    # ---- unary ----
    def neg(self) -> Tensor:  # function form
        """Elementwise negation."""
    def square(self) -> Tensor:  # function form
        """Elementwise ``self ** 2`` (keeps integer dtypes; grad_fn ``PowBackward0``)."""
    def logit(self, eps: _Float | None = None) -> Tensor:  # function form
        """Elementwise ``log(p / (1 - p))``, with the input clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    def _rrelu(
        self, lower: _Float, upper: _Float, training: builtins.bool, generator: Generator | None = None
    ) -> Tensor: ...
    def _rrelu_(
        self, lower: _Float, upper: _Float, training: builtins.bool, generator: Generator | None = None
    ) -> Self: ...
    def round(self, *, decimals: builtins.int = 0) -> Tensor:  # function form
        """Elementwise rounding half to even, to ``decimals`` decimal places (zero gradient)."""
    # ---- elementwise unary ops: generated by tools/gen_api.py from the core's for_each_unary_op! ----
    def abs(self) -> Tensor:
        """Elementwise absolute value."""
    def abs_(self) -> Self:
        """In-place ``abs()``; returns this tensor."""
    def absolute(self) -> Tensor:
        """Alias for ``abs()``."""
    def absolute_(self) -> Self:
        """In-place ``absolute()``; returns this tensor."""
    def sign(self) -> Tensor:
        """Elementwise sign: -1, 0 or 1."""
    def sign_(self) -> Self:
        """In-place ``sign()``; returns this tensor."""
    def sgn(self) -> Tensor:
        """Elementwise sign: -1, 0 or 1 (``sign()`` for real tensors)."""
    def sgn_(self) -> Self:
        """In-place ``sgn()``; returns this tensor."""
    def sqrt(self) -> Tensor:
        """Elementwise square root (integer inputs give float32)."""
    def sqrt_(self) -> Self:
        """In-place ``sqrt()``; returns this tensor."""
    def rsqrt(self) -> Tensor:
        """Elementwise reciprocal of the square root."""
    def rsqrt_(self) -> Self:
        """In-place ``rsqrt()``; returns this tensor."""
    def reciprocal(self) -> Tensor:
        """Elementwise ``1 / self``."""
    def reciprocal_(self) -> Self:
        """In-place ``reciprocal()``; returns this tensor."""
    def exp(self) -> Tensor:
        """Elementwise exponential."""
    def exp_(self) -> Self:
        """In-place ``exp()``; returns this tensor."""
    def exp2(self) -> Tensor:
        """Elementwise ``2 ** self``."""
    def exp2_(self) -> Self:
        """In-place ``exp2()``; returns this tensor."""
    def expm1(self) -> Tensor:
        """Elementwise ``exp(self) - 1``, accurate near 0."""
    def expm1_(self) -> Self:
        """In-place ``expm1()``; returns this tensor."""
    def log(self) -> Tensor:
        """Elementwise natural logarithm."""
    def log_(self) -> Self:
        """In-place ``log()``; returns this tensor."""
    def log2(self) -> Tensor:
        """Elementwise base-2 logarithm."""
    def log2_(self) -> Self:
        """In-place ``log2()``; returns this tensor."""
    def log10(self) -> Tensor:
        """Elementwise base-10 logarithm."""
    def log10_(self) -> Self:
        """In-place ``log10()``; returns this tensor."""
    def log1p(self) -> Tensor:
        """Elementwise ``log(1 + self)``, accurate near 0."""
    def log1p_(self) -> Self:
        """In-place ``log1p()``; returns this tensor."""
    def sin(self) -> Tensor:
        """Elementwise sine."""
    def sin_(self) -> Self:
        """In-place ``sin()``; returns this tensor."""
    def cos(self) -> Tensor:
        """Elementwise cosine."""
    def cos_(self) -> Self:
        """In-place ``cos()``; returns this tensor."""
    def tan(self) -> Tensor:
        """Elementwise tangent."""
    def tan_(self) -> Self:
        """In-place ``tan()``; returns this tensor."""
    def asin(self) -> Tensor:
        """Elementwise arcsine."""
    def asin_(self) -> Self:
        """In-place ``asin()``; returns this tensor."""
    def arcsin(self) -> Tensor:
        """Alias for ``asin()``."""
    def arcsin_(self) -> Self:
        """In-place ``arcsin()``; returns this tensor."""
    def acos(self) -> Tensor:
        """Elementwise arccosine."""
    def acos_(self) -> Self:
        """In-place ``acos()``; returns this tensor."""
    def arccos(self) -> Tensor:
        """Alias for ``acos()``."""
    def arccos_(self) -> Self:
        """In-place ``arccos()``; returns this tensor."""
    def atan(self) -> Tensor:
        """Elementwise arctangent."""
    def atan_(self) -> Self:
        """In-place ``atan()``; returns this tensor."""
    def arctan(self) -> Tensor:
        """Alias for ``atan()``."""
    def arctan_(self) -> Self:
        """In-place ``arctan()``; returns this tensor."""
    def asinh(self) -> Tensor:
        """Elementwise inverse hyperbolic sine."""
    def asinh_(self) -> Self:
        """In-place ``asinh()``; returns this tensor."""
    def arcsinh(self) -> Tensor:
        """Alias for ``asinh()``."""
    def arcsinh_(self) -> Self:
        """In-place ``arcsinh()``; returns this tensor."""
    def acosh(self) -> Tensor:
        """Elementwise inverse hyperbolic cosine."""
    def acosh_(self) -> Self:
        """In-place ``acosh()``; returns this tensor."""
    def arccosh(self) -> Tensor:
        """Alias for ``acosh()``."""
    def arccosh_(self) -> Self:
        """In-place ``arccosh()``; returns this tensor."""
    def atanh(self) -> Tensor:
        """Elementwise inverse hyperbolic tangent."""
    def atanh_(self) -> Self:
        """In-place ``atanh()``; returns this tensor."""
    def arctanh(self) -> Tensor:
        """Alias for ``atanh()``."""
    def arctanh_(self) -> Self:
        """In-place ``arctanh()``; returns this tensor."""
    def deg2rad(self) -> Tensor:
        """Elementwise degrees to radians, ``self * pi / 180``."""
    def deg2rad_(self) -> Self:
        """In-place ``deg2rad()``; returns this tensor."""
    def rad2deg(self) -> Tensor:
        """Elementwise radians to degrees, ``self * 180 / pi``."""
    def rad2deg_(self) -> Self:
        """In-place ``rad2deg()``; returns this tensor."""
    def sinh(self) -> Tensor:
        """Elementwise hyperbolic sine."""
    def sinh_(self) -> Self:
        """In-place ``sinh()``; returns this tensor."""
    def cosh(self) -> Tensor:
        """Elementwise hyperbolic cosine."""
    def cosh_(self) -> Self:
        """In-place ``cosh()``; returns this tensor."""
    def tanh(self) -> Tensor:
        """Elementwise hyperbolic tangent."""
    def tanh_(self) -> Self:
        """In-place ``tanh()``; returns this tensor."""
    def sigmoid(self) -> Tensor:
        """Elementwise logistic sigmoid ``1 / (1 + exp(-self))``."""
    def sigmoid_(self) -> Self:
        """In-place ``sigmoid()``; returns this tensor."""
    def relu(self) -> Tensor:
        """Elementwise ``max(self, 0)``."""
    def relu_(self) -> Self:
        """In-place ``relu()``; returns this tensor."""
    def erf(self) -> Tensor:
        """Elementwise Gauss error function."""
    def erf_(self) -> Self:
        """In-place ``erf()``; returns this tensor."""
    def erfc(self) -> Tensor:
        """Elementwise complementary error function ``1 - erf(self)``."""
    def erfc_(self) -> Self:
        """In-place ``erfc()``; returns this tensor."""
    def erfinv(self) -> Tensor:
        """Elementwise inverse of the error function."""
    def erfinv_(self) -> Self:
        """In-place ``erfinv()``; returns this tensor."""
    def lgamma(self) -> Tensor:
        """Elementwise ``log(|gamma(self)|)``."""
    def lgamma_(self) -> Self:
        """In-place ``lgamma()``; returns this tensor."""
    def digamma(self) -> Tensor:
        """Elementwise digamma function, the derivative of ``lgamma``."""
    def digamma_(self) -> Self:
        """In-place ``digamma()``; returns this tensor."""
    def i0(self) -> Tensor:
        """Elementwise modified Bessel function of the first kind of order 0."""
    def i0_(self) -> Self:
        """In-place ``i0()``; returns this tensor."""
    def sinc(self) -> Tensor:
        """Elementwise normalized sinc ``sin(pi x) / (pi x)``, 1 at 0."""
    def sinc_(self) -> Self:
        """In-place ``sinc()``; returns this tensor."""
    def floor(self) -> Tensor:
        """Elementwise floor (zero gradient)."""
    def floor_(self) -> Self:
        """In-place ``floor()``; returns this tensor."""
    def ceil(self) -> Tensor:
        """Elementwise ceiling (zero gradient)."""
    def ceil_(self) -> Self:
        """In-place ``ceil()``; returns this tensor."""
    def trunc(self) -> Tensor:
        """Elementwise rounding towards zero (zero gradient)."""
    def trunc_(self) -> Self:
        """In-place ``trunc()``; returns this tensor."""
    def fix(self) -> Tensor:
        """Alias for ``trunc()``."""
    def fix_(self) -> Self:
        """In-place ``fix()``; returns this tensor."""
    def frac(self) -> Tensor:
        """Elementwise fractional part ``self - trunc(self)``."""
    def frac_(self) -> Self:
        """In-place ``frac()``; returns this tensor."""
    # ---- end of generated unary ops ----
    # ---- aliases and in-place forms of other methods: generated by tools/gen_api.py from _method_forms() ----
    def atan2_(self, other: Tensor) -> Self:
        """In-place ``atan2()``; returns this tensor."""
    def hypot_(self, other: Tensor) -> Self:
        """In-place ``hypot()``; returns this tensor."""
    def copysign_(self, other: _Operand) -> Self:
        """In-place ``copysign()``; returns this tensor."""
    def heaviside_(self, values: Tensor) -> Self:
        """In-place ``heaviside()``; returns this tensor."""
    def nextafter_(self, other: Tensor) -> Self:
        """In-place ``nextafter()``; returns this tensor."""
    def gcd_(self, other: Tensor) -> Self:
        """In-place ``gcd()``; returns this tensor."""
    def lcm_(self, other: Tensor) -> Self:
        """In-place ``lcm()``; returns this tensor."""
    def fmod_(self, other: _Operand) -> Self:
        """In-place ``fmod()``; returns this tensor."""
    def remainder_(self, other: _Operand) -> Self:
        """In-place ``remainder()``; returns this tensor."""
    def floor_divide_(self, other: _Operand) -> Self:
        """In-place ``floor_divide()``; returns this tensor."""
    def lerp_(self, end: Tensor, weight: _Operand) -> Self:
        """In-place ``lerp()``; returns this tensor."""
    def addcmul_(self, tensor1: Tensor, tensor2: Tensor, *, value: _Number | Tensor = 1) -> Self:
        """In-place ``addcmul()``; returns this tensor."""
    def addcdiv_(self, tensor1: Tensor, tensor2: Tensor, *, value: _Number | Tensor = 1) -> Self:
        """In-place ``addcdiv()``; returns this tensor."""
    def clamp_min_(self, min: _Operand) -> Self:
        """In-place ``clamp_min()``; returns this tensor."""
    def clamp_max_(self, max: _Operand) -> Self:
        """In-place ``clamp_max()``; returns this tensor."""
    def tril_(self, diagonal: builtins.int = 0) -> Self:
        """In-place ``tril()``; returns this tensor."""
    def triu_(self, diagonal: builtins.int = 0) -> Self:
        """In-place ``triu()``; returns this tensor."""
    def square_(self) -> Self:
        """In-place ``square()``; returns this tensor."""
    def round_(self, *, decimals: builtins.int = 0) -> Self:
        """In-place ``round()``; returns this tensor."""
    def logit_(self, eps: _Float | None = None) -> Self:
        """In-place ``logit()``; returns this tensor."""
    def index_fill_(self, dim: builtins.int, index: Tensor, value: _Operand) -> Self:
        """In-place ``index_fill()``; returns this tensor."""
    def index_copy_(self, dim: builtins.int, index: Tensor, source: Tensor) -> Self:
        """In-place ``index_copy()``; returns this tensor."""
    def scatter_reduce_(
        self, dim: builtins.int, index: Tensor, src: Tensor, reduce: str, *, include_self: builtins.bool = True
    ) -> Self:
        """In-place ``scatter_reduce()``; returns this tensor."""
    def index_put_(
        self, indices: tuple[Tensor, ...] | list[Tensor], values: Tensor, accumulate: builtins.bool = False
    ) -> Self:
        """In-place ``index_put()``; returns this tensor."""
    def masked_scatter_(self, mask: Tensor, source: Tensor) -> Self:
        """In-place ``masked_scatter()``; returns this tensor."""
    def addmm_(self, mat1: Tensor, mat2: Tensor, *, beta: _Number = 1, alpha: _Number = 1) -> Self:
        """In-place ``addmm()``; returns this tensor."""
    def baddbmm_(self, batch1: Tensor, batch2: Tensor, *, beta: _Float = 1.0, alpha: _Float = 1.0) -> Self:
        """In-place ``baddbmm()``; returns this tensor."""
    def addbmm_(self, batch1: Tensor, batch2: Tensor, *, beta: _Float = 1.0, alpha: _Float = 1.0) -> Self:
        """In-place ``addbmm()``; returns this tensor."""
    def addmv_(self, mat: Tensor, vec: Tensor, *, beta: _Float = 1.0, alpha: _Float = 1.0) -> Self:
        """In-place ``addmv()``; returns this tensor."""
    def addr_(self, vec1: Tensor, vec2: Tensor, *, beta: _Float = 1.0, alpha: _Float = 1.0) -> Self:
        """In-place ``addr()``; returns this tensor."""
    def renorm_(self, p: _Float, dim: builtins.int, maxnorm: _Float) -> Self:
        """In-place ``renorm()``; returns this tensor."""
    def nan_to_num_(self, nan: _Float = 0.0, posinf: _Float | None = None, neginf: _Float | None = None) -> Self:
        """In-place ``nan_to_num()``; returns this tensor."""
    def xlogy_(self, other: _Operand) -> Self:
        """In-place ``xlogy()``; returns this tensor."""
    def put_(self, index: Tensor, source: Tensor, accumulate: _Bool = False) -> Self:
        """In-place ``put()``; returns this tensor."""
    def index_reduce_(
        self, dim: builtins.int, index: Tensor, source: Tensor, reduce: str, *, include_self: _Bool = True
    ) -> Self:
        """In-place ``index_reduce()``; returns this tensor."""
    def mvlgamma_(self, p: builtins.int) -> Self:
        """In-place ``mvlgamma()``; returns this tensor."""
    def multiply(self, other: _Operand) -> Tensor:  # function form
        """Alias for ``mul()``."""
    def multiply_(self, other: _Operand) -> Self:
        """Alias for ``mul_()``."""
    def subtract(self, other: _Operand, *, alpha: _Number | None = None) -> Tensor:  # function form
        """Alias for ``sub()``."""
    def subtract_(
        self, other: _Operand, deprecated_other: _Operand | None = None, *, alpha: _Number | None = None
    ) -> Self:
        """Alias for ``sub_()``."""
    def divide(self, other: _Operand, *, rounding_mode: str | None = None) -> Tensor:  # function form
        """Alias for ``div()``."""
    def divide_(self, other: _Operand) -> Self:
        """Alias for ``div_()``."""
    def true_divide(self, other: _Operand, *, rounding_mode: str | None = None) -> Tensor:  # function form
        """Alias for ``div()``."""
    def true_divide_(self, other: _Operand) -> Self:
        """Alias for ``div_()``."""
    def greater(self, other: _Operand) -> Tensor:  # function form
        """Alias for ``gt()``."""
    def greater_(self, other: _Operand) -> Self:
        """Alias for ``gt_()``."""
    def greater_equal(self, other: _Operand) -> Tensor:  # function form
        """Alias for ``ge()``."""
    def greater_equal_(self, other: _Operand) -> Self:
        """Alias for ``ge_()``."""
    def less(self, other: _Operand) -> Tensor:  # function form
        """Alias for ``lt()``."""
    def less_(self, other: _Operand) -> Self:
        """Alias for ``lt_()``."""
    def less_equal(self, other: _Operand) -> Tensor:  # function form
        """Alias for ``le()``."""
    def less_equal_(self, other: _Operand) -> Self:
        """Alias for ``le_()``."""
    def not_equal(self, other: _Operand) -> Tensor:  # function form
        """Alias for ``ne()``."""
    def not_equal_(self, other: _Operand) -> Self:
        """Alias for ``ne_()``."""
    def negative(self) -> Tensor:  # function form
        """Alias for ``neg()``."""
    def negative_(self) -> Self:
        """Alias for ``neg_()``."""
    def clip_(self, min: _Operand | None = None, max: _Operand | None = None) -> Tensor:
        """Alias for ``clamp_()``."""
    def arctan2_(self, other: Tensor) -> Self:
        """Alias for ``atan2_()``."""
    # ---- end of generated method forms ----
    # ---- unary ops with parameters: generated by tools/gen_api.py from the core's for_each_param_unary_op! ----
    def _softplus(self, beta: _Float, threshold: _Float) -> Tensor:
        """``nn.functional.softplus``: ``log(1 + exp(beta * x)) / beta``, and ``x`` where ``beta * x > threshold``."""
    def _softplus_(self, beta: _Float, threshold: _Float) -> Self:
        """In-place ``_softplus()``; returns this tensor."""
    def _elu(self, alpha: _Float) -> Tensor:
        """``nn.functional.elu``: ``x`` above 0, ``alpha * (exp(x) - 1)`` else."""
    def _elu_(self, alpha: _Float) -> Self:
        """In-place ``_elu()``; returns this tensor."""
    def _selu(self) -> Tensor:
        """``nn.functional.selu``: ``scale * elu(x, alpha)`` with SELU's fixed ``alpha`` and ``scale``."""
    def _selu_(self) -> Self:
        """In-place ``_selu()``; returns this tensor."""
    def _celu(self, alpha: _Float) -> Tensor:
        """``nn.functional.celu``: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    def _celu_(self, alpha: _Float) -> Self:
        """In-place ``_celu()``; returns this tensor."""
    def _leaky_relu(self, negative_slope: _Float) -> Tensor:
        """``nn.functional.leaky_relu``: ``x`` above 0, ``negative_slope * x`` else."""
    def _leaky_relu_(self, negative_slope: _Float) -> Self:
        """In-place ``_leaky_relu()``; returns this tensor."""
    def _hardtanh(self, min_val: _Float, max_val: _Float) -> Tensor:
        """``nn.functional.hardtanh``: ``x`` clamped to ``[min_val, max_val]`` (integer inputs stay integers)."""
    def _hardtanh_(self, min_val: _Float, max_val: _Float) -> Self:
        """In-place ``_hardtanh()``; returns this tensor."""
    def _threshold(self, threshold: _Float, value: _Float) -> Tensor:
        """``nn.functional.threshold``: ``value`` where ``x <= threshold``, else ``x`` (NaN stays NaN)."""
    def _threshold_(self, threshold: _Float, value: _Float) -> Self:
        """In-place ``_threshold()``; returns this tensor."""
    def _gelu(self, approximate: str) -> Tensor:
        """``nn.functional.gelu``: ``x * Phi(x)``, or its tanh approximation (``approximate='tanh'``)."""
    def _gelu_(self, approximate: str) -> Self:
        """In-place ``_gelu()``; returns this tensor."""
    def _silu(self) -> Tensor:
        """``nn.functional.silu``: ``x * sigmoid(x)``."""
    def _silu_(self) -> Self:
        """In-place ``_silu()``; returns this tensor."""
    def _hardsigmoid(self) -> Tensor:
        """``nn.functional.hardsigmoid``: ``min(max(x + 3, 0), 6) / 6``; gradient 1/6 rounded to float32 inside."""
    def _hardsigmoid_(self) -> Self:
        """In-place ``_hardsigmoid()``; returns this tensor."""
    def _hardswish(self) -> Tensor:
        """``nn.functional.hardswish``: ``x * min(max(x + 3, 0), 6) / 6``; gradient 0 at -3, 1 at 3."""
    def _hardswish_(self) -> Self:
        """In-place ``_hardswish()``; returns this tensor."""
    def _mish(self) -> Tensor:
        """``nn.functional.mish``: ``x * tanh(softplus(x))``."""
    def _mish_(self) -> Self:
        """In-place ``_mish()``; returns this tensor."""
    def _logsigmoid(self) -> Tensor:
        """``nn.functional.logsigmoid``: ``log(sigmoid(x))``, computed without overflow."""
    def _logsigmoid_(self) -> Self:
        """In-place ``_logsigmoid()``; returns this tensor."""
    def _hardshrink(self, lambd: _Float) -> Tensor:
        """``nn.functional.hardshrink``: 0 where ``-lambd <= x <= lambd``, else ``x`` (NaN stays NaN)."""
    def _hardshrink_(self, lambd: _Float) -> Self:
        """In-place ``_hardshrink()``; returns this tensor."""
    def _softshrink(self, lambd: _Float) -> Tensor:
        """``nn.functional.softshrink``: ``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""
    def _softshrink_(self, lambd: _Float) -> Self:
        """In-place ``_softshrink()``; returns this tensor."""
    # ---- end of generated unary ops with parameters ----

    # ---- elementwise binary, clamp, lerp, where, logic ----
    def maximum(self, other: Tensor) -> Tensor:  # function form
        """Elementwise maximum with ``other`` (a tensor), broadcasting; NaN propagates."""
    def minimum(self, other: Tensor) -> Tensor:  # function form
        """Elementwise minimum with ``other`` (a tensor), broadcasting; NaN propagates."""
    def xlogy(self, other: _Operand) -> Tensor:
        """``self * log(other)``, 0 where self is 0 (unless other is NaN)."""
    def polygamma(self, n: builtins.int) -> Tensor:
        """The n-th derivative of digamma (``torch.polygamma(n, self)``)."""
    def polygamma_(self, n: builtins.int) -> Self:
        """In-place ``polygamma()`` (PolygammaBackward1, torch's node for it); returns this tensor."""
    def mvlgamma(self, p: builtins.int) -> Tensor:
        """The multivariate log-gamma of dimension p."""
    def igamma(self, other: Tensor) -> Tensor:
        """P(self, other), the regularized lower incomplete gamma function."""
    def igammac(self, other: Tensor) -> Tensor:
        """Q(self, other) = 1 - P(self, other), the regularized upper incomplete gamma function."""
    def igamma_(self, other: Tensor) -> Self:
        """In-place ``igamma()``; returns this tensor."""
    def igammac_(self, other: Tensor) -> Self:
        """In-place ``igammac()``; returns this tensor."""
    def atan2(self, other: Tensor) -> Tensor:  # function form
        """Elementwise arctangent of ``self / other`` using both signs to pick the quadrant."""
    def arctan2(self, other: Tensor) -> Tensor:  # function form
        """Alias for ``atan2``."""
    def hypot(self, other: Tensor) -> Tensor:  # function form
        """Elementwise ``sqrt(self**2 + other**2)`` without overflow (float dtypes only)."""
    def copysign(self, other: _Operand) -> Tensor:  # function form
        """Elementwise ``|self|`` with the sign (bit) of ``other``, in a float dtype."""
    def fmax(self, other: Tensor) -> Tensor:  # function form
        """Elementwise maximum with ``other`` (a tensor), broadcasting; a NaN loses to a number."""
    def fmin(self, other: Tensor) -> Tensor:  # function form
        """Elementwise minimum with ``other`` (a tensor), broadcasting; a NaN loses to a number."""
    def logaddexp(self, other: Tensor) -> Tensor:  # function form
        """Elementwise ``log(exp(self) + exp(other))`` without overflow (float dtypes only)."""
    def logaddexp2(self, other: Tensor) -> Tensor:  # function form
        """Elementwise ``log2(2**self + 2**other)`` without overflow (float dtypes only)."""
    def nextafter(self, other: Tensor) -> Tensor:  # function form
        """Elementwise the next value of the dtype after ``self`` towards ``other`` (float dtypes only)."""
    def ldexp(self, other: Tensor) -> Tensor:  # function form
        """Elementwise ``self * 2**other``, in a float dtype."""
    def ldexp_(self, other: Tensor) -> Self:
        """In-place ``ldexp()`` (a float tensor only); returns this tensor."""
    def heaviside(self, values: Tensor) -> Tensor:  # function form
        """Elementwise step: 0 below 0, ``values`` at 0, 1 above (both of one dtype)."""
    def gcd(self, other: Tensor) -> Tensor:  # function form
        """Elementwise greatest common divisor (integer dtypes only)."""
    def lcm(self, other: Tensor) -> Tensor:  # function form
        """Elementwise least common multiple (integer dtypes only)."""
    def float_power(self, exponent: _Operand) -> Tensor:
        """Elementwise ``self ** exponent`` computed in float64."""
    def float_power_(self, exponent: _Operand) -> Self:
        """In-place ``float_power()`` (a float64 tensor only); returns this tensor."""
    def fmod(self, other: _Operand) -> Tensor:  # function form
        """Elementwise C-style remainder (the result has the sign of ``self``)."""
    def remainder(self, other: _Operand) -> Tensor:  # function form
        """Elementwise Python-style remainder (the result has the sign of ``other``)."""
    def clamp(self, min: _Operand | None = None, max: _Operand | None = None) -> Tensor:  # function form
        """Clamps elements into ``[min, max]`` (numbers or broadcast tensors); at least one bound is required."""
    def clip(self, min: _Operand | None = None, max: _Operand | None = None) -> Tensor:  # function form
        """Alias for ``clamp``."""
    def clamp_(self, min: _Operand | None = None, max: _Operand | None = None) -> Tensor:
        """In-place ``clamp``."""
    def clamp_min(self, min: _Operand) -> Tensor:  # function form
        """Elementwise ``max(self, min)`` (a number or broadcast tensor)."""
    def clamp_max(self, max: _Operand) -> Tensor:  # function form
        """Elementwise ``min(self, max)`` (a number or broadcast tensor)."""
    def lerp(self, end: Tensor, weight: _Operand) -> Tensor:  # function form
        """Linear interpolation ``self + weight * (end - self)``."""
    def addcmul(self, tensor1: Tensor, tensor2: Tensor, *, value: _Number | Tensor = 1) -> Tensor:  # function form
        """``self + value * tensor1 * tensor2``, broadcast."""
    def addcdiv(self, tensor1: Tensor, tensor2: Tensor, *, value: _Number | Tensor = 1) -> Tensor:  # function form
        """``self + value * tensor1 / tensor2``, broadcast (tensor1 and tensor2 not both integers)."""
    def where(self, condition: Tensor, other: _Operand) -> Tensor:
        """``ferrograd.where(condition, self, other)``: elements of ``self`` where ``condition``, else of ``other``."""
    def bitwise_and(self, other: _Operand) -> Tensor:  # function form
        """Elementwise AND of bool or integer tensors (and Python numbers), in the promoted dtype."""
    def bitwise_or(self, other: _Operand) -> Tensor:  # function form
        """Elementwise OR of bool or integer tensors, in the promoted dtype."""
    def bitwise_xor(self, other: _Operand) -> Tensor:  # function form
        """Elementwise XOR of bool or integer tensors, in the promoted dtype."""
    def bitwise_not(self) -> Tensor:  # function form
        """Elementwise NOT of a bool tensor, or the bitwise complement of an integer one."""
    def bitwise_left_shift(self, other: _Operand) -> Tensor:  # function form
        """Elementwise ``self << other`` of integer tensors: 0 for counts that are negative or reach the width."""
    def bitwise_right_shift(self, other: _Operand) -> Tensor:  # function form
        """Elementwise arithmetic ``self >> other``: the sign fill for counts that are negative or reach the width."""
    def logical_and(self, other: Tensor) -> Tensor:  # function form
        """Elementwise logical AND of the truth values, as a bool tensor."""
    def logical_or(self, other: Tensor) -> Tensor:  # function form
        """Elementwise logical OR of the truth values, as a bool tensor."""
    def logical_xor(self, other: Tensor) -> Tensor:  # function form
        """Elementwise logical XOR of the truth values, as a bool tensor."""
    def logical_not(self) -> Tensor:  # function form
        """Elementwise logical NOT of the truth values, as a bool tensor."""
    def isnan(self) -> Tensor:  # function form
        """Elementwise test for NaN, as a bool tensor."""
    def isinf(self) -> Tensor:  # function form
        """Elementwise test for positive or negative infinity, as a bool tensor."""
    def isfinite(self) -> Tensor:  # function form
        """Elementwise test for finite values (not NaN or infinite), as a bool tensor."""
    def isposinf(self) -> Tensor:  # function form
        """Elementwise test for positive infinity, as a bool tensor."""
    def isneginf(self) -> Tensor:  # function form
        """Elementwise test for negative infinity, as a bool tensor."""
    def signbit(self) -> Tensor:  # function form
        """Elementwise test of the sign bit (negatives and -0.0), as a bool tensor."""
    def positive(self) -> Tensor:  # function form
        """This tensor itself (the unary ``+``); an error for bool tensors."""
    def isclose(  # function form
        self, other: Tensor, rtol: _Float = 1e-05, atol: _Float = 1e-08, equal_nan: _Bool = False
    ) -> Tensor:
        """Elementwise ``|self - other| <= atol + rtol * |other|`` (broadcasting), as a bool tensor."""
    def allclose(  # function form
        self, other: Tensor, rtol: _Float = 1e-05, atol: _Float = 1e-08, equal_nan: _Bool = False
    ) -> _Bool:
        """True if ``|self - other| <= atol + rtol * |other|`` everywhere (broadcasting)."""
    def equal(self, other: Tensor) -> _Bool:  # function form
        """True if both tensors have the same shape and elements."""

    # ---- reductions ----
    def sum(  # function form
        self, dim: _Dims | None = None, keepdim: _Bool = False, *, dtype: _DType | None = None
    ) -> Tensor:
        """Sum of all elements, or over ``dim`` (int or tuple of ints); ``dtype`` casts the input first."""
    def mean(  # function form
        self, dim: _Dims | None = None, keepdim: _Bool = False, *, dtype: _DType | None = None
    ) -> Tensor:
        """Mean of all elements, or over ``dim`` (int or tuple of ints); ``dtype`` casts the input first."""
    def nansum(  # function form
        self, dim: _Dims | None = None, keepdim: _Bool = False, *, dtype: _DType | None = None
    ) -> Tensor:
        """Sum with NaNs counted as zeros, of all elements or over ``dim``; ``dtype`` casts the input first."""
    def nanmean(  # function form
        self, dim: _Dims | None = None, keepdim: _Bool = False, *, dtype: _DType | None = None
    ) -> Tensor:
        """Mean of the elements that are not NaN, of all elements or over ``dim`` (NaN where all are)."""
    def count_nonzero(self, dim: _Dims | None = None) -> Tensor:  # function form
        """How many elements are not zero, of all or over ``dim`` (int or tuple of ints), as int64."""
    def norm(  # function form
        self,
        p: _Float | str | None = None,
        dim: _Dims | None = None,
        keepdim: _Bool = False,
        dtype: _DType | None = None,
    ) -> Tensor:
        """Vector ``p``-norm over all elements or ``dim``: 'fro'/None is 2; also 1, inf, -inf, 0 (count of nonzeros)
        and any number ('nuc' is not supported)."""
    def all(self, dim: _Dims | None = None, keepdim: _Bool = False) -> Tensor:  # function form
        """Whether every element (over all, or over ``dim``) is nonzero: bool."""
    def any(self, dim: _Dims | None = None, keepdim: _Bool = False) -> Tensor:  # function form
        """Whether any element (over all, or over ``dim``) is nonzero: bool."""
    def nan_to_num(  # function form
        self, nan: _Float = 0.0, posinf: _Float | None = None, neginf: _Float | None = None
    ) -> Tensor:
        """NaN, +inf and -inf replaced (infinities by the dtype's extremes by default); ints and bools unchanged."""
    def prod(  # function form
        self, dim: builtins.int | None = None, keepdim: _Bool = False, *, dtype: _DType | None = None
    ) -> Tensor:
        """Product of all elements, or over the single dimension ``dim``; ``dtype`` casts the input first."""
    def amax(self, dim: _Dims | None = None, keepdim: _Bool = False) -> Tensor:  # function form
        """Largest value over all elements, or over ``dim`` (int or tuple of ints); the gradient is shared among
        ties."""
    def amin(self, dim: _Dims | None = None, keepdim: _Bool = False) -> Tensor:  # function form
        """Smallest value over all elements, or over ``dim`` (int or tuple of ints); the gradient is shared among
        ties."""
    @overload
    def max(self, dim: None = None, keepdim: _Bool = False) -> Tensor:  # function form
        """``max()``: the largest element; ``max(dim, keepdim=False)``: ``(values, indices)``; ``max(tensor)``:
        ``maximum``."""
    @overload
    def max(self, dim: builtins.int, keepdim: _Bool = False) -> _ValuesIndices: ...
    @overload
    def max(self, dim: Tensor) -> Tensor: ...
    @overload
    def min(self, dim: None = None, keepdim: _Bool = False) -> Tensor:  # function form
        """``min()``: the smallest element; ``min(dim, keepdim=False)``: ``(values, indices)``; ``min(tensor)``:
        ``minimum``."""
    @overload
    def min(self, dim: builtins.int, keepdim: _Bool = False) -> _ValuesIndices: ...
    @overload
    def min(self, dim: Tensor) -> Tensor: ...
    @overload
    def median(self, dim: None = None, keepdim: _Bool = False) -> Tensor:  # function form
        """``median()``: the lower median of all elements (NaN if one is NaN); ``median(dim, keepdim=False)``:
        ``(values, indices)``, ties picking the index torch picks."""
    @overload
    def median(self, dim: builtins.int, keepdim: _Bool = False) -> _ValuesIndices: ...
    def aminmax(self, *, dim: builtins.int | None = None, keepdim: _Bool = False) -> _MinMax:  # function form
        """``(min, max)`` of all elements or along ``dim``, in one pass (one AminmaxBackward0 node)."""
    @overload
    def nanmedian(self, dim: None = None, keepdim: _Bool = False) -> Tensor:  # function form
        """``nanmedian()``: the lower median of the elements that are not NaN (NaN if all are);
        ``nanmedian(dim, keepdim=False)``: ``(values, indices)`` along ``dim``."""
    @overload
    def nanmedian(self, dim: builtins.int, keepdim: _Bool = False) -> _ValuesIndices: ...
    def kthvalue(  # function form
        self, k: builtins.int, dim: builtins.int = -1, keepdim: _Bool = False
    ) -> _ValuesIndices:
        """``(values, indices)`` of the ``k``-th smallest element along ``dim`` (NaN above every number)."""
    def mode(self, dim: builtins.int = -1, keepdim: _Bool = False) -> _ValuesIndices:  # function form
        """``(values, indices)`` of the most frequent value along ``dim`` (ties: the smallest value)."""
    def quantile(  # function form
        self,
        q: Tensor | _Float,
        dim: builtins.int | None = None,
        keepdim: _Bool = False,
        *,
        interpolation: str = "linear",
    ) -> Tensor:
        """The ``q``-th quantiles (a number or a 1-d tensor, in [0, 1]) of all elements or along ``dim``,
        ``interpolation`` one of linear, lower, higher, midpoint, nearest; NaN where a row holds NaN."""
    def nanquantile(  # function form
        self,
        q: Tensor | _Float,
        dim: builtins.int | None = None,
        keepdim: _Bool = False,
        *,
        interpolation: str = "linear",
    ) -> Tensor:
        """``quantile`` of the elements that are not NaN (NaN where all of a row are)."""
    def bincount(self, weights: Tensor | None = None, minlength: builtins.int = 0) -> Tensor:  # function form
        """How often each value 0, 1, ..., max occurs in this 1-d tensor of non-negative integers, or the sum of
        ``weights`` at each; at least ``minlength`` bins."""
    def histc(self, bins: builtins.int = 100, min: _Float = 0, max: _Float = 0) -> Tensor:  # function form
        """A histogram of ``bins`` equal bins over [min, max] (the data's range when min == max)."""
    def cov(  # function form
        self, *, correction: builtins.int = 1, fweights: Tensor | None = None, aweights: Tensor | None = None
    ) -> Tensor:
        """The covariance matrix of the variables in rows over the observations in columns (a 1-d input is one
        variable), with ``correction`` and integer frequency / float weights per observation."""
    def corrcoef(self) -> Tensor:  # function form
        """Pearson's correlation coefficients of the variables in rows, clipped to [-1, 1]."""
    def kron(self, other: Tensor) -> Tensor:  # function form
        """The Kronecker product of this tensor and ``other``."""
    def inner(self, other: Tensor) -> Tensor:  # function form
        """Sums of products over the last dims of this tensor and ``other`` (a 0-d operand multiplies)."""
    def vdot(self, other: Tensor) -> Tensor:  # function form
        """The dot product of two 1-d tensors."""
    def dist(self, other: Tensor, p: _Float = 2.0) -> Tensor:  # function form
        """The p-norm of ``self - other`` (broadcast)."""
    def frexp(self) -> _MantissaExponent:  # function form
        """``(mantissa, exponent)``: each element as mantissa * 2**exponent, |mantissa| in [0.5, 1), exponent
        int32."""
    def renorm(self, p: _Float, dim: builtins.int, maxnorm: _Float) -> Tensor:  # function form
        """Each sub-tensor along ``dim`` whose p-norm exceeds ``maxnorm``, scaled down to that norm."""
    def diff(  # function form
        self,
        n: builtins.int = 1,
        dim: builtins.int = -1,
        prepend: Tensor | None = None,
        append: Tensor | None = None,
    ) -> Tensor:
        """The ``n``-th forward difference along ``dim``, with ``prepend``/``append`` joined on first."""
    def argmax(self, dim: builtins.int | None = None, keepdim: _Bool = False) -> Tensor:  # function form
        """Index (int64) of the largest value, in the flattened tensor or along ``dim``."""
    def argmin(self, dim: builtins.int | None = None, keepdim: _Bool = False) -> Tensor:  # function form
        """Index (int64) of the smallest value, in the flattened tensor or along ``dim``."""
    def var(  # function form
        self,
        dim: _Dims | None = None,
        unbiased: _Bool | None = None,
        keepdim: _Bool = False,
        *,
        correction: _Float | None = None,
    ) -> Tensor:
        """Variance over all elements or ``dim``; ``correction`` (default 1) wins over ``unbiased``; ``var(False)`` is
        ``unbiased=False``."""
    def std(  # function form
        self,
        dim: _Dims | None = None,
        unbiased: _Bool | None = None,
        keepdim: _Bool = False,
        *,
        correction: _Float | None = None,
    ) -> Tensor:
        """Standard deviation over all elements or ``dim``; ``correction`` (default 1) wins over ``unbiased``."""
    def logsumexp(self, dim: _Dims, keepdim: _Bool = False) -> Tensor:  # function form
        """``log(sum(exp(self)))`` over ``dim`` (int or tuple of ints), computed stably."""
    def cumsum(self, dim: builtins.int, *, dtype: _DType | None = None) -> Tensor:  # function form
        """Cumulative sum along ``dim``; ``dtype`` casts the input first."""
    def cumprod(self, dim: builtins.int, *, dtype: _DType | None = None) -> Tensor:  # function form
        """Cumulative product along ``dim`` (its gradient is right with zeros too); ``dtype`` casts the input first."""
    def cumsum_(self, dim: builtins.int, *, dtype: _DType | None = None) -> Self:
        """In-place ``cumsum()``; ``dtype`` must be the tensor's own."""
    def cumprod_(self, dim: builtins.int, *, dtype: _DType | None = None) -> Self:
        """In-place ``cumprod()``; ``dtype`` must be the tensor's own."""
    def sort(  # function form
        self, dim: builtins.int = -1, descending: _Bool = False, *, stable: _Bool = False
    ) -> _ValuesIndices:
        """``(values, indices)`` sorted along ``dim``; NaN sorts as the largest value; ties in order when ``stable``."""
    def argsort(  # function form
        self, dim: builtins.int = -1, descending: _Bool = False, *, stable: _Bool = False
    ) -> Tensor:
        """The indices ``sort`` would return."""
    def logcumsumexp(self, dim: builtins.int) -> Tensor:  # function form
        """The running ``log(Σ exp)`` along ``dim``, exact where the terms are far apart (floats only)."""
    def cummax(self, dim: builtins.int) -> _ValuesIndices:  # function form
        """``(values, indices)`` of the running maximum along ``dim``; ties take the later index, NaN wins."""
    def cummin(self, dim: builtins.int) -> _ValuesIndices:  # function form
        """``(values, indices)`` of the running minimum along ``dim``; ties take the later index, NaN wins."""
    def unique(  # function form
        self,
        sorted: _Bool = True,
        return_inverse: _Bool = False,
        return_counts: _Bool = False,
        dim: builtins.int | None = None,
    ) -> Any:
        """The distinct elements in ascending order (each NaN its own); with ``return_inverse`` /
        ``return_counts`` a tuple adding each element's index among them and each value's count."""
    def unique_consecutive(  # function form
        self, return_inverse: _Bool = False, return_counts: _Bool = False, dim: builtins.int | None = None
    ) -> Any:
        """Each run of equal consecutive elements once; with the run index of each element and the run
        lengths if asked."""
    def topk(  # function form
        self, k: builtins.int, dim: builtins.int = -1, largest: _Bool = True, sorted: _Bool = True
    ) -> _ValuesIndices:
        """``(values, indices)`` of the ``k`` largest (or smallest) along ``dim``, in order unless not ``sorted``."""

    # ---- nn ----
    def softmax(self, dim: builtins.int, dtype: _DType | None = None) -> Tensor:  # function form
        """Softmax along ``dim``; ``dtype`` casts the input first."""
    def log_softmax(self, dim: builtins.int, dtype: _DType | None = None) -> Tensor:  # function form
        """Logarithm of the softmax along ``dim``, computed stably; ``dtype`` casts the input first."""
    def addmm(  # function form
        self, mat1: Tensor, mat2: Tensor, *, beta: _Number = 1, alpha: _Number = 1
    ) -> Tensor:
        """``self + mat1 @ mat2`` as one op (``self`` broadcasts to the product's shape); no ``beta``/``alpha``."""

    # ---- linear algebra ----
    def matmul(self, other: Tensor) -> Tensor:  # function form
        """Matrix product with broadcasting: dot, matrix-vector, matrix-matrix or batched, by dimensionality."""
    def mm(self, mat2: Tensor) -> Tensor:  # function form
        """Matrix product of two 2-D tensors (no broadcasting)."""
    def bmm(self, mat2: Tensor) -> Tensor:  # function form
        """Batched matrix product of two 3-D tensors ``(b, n, m) @ (b, m, p)``."""
    def mv(self, vec: Tensor) -> Tensor:  # function form
        """Matrix-vector product of a 2-D tensor and a 1-D tensor."""
    def dot(self, tensor: Tensor) -> Tensor:  # function form
        """Dot product of two 1-D tensors."""
    def outer(self, vec2: Tensor) -> Tensor:  # function form
        """Outer product of two 1-D tensors."""
    def ger(self, vec2: Tensor) -> Tensor:  # function form
        """``outer`` under its old name."""
    def trace(self) -> Tensor:  # function form
        """Sum of the main diagonal of a 2-D tensor."""
    def det(self) -> Tensor:  # function form
        """``linalg.det``: the determinant of each square matrix."""
    def inverse(self) -> Tensor:  # function form
        """``linalg.inv``: the inverse of each square matrix."""
    def logdet(self) -> Tensor:  # function form
        """log det of each square matrix: NaN where the determinant is negative, -inf where it is zero."""
    def slogdet(self) -> tuple[Tensor, Tensor]:  # function form
        """``linalg.slogdet``: (sign, logabsdet) of each square matrix's determinant."""
    def svd(self, some: _Bool = True, compute_uv: _Bool = True) -> tuple[Tensor, Tensor, Tensor]:
        """``torch.svd``: (U, S, V) with ``self = U diag(S) Vᵀ``."""
    def qr(self, some: _Bool = True) -> tuple[Tensor, Tensor]:
        """Removed from PyTorch in favor of ``linalg.qr``: raises PyTorch's RuntimeError."""
    def lu(self, pivot: _Bool = True, get_infos: _Bool = False) -> tuple[Tensor, ...]:
        """``torch.lu``, deprecated: (LU, pivots), with ``get_infos`` (LU, pivots, info)."""
    def lu_solve(self, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
        """``torch.lu_solve``, deprecated: ``linalg.lu_solve(LU_data, LU_pivots, self)``."""
    def cholesky(self, upper: _Bool = False) -> Tensor:
        """Removed from PyTorch in favor of ``linalg.cholesky``: raises PyTorch's RuntimeError."""
    def solve(self, other: Tensor) -> Tensor:
        """Removed from PyTorch in favor of ``linalg.solve``: raises PyTorch's RuntimeError."""
    def lstsq(self, other: Tensor) -> Tensor:
        """Removed from PyTorch in favor of ``linalg.lstsq``: raises PyTorch's RuntimeError."""
    def symeig(self, eigenvectors: _Bool = False) -> tuple[Tensor, Tensor]:
        """Removed from PyTorch in favor of ``linalg.eigh``: raises PyTorch's RuntimeError."""
    def geqrf(self) -> tuple[Tensor, Tensor]:
        """``torch.geqrf``: LAPACK's compact Householder QR, (a, tau)."""
    def triangular_solve(
        self, A: Tensor, upper: _Bool = True, transpose: _Bool = False, unitriangular: _Bool = False
    ) -> tuple[Tensor, Tensor]:
        """``torch.triangular_solve``, deprecated: (X with ``A X = self``, a copy of A)."""
    def matrix_power(self, n: builtins.int) -> Tensor:  # function form
        """``linalg.matrix_power``: the n-th power of each square matrix (negative n: of its inverse)."""
    def cholesky_solve(self, input2: Tensor, upper: _Bool = False) -> Tensor:  # function form
        """X with ``A X = self`` for ``A = L Lᵀ`` given its Cholesky factor ``input2`` (``upper``: ``A = Uᵀ U``)."""
    def cholesky_inverse(self, upper: _Bool = False) -> Tensor:  # function form
        """``A⁻¹`` for ``A = L Lᵀ`` given its Cholesky factor ``self`` (``upper``: ``A = Uᵀ U``)."""
    def matrix_exp(self) -> Tensor:  # function form
        """``linalg.matrix_exp``: the exponential of each square matrix."""
    def cross(self, other: Tensor, dim: builtins.int | None = None) -> Tensor:  # function form
        """Cross product of 3-vectors along ``dim`` (default: the first dimension of length 3, deprecated)."""
    def baddbmm(  # function form
        self, batch1: Tensor, batch2: Tensor, *, beta: _Float = 1.0, alpha: _Float = 1.0
    ) -> Tensor:
        """``beta * self + alpha * (batch1 @ batch2)`` for 3-D batches; ``self`` broadcasts."""
    def addbmm(  # function form
        self, batch1: Tensor, batch2: Tensor, *, beta: _Float = 1.0, alpha: _Float = 1.0
    ) -> Tensor:
        """``beta * self + alpha * (batch1 @ batch2).sum(0)`` for 3-D batches; ``self`` broadcasts."""
    def addmv(self, mat: Tensor, vec: Tensor, *, beta: _Float = 1.0, alpha: _Float = 1.0) -> Tensor:  # function form
        """``beta * self + alpha * (mat @ vec)``; ``self`` broadcasts."""
    def addr(self, vec1: Tensor, vec2: Tensor, *, beta: _Float = 1.0, alpha: _Float = 1.0) -> Tensor:  # function form
        """``beta * self + alpha * outer(vec1, vec2)``, in the promoted dtype; ``self`` broadcasts."""

    # ---- shape and views ----
    @overload
    def reshape(self, shape: Sequence[SupportsIndex], /) -> Tensor:  # function form
        """A tensor with the given shape (one size may be -1), a view when possible; ``reshape(2, 3)`` or ``reshape((2,
        3))``."""
    @overload
    def reshape(self, *shape: SupportsIndex) -> Tensor: ...
    @overload
    def view(self, shape: Sequence[SupportsIndex], /) -> Tensor:
        """A view with the given shape (one size may be -1); the tensor must be compatible with it (no copy)."""
    @overload
    def view(self, *shape: SupportsIndex) -> Tensor: ...
    def view_as(self, other: Tensor) -> Tensor:
        """``self.view(other.shape)``."""
    def transpose(self, dim0: builtins.int, dim1: builtins.int) -> Tensor:  # function form
        """A view with dimensions ``dim0`` and ``dim1`` swapped."""
    def t(self) -> Tensor:  # function form
        """Transpose of a tensor with at most 2 dimensions."""
    @property
    def T(self) -> Tensor:
        """A view with all dimensions reversed."""
    @overload
    def permute(self, dims: Sequence[SupportsIndex], /) -> Tensor:  # function form
        """A view with the dimensions reordered as ``dims``."""
    @overload
    def permute(self, *dims: SupportsIndex) -> Tensor: ...
    def unsqueeze(self, dim: builtins.int) -> Tensor:  # function form
        """A view with a size-1 dimension inserted at ``dim``."""
    def squeeze(self, dim: _Dims | None = None) -> Tensor:  # function form
        """A view with size-1 dimensions removed (all of them, or those in ``dim``)."""
    # ---- tensor/forms.rs: view ops in place (the tensor takes the view's shape, strides and history) ----
    def t_(self) -> Self: ...
    def transpose_(self, dim0: builtins.int, dim1: builtins.int) -> Self: ...
    def swapaxes_(self, axis0: builtins.int, axis1: builtins.int) -> Self: ...
    def swapdims_(self, dim0: builtins.int, dim1: builtins.int) -> Self: ...
    def squeeze_(self, dim: _Dims | None = None) -> Self: ...
    def unsqueeze_(self, dim: builtins.int) -> Self: ...
    @overload
    def expand(self, sizes: Sequence[SupportsIndex], /) -> Tensor:
        """A broadcast view with size-1 dimensions expanded to ``sizes`` (-1 keeps a size); no copy."""
    @overload
    def expand(self, *sizes: SupportsIndex) -> Tensor: ...
    def expand_as(self, other: Tensor) -> Tensor:
        """``self.expand(other.shape)``."""
    def broadcast_to(self, size: Sequence[SupportsIndex]) -> Tensor:  # function form
        """``self.expand(size)``."""
    def as_strided(  # function form
        self, size: Sequence[builtins.int], stride: Sequence[builtins.int], storage_offset: builtins.int | None = None
    ) -> Tensor:
        """The elements of this tensor's storage at ``stride`` from ``storage_offset``, as a view of ``size``."""
    def as_strided_(
        self, size: Sequence[builtins.int], stride: Sequence[builtins.int], storage_offset: builtins.int | None = None
    ) -> Self: ...
    def unfold(self, dimension: builtins.int, size: builtins.int, step: builtins.int) -> Tensor:
        """A view of every ``size``-element window along ``dimension``, ``step`` apart, as a new last dim."""
    def contiguous(self, memory_format: Any = None) -> Tensor:
        """A contiguous tensor with the same data (a copy only if not already contiguous)."""
    def clone(self, *, memory_format: Any = None) -> Tensor:  # function form
        """A copy of the data, recorded by autograd (gradients flow back to ``self``)."""

    # ---- dtype conversion ----
    @overload
    def to(self, dtype: _DType, /) -> Tensor:
        """Converts to ``dtype`` (also given as ``dtype=``, or taken from ``other``); the device may only be
        ``'cpu'``."""
    @overload
    def to(self, device: str, dtype: _DType | None = None, /) -> Tensor: ...
    @overload
    def to(self, other: Tensor, /) -> Tensor: ...
    @overload
    def to(self, *, dtype: _DType | None = None, device: _Device = None, copy: _Bool = False) -> Tensor: ...
    def float(self, memory_format: Any = None) -> Tensor:
        """``self.to(ferrograd.float32)``."""
    def double(self, memory_format: Any = None) -> Tensor:
        """``self.to(ferrograd.float64)``."""
    def half(self, memory_format: Any = None) -> Tensor:
        """``self.to(ferrograd.float16)``."""
    def bfloat16(self, memory_format: Any = None) -> Tensor:
        """``self.to(ferrograd.bfloat16)``."""
    def cfloat(self, memory_format: Any = None) -> Tensor:
        """``self.to(ferrograd.complex64)``."""
    def cdouble(self, memory_format: Any = None) -> Tensor:
        """``self.to(ferrograd.complex128)``."""
    def long(self, memory_format: Any = None) -> Tensor:
        """``self.to(ferrograd.int64)``."""
    def int(self, memory_format: Any = None) -> Tensor:
        """``self.to(ferrograd.int32)``."""
    def short(self, memory_format: Any = None) -> Tensor:
        """``self.to(ferrograd.int16)``."""
    def char(self, memory_format: Any = None) -> Tensor:
        """``self.to(ferrograd.int8)``."""
    def byte(self, memory_format: Any = None) -> Tensor:
        """``self.to(ferrograd.uint8)``."""
    def bool(self, memory_format: Any = None) -> Tensor:
        """``self.to(ferrograd.bool)``."""

    # ---- shape ops, indexing, random fills ----
    def chunk(self, chunks: builtins.int, dim: builtins.int = 0) -> tuple[Tensor, ...]:  # function form
        """Splits into ``chunks`` views along ``dim``."""
    def diag(self, diagonal: builtins.int = 0) -> Tensor:  # function form
        """Diagonal of a matrix, or a matrix with a vector on its diagonal."""
    def diag_embed(  # function form
        self, offset: builtins.int = 0, dim1: builtins.int = -2, dim2: builtins.int = -1
    ) -> Tensor:
        """A tensor with each last-dim vector on diagonal ``offset`` of dims ``dim1`` and ``dim2``."""
    def diagflat(self, offset: builtins.int = 0) -> Tensor:  # function form
        """A square matrix with every element, flattened, on diagonal ``offset``."""
    def diagonal(  # function form
        self, offset: builtins.int = 0, dim1: builtins.int = 0, dim2: builtins.int = 1
    ) -> Tensor:
        """A view of the diagonal selected by ``offset``, ``dim1`` and ``dim2``."""
    def flatten(self, start_dim: builtins.int = 0, end_dim: builtins.int = -1) -> Tensor:  # function form
        """Flattens dims ``start_dim``..``end_dim`` into one."""
    def flip(self, *args: _ShapeArg, dims: _ShapeArg | None = None) -> Tensor:  # function form
        """Reverses the order of elements along ``dims``."""
    def fliplr(self) -> Tensor:  # function form
        """Flips along dim 1."""
    def flipud(self) -> Tensor:  # function form
        """Flips along dim 0."""
    def take(self, index: Tensor) -> Tensor:  # function form
        """The elements at the int64 ``index``'s row-major positions (negative from the end), shaped as it."""
    def gather(self, dim: builtins.int, index: Tensor) -> Tensor:  # function form
        """Values along ``dim`` at positions ``index``."""
    def index_add(  # function form
        self, dim: builtins.int, index: Tensor, source: Tensor, *, alpha: _Float = 1.0
    ) -> Tensor:
        """Adds ``source`` at ``index`` along ``dim``, out of place."""
    def index_add_(self, dim: builtins.int, index: Tensor, source: Tensor, *, alpha: _Float = 1.0) -> Tensor:
        """In-place ``index_add``."""
    def index_fill(self, dim: builtins.int, index: Tensor, value: _Operand) -> Tensor:  # function form
        """The slices of ``dim`` at ``index`` set to ``value`` (a number or a 0-d tensor), out of place."""
    def index_copy(self, dim: builtins.int, index: Tensor, source: Tensor) -> Tensor:  # function form
        """The slices of ``dim`` at ``index`` set to the slices of ``source``, out of place."""
    def index_put(  # function form
        self, indices: tuple[Tensor, ...] | list[Tensor], values: Tensor, accumulate: builtins.bool = False
    ) -> Tensor:
        """``self[indices] = values`` (``+=`` when ``accumulate``), out of place."""
    def masked_scatter(self, mask: Tensor, source: Tensor) -> Tensor:  # function form
        """``source``'s leading elements written in order where ``mask`` is True, out of place."""
    def scatter_reduce(  # function form
        self, dim: builtins.int, index: Tensor, src: Tensor, reduce: str, *, include_self: builtins.bool = True
    ) -> Tensor:
        """``src`` combined into ``self`` at ``index`` along ``dim`` by ``reduce`` (sum, prod, mean, amax, amin)."""
    def select_scatter(self, src: Tensor, dim: builtins.int, index: builtins.int) -> Tensor:  # function form
        """A copy with ``self.select(dim, index)`` replaced by ``src``."""
    def slice_scatter(  # function form
        self,
        src: Tensor,
        dim: builtins.int = 0,
        start: builtins.int | None = None,
        end: builtins.int | None = None,
        step: builtins.int = 1,
    ) -> Tensor:
        """A copy with the slice ``start:end:step`` of ``dim`` replaced by ``src``."""
    def diagonal_scatter(  # function form
        self, src: Tensor, offset: builtins.int = 0, dim1: builtins.int = 0, dim2: builtins.int = 1
    ) -> Tensor:
        """A copy with ``self.diagonal(offset, dim1, dim2)`` replaced by ``src``."""
    def argwhere(self) -> Tensor:  # function form
        """The indices of the nonzero elements, one row each (``nonzero()``)."""
    def repeat_interleave(  # function form
        self,
        repeats: Tensor | builtins.int | None = None,
        dim: builtins.int | None = None,
        *,
        output_size: builtins.int | None = None,
    ) -> Tensor:
        """Each element (slice of ``dim``; of the flattened tensor without ``dim``) repeated ``repeats`` times; with
        no ``repeats``, this tensor holds the counts and the result is their indices."""
    def index_select(self, dim: builtins.int, index: Tensor) -> Tensor:  # function form
        """Slices along ``dim`` at the positions in ``index``."""
    def masked_fill(self, mask: Tensor, value: _Operand) -> Tensor:  # function form
        """Fills positions where ``mask`` is True with ``value``."""
    def masked_fill_(self, mask: Tensor, value: _Operand) -> Tensor:
        """In-place ``masked_fill``."""
    def masked_select(self, mask: Tensor) -> Tensor:  # function form
        """A 1-D tensor of the elements where ``mask`` is True."""
    def moveaxis(self, source: _Dims, destination: _Dims) -> Tensor:  # function form
        """Alias of ``movedim``."""
    def movedim(self, source: _Dims, destination: _Dims) -> Tensor:  # function form
        """Moves dims ``source`` to positions ``destination`` (a view)."""
    def narrow(self, dim: builtins.int, start: builtins.int | Tensor, length: builtins.int) -> Tensor:  # function form
        """A view of ``length`` elements from ``start`` along ``dim``."""
    def nonzero(self, *, as_tuple: _Bool = False) -> Tensor | tuple[Tensor, ...]:  # function form
        """Indices of the nonzero elements."""
    def normal_(self, mean: _Float = 0.0, std: _Float = 1.0, *, generator: Generator | None = None) -> Tensor:
        """Fills with samples from a normal distribution, in place."""
    def repeat(self, *sizes: _ShapeArg) -> Tensor:
        """Repeats the tensor along each dim."""
    def roll(self, shifts: _Dims, dims: _Dims | None = None) -> Tensor:  # function form
        """Rolls elements along ``dims`` by ``shifts``."""
    def scatter(  # function form
        self,
        dim: builtins.int,
        index: Tensor,
        src: _Operand | None = None,
        value: _Operand | None = None,
        *,
        reduce: str | None = None,
    ) -> Tensor:
        """Writes ``src`` (or ``value``) at ``index`` along ``dim``, out of place."""
    def scatter_(
        self,
        dim: builtins.int,
        index: Tensor,
        src: _Operand | None = None,
        value: _Operand | None = None,
        *,
        reduce: str | None = None,
    ) -> Tensor:
        """In-place ``scatter``."""
    def scatter_add(self, dim: builtins.int, index: Tensor, src: Tensor) -> Tensor:  # function form
        """Adds ``src`` at ``index`` along ``dim``, out of place."""
    def scatter_add_(self, dim: builtins.int, index: Tensor, src: Tensor) -> Tensor:
        """In-place ``scatter_add``."""
    def split(  # function form
        self, split_size_or_sections: builtins.int | Sequence[builtins.int], dim: builtins.int = 0
    ) -> tuple[Tensor, ...]:
        """Splits into views of ``split_size_or_sections`` along ``dim``."""
    def swapaxes(self, axis0: builtins.int, axis1: builtins.int) -> Tensor:  # function form
        """Alias of ``transpose``."""
    def swapdims(self, dim0: builtins.int, dim1: builtins.int) -> Tensor:  # function form
        """Alias of ``transpose``."""
    def take_along_dim(self, indices: Tensor, dim: builtins.int | None = None) -> Tensor:  # function form
        """Values at ``indices`` along ``dim`` (or of the flattened tensor)."""
    def tile(self, *dims: _ShapeArg) -> Tensor:  # function form
        """Repeats the tensor, numpy-style."""
    def tril(self, diagonal: builtins.int = 0) -> Tensor:  # function form
        """Lower triangle (``diagonal`` offset); the rest zero."""
    def triu(self, diagonal: builtins.int = 0) -> Tensor:  # function form
        """Upper triangle (``diagonal`` offset); the rest zero."""
    def type_as(self, other: Tensor) -> Tensor:
        """This tensor in the dtype of ``other``."""
    def unbind(self, dim: builtins.int = 0) -> tuple[Tensor, ...]:  # function form
        """Views of every slice along ``dim``."""
    def unflatten(self, dim: builtins.int, sizes: _ShapeArg) -> Tensor:  # function form
        """Expands ``dim`` into the shape ``sizes``."""
    def bernoulli(self, p: builtins.float | None = None, *, generator: Generator | None = None) -> Tensor:
        """0/1 samples with probability ``p``, or each element's value when ``p`` is None."""
    def multinomial(
        self, num_samples: builtins.int, replacement: builtins.bool = False, *, generator: Generator | None = None
    ) -> Tensor:
        """Indices drawn from each row's (unnormalized) probabilities."""
    def uniform_(self, from_: _Float = 0.0, to: _Float = 1.0, *, generator: Generator | None = None) -> Tensor:
        """Fills with samples from U(from, to), in place."""
    def bernoulli_(self, p: builtins.float | Tensor | None = None, *, generator: Generator | None = None) -> Tensor:
        """Fills with 1 with probability p (a number, default 0.5, or a tensor broadcast to this shape), else 0."""
    def exponential_(self, lambd: _Float = 1.0, *, generator: Generator | None = None) -> Tensor:
        """Fills with samples from Exp(lambd) (rate lambd), in place."""
    @property
    def mT(self) -> Tensor:
        """The transpose of the last two dims (a view)."""

def tensor(
    data: _TensorData,
    *,
    dtype: _DType | None = None,
    device: _Device = None,
    requires_grad: _Bool = False,
) -> Tensor:
    """Creates a tensor by copying ``data`` (nested sequences, numbers, NumPy arrays or tensors); the dtype is inferred
    unless given."""

def ones(
    *args: _ShapeArg,
    size: _ShapeArg | None = None,
    out: Tensor | None = None,
    dtype: _DType | None = None,
    device: _Device = None,
    requires_grad: _Bool = False,
) -> Tensor:
    """A tensor filled with 1 of shape ``size`` (``ones(2, 3)``, ``ones((2, 3))`` or ``ones(size=(2, 3))``); float32 by
    default."""

def zeros(
    *args: _ShapeArg,
    size: _ShapeArg | None = None,
    out: Tensor | None = None,
    dtype: _DType | None = None,
    device: _Device = None,
    requires_grad: _Bool = False,
) -> Tensor:
    """A tensor filled with 0 of shape ``size`` (``zeros(2, 3)``, ``zeros((2, 3))`` or ``zeros(size=(2, 3))``); float32
    by default."""

def full(
    size: _ShapeArg,
    fill_value: _Number,
    *,
    out: Tensor | None = None,
    dtype: _DType | None = None,
    device: _Device = None,
    requires_grad: _Bool = False,
) -> Tensor:
    """A tensor of shape ``size`` filled with ``fill_value``; the dtype defaults to that of ``fill_value``."""

def arange(
    start: _Number,
    end: _Number | None = None,
    step: _Number | None = None,
    *,
    out: Tensor | None = None,
    dtype: _DType | None = None,
    device: _Device = None,
    requires_grad: _Bool = False,
) -> Tensor:
    """1-D tensor of values from ``start`` (default 0) to ``end`` (exclusive) by ``step``; int64 unless an argument is
    a float."""

def tril_indices(
    row: builtins.int,
    col: builtins.int,
    offset: builtins.int = 0,
    *,
    dtype: _DType | None = None,
    device: _Device = None,
) -> Tensor:
    """The [2, N] coordinates, row by row, of a ``row`` x ``col`` matrix's elements on or below diagonal ``offset``."""

def triu_indices(
    row: builtins.int,
    col: builtins.int,
    offset: builtins.int = 0,
    *,
    dtype: _DType | None = None,
    device: _Device = None,
) -> Tensor:
    """The [2, N] coordinates, row by row, of a ``row`` x ``col`` matrix's elements on or above diagonal ``offset``."""

def rand(
    *args: _ShapeArg,
    size: _ShapeArg | None = None,
    generator: Generator | None = None,
    out: Tensor | None = None,
    dtype: _DType | None = None,
    device: _Device = None,
    requires_grad: _Bool = False,
) -> Tensor:
    """A tensor of shape ``size`` with uniform random values in ``[0, 1)``; float32 by default."""

def randn(
    *args: _ShapeArg,
    size: _ShapeArg | None = None,
    generator: Generator | None = None,
    out: Tensor | None = None,
    dtype: _DType | None = None,
    device: _Device = None,
    requires_grad: _Bool = False,
) -> Tensor:
    """A tensor of shape ``size`` with standard normal random values; float32 by default."""

def manual_seed(seed: builtins.int) -> Generator:
    """Seeds the default random generator and returns it."""

@final
class Generator:
    """A random number generator; sampling functions take one as ``generator=`` (else the default one)."""

    def __new__(cls, device: Any = None) -> Self: ...
    def manual_seed(self, seed: builtins.int) -> Self:
        """Seeds the generator; returns it."""
    def seed(self) -> builtins.int:
        """Seeds the generator nondeterministically; returns the seed."""
    def initial_seed(self) -> builtins.int:
        """The seed the generator was last seeded with."""
    def get_state(self) -> Tensor:
        """The generator's state as a uint8 tensor (a ByteTensor, as PyTorch's; for ``set_state``)."""
    def set_state(self, new_state: Tensor) -> Self:
        """Restores a state from ``get_state``; returns the generator."""
    @property
    def device(self) -> str:
        """Always ``'cpu'``."""

default_generator: Generator

def from_numpy(ndarray: np.ndarray[Any, Any]) -> Tensor:
    """A tensor sharing memory with a NumPy array (float64/32/16, int64/32/16/8, uint8 or bool); writes are visible to
    both."""

def as_tensor(data: Any, dtype: _DType | None = None, device: _Device = None) -> Tensor:
    """``data`` as a tensor without a copy when possible: a tensor itself, or a NumPy array's memory when the dtype
    matches."""

def from_dlpack(ext: Any) -> Tensor:
    """A tensor sharing memory with a DLPack producer (an object with ``__dlpack__``, or a capsule)."""

def get_num_threads() -> builtins.int: ...
def _autocast_cpu_is_enabled() -> builtins.bool: ...
def _autocast_cpu_set_enabled(enabled: builtins.bool) -> None: ...
def _autocast_cpu_get_dtype() -> dtype: ...
def _autocast_cpu_set_dtype(dtype: dtype) -> None: ...
def _autocast_cache_is_enabled() -> builtins.bool: ...
def _autocast_set_cache_enabled(enabled: builtins.bool) -> None: ...
def _autocast_increment_nesting() -> builtins.int: ...
def _autocast_decrement_nesting() -> builtins.int: ...
def _autocast_clear_cache() -> None: ...
def _autocast_cache_len() -> builtins.int: ...
def set_num_threads(num: builtins.int) -> None: ...
def is_grad_enabled() -> _Bool:
    """True if gradient recording is currently enabled on this thread."""

def _set_grad_enabled(mode: _Bool) -> _Bool:
    """Enables or disables gradient recording on this thread; returns the previous mode."""

def _empty_pool() -> None:
    """Returns the large buffers kept for reuse to the system."""

def _unary_ops() -> list[tuple[str, str, builtins.bool]]:
    """The core's registry of argument-free unary ops as (method name, docstring, whether integer inputs keep
    their dtype) (tools/gen_api.py)."""

def _param_unary_ops() -> list[tuple[str, str, str, list[tuple[str, str, str]]]]:
    """The core's registry of ``nn.functional``'s elementwise activations as (name, docstring, flag:
    ``inplace``, ``inplace_arg`` or "", [(parameter, Rust type, default or "")]) (tools/gen_api.py)."""

def _method_forms() -> list[tuple[str, str, builtins.bool]]:
    """Aliases and in-place forms of other methods as (name, original, in-place form of it) (tools/gen_api.py)."""

def _grad_fn_names() -> list[str]:
    """Every ``grad_fn`` name the core's backward rules can produce, sorted (custom functions name themselves)."""

def _set_inference_mode(mode: _Bool) -> _Bool:
    """Marks new tensors as inference tensors on this thread; returns the previous mode."""

def is_inference_mode_enabled() -> _Bool:
    """True inside ``inference_mode`` on this thread."""

def _set_anomaly_enabled(mode: _Bool, check_nan: _Bool = True) -> None:
    """Turns anomaly detection on or off (for every thread)."""

def is_anomaly_enabled() -> _Bool:
    """True while anomaly detection is on."""

def is_anomaly_check_nan_enabled() -> _Bool:
    """True if anomaly detection also checks backward outputs for NaN."""

def _panic_for_tests(kind: str) -> None:
    """Test hook, not public API: a panic ("panic") or an impossible allocation ("allocation") in the core."""

def _allocator_round_trip(size: int, align: int) -> tuple[_Bool, int, int, _Bool]:
    """Test hook, not public API: one block through the extension's allocator (zeroed, plain, grown twofold):
    zeroed read as zeros, the two addresses modulo `align`, the bytes kept by growing."""

def _check_new_shape(shape: Sequence[int], dtype: dtype) -> None:
    """RuntimeError when a tensor of `shape` and `dtype` cannot be allocated (nothing is allocated)."""

def _set_default_meta(meta: builtins.bool) -> None:
    """Whether factories called without ``device=`` make meta tensors (set by ``ferrograd.set_default_device``)."""

def _profiler_start(record_shapes: _Bool) -> None:
    """Starts timing ops, backward nodes and user ranges (RuntimeError if a profile already runs)."""

def _profiler_enabled() -> _Bool:
    """True while a profile runs."""

def _profiler_stop() -> list[tuple[str, int, int, int, int, list[list[int]] | None, int]]:
    """Stops the profile; its events as (name, kind, start ns, end ns, thread, input shapes, sequence nr)."""

def _profiler_now() -> int:
    """The profiler's clock, in nanoseconds."""

def _profiler_buffered() -> tuple[int, int]:
    """Test hook, not public API: the length and capacity of the core's event buffer."""

def _profiler_record_range(name: str, start_ns: int) -> None:
    """Ends a user range begun at `start_ns` on this thread (nothing when no profile runs)."""

def _grad(
    outputs: Sequence[Tensor],
    inputs: Sequence[Tensor],
    grad_outputs: Sequence[Tensor | None],
    retain_graph: _Bool,
    create_graph: _Bool,
    allow_unused: _Bool,
) -> tuple[Tensor | None, ...]:
    """Core of ``autograd.grad``: gradients of ``outputs`` w.r.t. ``inputs`` (None for unused ones when allowed)."""

def _special(name: str, input: Tensor) -> Tensor: ...
def _special_names() -> list[str]: ...
def _xlogy(input: _Operand, other: _Operand, name: str = ...) -> Tensor: ...
def _xlog1py(input: _Operand, other: _Operand) -> Tensor: ...
def _zeta(input: _Operand, other: _Operand) -> Tensor: ...
def _igamma(input: Tensor, other: Tensor, name: str = ...) -> Tensor: ...
def _igammac(input: Tensor, other: Tensor, name: str = ...) -> Tensor: ...
def _backward(
    tensors_: Sequence[Tensor],
    grad_tensors: Sequence[Tensor | None],
    retain_graph: _Bool,
    create_graph: _Bool,
    inputs: Sequence[Tensor] | None = None,
) -> None:
    """Core of ``autograd.backward``: accumulates into ``.grad`` of the leaves (or only of ``inputs``)."""

def _attach_custom(
    outputs: Sequence[Tensor],
    inputs: Sequence[Tensor],
    backward: Callable[[tuple[Tensor | None, ...], tuple[Tensor, ...]], Sequence[Tensor | None] | Tensor | None],
    name: str,
    saved: Sequence[Tensor],
) -> tuple[Tensor, ...]:
    """Gives ``outputs`` one backward node named ``name`` calling ``backward(grads, saved)``; returns the new
    outputs."""

def promote_types(type1: _DType, type2: _DType) -> _DType:
    """The smallest dtype to which both ``type1`` and ``type2`` can be converted without losing kind."""

def get_default_dtype() -> _DType:
    """The dtype of floats made without one (float32 unless ``set_default_dtype`` changed it)."""

def set_default_dtype(d: _DType) -> None:
    """Sets the dtype of floats made without one: factories, Python floats, ``tensor([1.5])``."""

@overload
def where(condition: Tensor, input: None = None, other: None = None) -> tuple[Tensor, ...]: ...
@overload
def where(condition: Tensor, input: _Operand, other: _Operand) -> Tensor:
    """Elements of ``input`` where ``condition`` (a bool tensor) is true, else of ``other``; tensors or numbers,
    broadcasting."""

# ---- kernels behind ``ferrograd.nn.functional`` (argument handling lives in Python) ----

def _nll_loss(
    input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: builtins.int, reduction: str
) -> Tensor:
    """Negative log-likelihood of log-probabilities ``input`` at class indices ``target``; ``reduction`` is 'mean',
    'sum' or 'none'."""

def _ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Sequence[builtins.int],
    target_lengths: Sequence[builtins.int],
    blank: builtins.int,
    reduction: str,
    zero_infinity: _Bool,
) -> Tensor:
    """Connectionist temporal classification loss of log-probabilities ``log_probs`` (T, N, C) or (T, C) against
    ``targets`` (N, S) padded or 1-D concatenated (CtcLossBackward0); ``reduction`` is 'mean', 'sum' or 'none'."""

def _without_derivative(values: Tensor, input: Tensor, op: str) -> Tensor:
    """``values`` (computed from ``input``) under torch's ``NotImplemented`` node for ``op``, an op torch gives no
    derivative: backward through it raises."""

def _mse_loss(input: Tensor, target: Tensor, reduction: str) -> Tensor:
    """Mean squared error between ``input`` and ``target``; ``reduction`` is 'mean', 'sum' or 'none'."""

def _linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``: one fused ``addmm`` with a bias (N-d contiguous inputs are flattened to 2-D)."""

def _chain_layers(modules: Any, input: Any) -> tuple[builtins.int, Any]:
    """Runs the leading plain ``Linear`` / ``ReLU`` modules of an ordered dict on ``input``: (how many, result)."""

def _register_chain_layers(linear: Any, linear_forward: Any, relu: Any, relu_forward: Any, module_call: Any) -> None:
    """Registers the classes ``_chain_layers`` runs (and the functions it stands for)."""

def searchsorted(
    sorted_sequence: Tensor,
    input: Tensor | _Float,
    *,
    out_int32: _Bool = False,
    right: _Bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
) -> Tensor:
    """For each value, where it would go in ``sorted_sequence`` (its last dim) to keep it sorted: before equal
    elements, or after them with ``right`` / ``side='right'``; ``sorter`` gives the sequence's sorted order."""

def bucketize(input: Tensor | _Float, boundaries: Tensor, *, out_int32: _Bool = False, right: _Bool = False) -> Tensor:
    """The bucket of each value among the 1-d sorted ``boundaries``: ``searchsorted(boundaries, input)``."""

def _tensordot(a: Tensor, b: Tensor, dims_a: list[builtins.int], dims_b: list[builtins.int]) -> Tensor:
    """``tensordot(a, b, dims=(dims_a, dims_b))``."""

def cdist(
    x1: Tensor, x2: Tensor, p: _Float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary"
) -> Tensor:
    """The p-norm distances between each row of ``x1`` (..., P, M) and each row of ``x2`` (..., R, M)."""

def pdist(input: Tensor, p: _Float = 2.0) -> Tensor:
    """The p-norm distances between the rows of a 2-d ``input``, for each pair i < j in row-major order."""

def _mul_number(input: Tensor, other: _Float) -> Tensor:
    """``input * other`` recorded as ATen's ``mul.Scalar`` (MulBackward1)."""

def _div_number(input: Tensor, other: _Float) -> Tensor:
    """``input / other`` recorded as ATen's ``div.Scalar`` (DivBackward1)."""

def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors (0-d as 1x1, 1-d as one row) down the diagonal of a zero matrix of their promoted dtype."""

def isin(
    elements: Tensor | _Float, test_elements: Tensor | _Float, *, assume_unique: _Bool = False, invert: _Bool = False
) -> Tensor:
    """Whether each of ``elements`` is among ``test_elements`` (negated with ``invert``), as bool."""

def var_mean(
    input: Tensor,
    dim: _Dims | None = None,
    unbiased: _Bool | None = None,
    keepdim: _Bool = False,
    *,
    correction: _Float | None = None,
) -> tuple[Tensor, Tensor]:
    """``(input.var(...), input.mean(...))`` over the same dims, from one node (VarMeanBackward0)."""

def std_mean(
    input: Tensor,
    dim: _Dims | None = None,
    unbiased: _Bool | None = None,
    keepdim: _Bool = False,
    *,
    correction: _Float | None = None,
) -> tuple[Tensor, Tensor]:
    """``(input.std(...), input.mean(...))`` over the same dims, from one node (StdMeanBackward0)."""

def cat(tensors: Any, dim: Any = ...) -> Tensor:
    """Concatenates tensors along ``dim``."""

def stack(tensors: Any, dim: Any = ...) -> Tensor:
    """Stacks tensors along a new dim ``dim``."""

def view_as_real(input: Tensor) -> Tensor:
    """A complex tensor's (re, im) pairs as a real tensor with a last dim of size 2, sharing its storage."""

def view_as_complex(input: Tensor) -> Tensor:
    """A float tensor whose last dim holds (re, im) pairs as a complex tensor, sharing its storage."""

def complex(real: Tensor, imag: Tensor) -> Tensor:
    """The complex tensor ``real + i imag`` (same-dtype float tensors, broadcast)."""

def polar(abs: Tensor, angle: Tensor) -> Tensor:
    """The complex tensor ``abs * (cos(angle) + i sin(angle))``."""

class LinAlgError(RuntimeError):
    """A matrix a linear-algebra routine cannot factor (singular, not positive-definite)."""

def _linalg_inv(a: Tensor) -> Tensor: ...
def _linalg_det(a: Tensor) -> Tensor: ...
def _linalg_slogdet(a: Tensor) -> tuple[Tensor, Tensor]: ...
def _logdet(a: Tensor) -> Tensor: ...
def _linalg_solve(a: Tensor, b: Tensor) -> Tensor: ...
def _linalg_cholesky(a: Tensor, upper: _Bool) -> Tensor: ...
def _linalg_eigh(a: Tensor, upper: _Bool) -> tuple[Tensor, Tensor]: ...
def _linalg_eig(a: Tensor) -> tuple[Tensor, Tensor]: ...
def _linalg_eigvals(a: Tensor) -> Tensor: ...
def _linalg_svd(a: Tensor, full_matrices: _Bool) -> tuple[Tensor, Tensor, Tensor]: ...
def _linalg_cross(a: Tensor, b: Tensor, dim: builtins.int) -> Tensor: ...
def _linalg_qr(a: Tensor, mode: str) -> tuple[Tensor, Tensor]: ...
def _linalg_solve_triangular(a: Tensor, b: Tensor, upper: _Bool, left: _Bool, unitriangular: _Bool) -> Tensor: ...
def _linalg_lstsq(
    a: Tensor, b: Tensor, rcond: builtins.float | None, driver: str | None
) -> tuple[Tensor, Tensor, Tensor, Tensor]: ...
def _linalg_lu_factor_ex(a: Tensor, pivot: _Bool, check_errors: _Bool, func: str) -> tuple[Tensor, Tensor, Tensor]: ...
def _linalg_lu(a: Tensor, pivot: _Bool) -> tuple[Tensor, Tensor, Tensor]: ...
def _lu_unpack(
    lu: Tensor, pivots: Tensor, unpack_data: _Bool, unpack_pivots: _Bool
) -> tuple[Tensor, Tensor, Tensor]: ...
def _linalg_lu_solve(lu: Tensor, pivots: Tensor, b: Tensor, left: _Bool, adjoint: _Bool) -> Tensor: ...
def _linalg_inv_ex(a: Tensor, check_errors: _Bool, func: str) -> tuple[Tensor, Tensor]: ...
def _linalg_solve_ex(a: Tensor, b: Tensor, check_errors: _Bool) -> tuple[Tensor, Tensor]: ...
def _linalg_cholesky_ex(a: Tensor, upper: _Bool, check_errors: _Bool) -> tuple[Tensor, Tensor]: ...
def _geqrf(a: Tensor) -> tuple[Tensor, Tensor]: ...
def _triangular_solve(
    b: Tensor, a: Tensor, upper: _Bool, transpose: _Bool, unitriangular: _Bool
) -> tuple[Tensor, Tensor]: ...
def einsum(equation: str, *operands: Tensor | Sequence[Tensor]) -> Tensor:
    """Einstein summation: any subscripts, ``...``, repeated subscripts (diagonals) and implicit output."""

def _randint(low: Any, high: Any, size: Any, generator: Generator | None = None) -> Tensor:
    """Backend of ``ferrograd.randint``."""

def _randperm(n: Any, generator: Generator | None = None) -> Tensor:
    """Backend of ``ferrograd.randperm``."""

def _sparse_mm(
    indices: Tensor, values: Tensor, dense: Tensor, rows: builtins.int, cols: builtins.int, sparse_grad: _Bool
) -> Tensor:
    """Backend of ``ferrograd.sparse.mm``: a sparse COO matrix (int64 ``[2, nnz]`` indices, 1-D values) times a
    dense one."""

def _orthogonal_polynomial(name: str, x: Tensor, n: Tensor) -> Tensor:
    """Backend of ``ferrograd.special``'s orthogonal polynomials (``name`` is torch's function name): ``x`` and
    ``n`` of one floating dtype, broadcast together."""

def _multinomial(probs: Any, num_samples: Any, replacement: Any, generator: Generator | None = None) -> Tensor:
    """Backend of ``ferrograd.multinomial``."""

def _dropout_mask(input: Tensor, p: float, generator: Generator | None = None) -> Tensor:
    """Dropout's mask for ``input``: ``1 / (1 - p)`` with probability ``1 - p``, else 0."""

def _check_piece_count(count: int) -> None: ...
def _standard_gamma(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Gamma(input, 1) draws as torch's CPU kernel makes them (no gradient: ``distributions`` attaches it)."""

def _sobol_table_dimensions() -> int:
    """How many dimensions of the Joe–Kuo direction numbers ``quasirandom.SobolEngine`` carries."""

def _sobol_initial_state(dimension: int) -> Tensor:
    """torch's ``sobolstate``: int64 ``(dimension, 30)``, the direction numbers as 30-bit integers."""

def _sobol_scramble(sobolstate: Tensor, shift_bits: Tensor, ltm: Tensor) -> tuple[Tensor, Tensor]:
    """(scrambled sobolstate, shift) from the 0/1 draws of torch's ``SobolEngine._scramble``."""

def _sobol_draw(
    quasi: Tensor, n: int, sobolstate: Tensor, num_generated: int, dtype: _DType | None = None
) -> tuple[Tensor, Tensor]:
    """``n`` Sobol points after ``quasi`` (the point of index ``num_generated``) and the last point's integers."""

def _sobol_fast_forward(quasi: Tensor, n: int, sobolstate: Tensor, num_generated: int) -> Tensor:
    """``quasi`` (the point of index ``num_generated``) moved ``n`` points on."""

def _poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Backend of ``ferrograd.poisson``: torch's CPU draws (PTRS from a rate of 10, else a product of uniforms)."""

def _binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """Backend of ``ferrograd.binomial`` (one shape and dtype): torch's CPU draws (BTRS from a mean of 10)."""

def _smooth_l1_loss(input: Tensor, target: Tensor, reduction: str, beta: _Float) -> Tensor:
    """Backend of ``nn.functional.smooth_l1_loss``; ``reduction`` is 'mean', 'sum' or 'none'."""

def _binary_cross_entropy(input: Tensor, target: Tensor, reduction: str, weight: Tensor | None = None) -> Tensor:
    """Backend of ``nn.functional.binary_cross_entropy``."""

def _binary_cross_entropy_with_logits(
    input: Tensor, target: Tensor, reduction: str, weight: Tensor | None = None, pos_weight: Tensor | None = None
) -> Tensor:
    """Backend of ``nn.functional.binary_cross_entropy_with_logits``."""

def _batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None,
    bias: Tensor | None,
    training: builtins.bool,
    momentum: float,
    eps: float,
) -> Tensor:
    """Backend of ``nn.functional.batch_norm`` (NativeBatchNormBackward0); moves the running statistics in training."""

def _layer_norm(
    input: Tensor, normalized_shape: Sequence[builtins.int], weight: Tensor | None, bias: Tensor | None, eps: float
) -> Tensor:
    """Backend of ``nn.functional.layer_norm`` (NativeLayerNormBackward0)."""

def pixel_shuffle(input: Tensor, upscale_factor: builtins.int) -> Tensor:
    """(*, C·r², H, W) → (*, C, H·r, W·r): each group of r² channels spread over an r×r block of pixels."""

def pixel_unshuffle(input: Tensor, downscale_factor: builtins.int) -> Tensor:
    """(*, C, H·r, W·r) → (*, C·r², H, W): the inverse of ``pixel_shuffle``."""

def grid_sampler(
    input: Tensor,
    grid: Tensor,
    interpolation_mode: builtins.int,
    padding_mode: builtins.int,
    align_corners: builtins.bool,
) -> Tensor:
    """``nn.functional.grid_sample``'s kernel, 2-D or 3-D by the input's rank; modes as torch's codes: 0 bilinear,
    1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection (GridSampler2DBackward0/GridSampler3DBackward0)."""

def grid_sampler_2d(
    input: Tensor,
    grid: Tensor,
    interpolation_mode: builtins.int,
    padding_mode: builtins.int,
    align_corners: builtins.bool,
) -> Tensor:
    """``grid_sampler`` for a 4-D input (N, C, H, W) and grid (N, H_out, W_out, 2)."""

def grid_sampler_3d(
    input: Tensor,
    grid: Tensor,
    interpolation_mode: builtins.int,
    padding_mode: builtins.int,
    align_corners: builtins.bool,
) -> Tensor:
    """``grid_sampler`` for a 5-D input (N, C, D, H, W) and grid (N, D_out, H_out, W_out, 3)."""

def affine_grid_generator(theta: Tensor, size: Sequence[builtins.int], align_corners: builtins.bool) -> Tensor:
    """``nn.functional.affine_grid``'s kernel: the output points' (x, y[, z], 1) times each θ
    (AffineGridGeneratorBackward0)."""

def _embedding_bag(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    mode: str,
    per_sample_weights: Tensor | None,
    include_last_offset: _Bool,
    padding_idx: builtins.int | None,
    scale_grad_by_freq: _Bool,
) -> Tensor:
    """Backend of ``nn.functional.embedding_bag`` (EmbeddingBagBackward0): 1-D indices cut into bags at
    ``offsets``."""

def _embedding_bag_with_aux(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    mode: str,
    per_sample_weights: Tensor | None,
    include_last_offset: _Bool,
    padding_idx: builtins.int | None,
    scale_grad_by_freq: _Bool,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Backend of ``torch.embedding_bag``: the bags and torch's offset2bag, bag_size and max_indices."""

def _embedding(indices: Tensor, weight: Tensor, padding_idx: builtins.int | None) -> Tensor:
    """Backend of ``nn.functional.embedding`` (EmbeddingBackward0)."""

def _pad(input: Tensor, pad: Sequence[builtins.int], mode: str, value: _Number | None) -> Tensor:
    """Backend of ``nn.functional.pad``: 'constant', 'reflect' or 'replicate'."""

def _convolution(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Sequence[builtins.int],
    padding: Sequence[builtins.int],
    dilation: Sequence[builtins.int],
    groups: builtins.int,
) -> Tensor:
    """Batched conv1d/conv2d as im2col + GEMM (ConvolutionBackward0); window arguments are (h, w)."""

def _max_pool2d(
    input: Tensor,
    kernel: Sequence[builtins.int],
    stride: Sequence[builtins.int],
    padding: Sequence[builtins.int],
    dilation: Sequence[builtins.int],
    ceil_mode: _Bool,
) -> tuple[Tensor, Tensor]:
    """Backend of ``nn.functional.max_pool2d``: (values, int64 indices)."""

def _avg_pool2d(
    input: Tensor,
    kernel: Sequence[builtins.int],
    stride: Sequence[builtins.int],
    padding: Sequence[builtins.int],
    ceil_mode: _Bool,
    count_include_pad: _Bool,
    divisor_override: builtins.int | None = None,
) -> Tensor:
    """Backend of ``nn.functional.avg_pool2d`` (AvgPool2DBackward0)."""

def _adaptive_avg_pool2d(input: Tensor, output_size: Sequence[builtins.int]) -> Tensor:
    """Backend of ``nn.functional.adaptive_avg_pool2d`` (AdaptiveAvgPool2DBackward0)."""

def _convolution3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Sequence[builtins.int],
    padding: Sequence[builtins.int],
    dilation: Sequence[builtins.int],
    groups: builtins.int,
    output_padding: Sequence[builtins.int] | None = None,
) -> Tensor:
    """Batched conv3d as vol2col + GEMM, or with ``output_padding`` conv_transpose3d (ConvolutionBackward0);
    window arguments are (d, h, w)."""

def _max_pool3d(
    input: Tensor,
    kernel: Sequence[builtins.int],
    stride: Sequence[builtins.int],
    padding: Sequence[builtins.int],
    dilation: Sequence[builtins.int],
    ceil_mode: _Bool,
) -> tuple[Tensor, Tensor]:
    """Backend of ``nn.functional.max_pool3d``: (values, int64 indices)."""

def _avg_pool3d(
    input: Tensor,
    kernel: Sequence[builtins.int],
    stride: Sequence[builtins.int],
    padding: Sequence[builtins.int],
    ceil_mode: _Bool,
    count_include_pad: _Bool,
    divisor_override: builtins.int | None = None,
) -> Tensor:
    """Backend of ``nn.functional.avg_pool3d`` (AvgPool3DBackward0)."""

def _adaptive_avg_pool3d(input: Tensor, output_size: Sequence[builtins.int]) -> Tensor:
    """Backend of ``nn.functional.adaptive_avg_pool3d`` (AdaptiveAvgPool3DBackward0)."""

def _adaptive_max_pool3d(input: Tensor, output_size: Sequence[builtins.int]) -> tuple[Tensor, Tensor]:
    """Backend of ``nn.functional.adaptive_max_pool3d``: (values, int64 indices) (AdaptiveMaxPool3DBackward0)."""

def _fractional_max_pool(
    input: Tensor,
    dims: builtins.int,
    kernel_size: Sequence[builtins.int],
    output_size: Sequence[builtins.int],
    random_samples: Tensor,
) -> tuple[Tensor, Tensor]:
    """Backend of ``nn.functional.fractional_max_pool2d`` (``dims`` 2) and ``fractional_max_pool3d`` (3):
    (values, int64 indices) (FractionalMaxPool2DBackward0 / FractionalMaxPool3DBackward0)."""

def _max_unpool(
    input: Tensor,
    indices: Tensor,
    output_size: Sequence[builtins.int],
    stride: Sequence[builtins.int] | None = None,
) -> Tensor:
    """Backend of ``nn.functional.max_unpool2d`` (MaxUnpool2DBackward0), or of ``max_unpool3d``
    (MaxUnpool3DBackward0) when given its ``stride``."""

def _upsample(
    input: Tensor,
    mode: builtins.str,
    output_size: Sequence[builtins.int],
    scales: Sequence[builtins.float | None],
    align_corners: builtins.bool,
) -> Tensor:
    """Backend of ``nn.functional.interpolate`` (``Upsample<Mode><N>DBackward0``)."""

def _im2col(
    input: Tensor,
    kernel: Sequence[builtins.int],
    stride: Sequence[builtins.int],
    padding: Sequence[builtins.int],
    dilation: Sequence[builtins.int],
    out: Sequence[builtins.int],
) -> Tensor:
    """Backend of ``nn.functional.unfold`` on a 4-D input (Im2ColBackward0)."""

def _col2im(
    input: Tensor,
    output_size: Sequence[builtins.int],
    kernel: Sequence[builtins.int],
    stride: Sequence[builtins.int],
    padding: Sequence[builtins.int],
    dilation: Sequence[builtins.int],
    out: Sequence[builtins.int],
) -> Tensor:
    """Backend of ``nn.functional.fold`` on a 3-D input (Col2ImBackward0)."""

def _lstm_cell(gates: Tensor, cx: Tensor) -> tuple[Tensor, Tensor]:
    """One LSTM step's pointwise part: ``(h, c')`` from (B, 4H) gate pre-activations (i, f, g, o) and ``cx``."""

def _native_dropout_apply(input: Tensor, mask: Tensor, p: builtins.float, train: _Bool) -> Tensor:
    """``native_dropout``'s output: ``input * mask``, scaled by ``1 / (1 - p)`` in training (NativeDropoutBackward0),
    ``mask`` the kept elements."""

def _lstm_layer(
    input: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None,
    b_hh: Tensor | None,
    hx: Tensor,
    cx: Tensor,
    reverse: _Bool,
) -> tuple[Tensor, Tensor, Tensor]:
    """One LSTM layer and direction over time-major input: ``(output, h_n, c_n)``, one node
    (MkldnnRnnLayerBackward0)."""

def _scaled_dot_product_attention(
    query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None, scale: builtins.float, is_causal: builtins.bool
) -> Tensor:
    """Attention without dropout as one node (ScaledDotProductFlashAttentionForCpuBackward0)."""

def _save(obj: object, path: str | os.PathLike[str] | None = None) -> bytes | None:
    """Saves ``obj`` to ``path`` atomically, or returns the checkpoint's bytes when ``path`` is None."""

def _load(source: str | os.PathLike[str] | bytes, mmap: _Bool = False) -> Any:
    """Loads a checkpoint or any safetensors file from a path or from its bytes."""

def _storage_key(t: Tensor) -> tuple[builtins.int, builtins.int]:
    """``(key, numel)``: ``key`` is shared by tensors over one storage, ``numel`` the storage's length."""

def _linspace(start: float, end: float, steps: int, dtype: dtype | None) -> Tensor:
    """``linspace``'s values in ``dtype`` (the default float dtype when None), rounded as torch's CPU kernel."""

def _shared_fd(t: Tensor) -> tuple[builtins.int, builtins.int]:
    """``(fd, nbytes)`` of the tensor's storage, moved to shared memory first if it is not there yet."""

def _from_shared_fd(
    fd: builtins.int,
    nbytes: builtins.int,
    dtype: dtype,
    size: Sequence[builtins.int],
    stride: Sequence[builtins.int],
    storage_offset: builtins.int,
) -> Tensor:
    """A tensor over the shared file ``fd`` (duplicated), every size checked against the file first."""

def _storage_bytes(t: Tensor) -> bytes:
    """The bytes of the tensor's whole storage, in memory order."""

def _storage_crc32(t: Tensor) -> builtins.int:
    """The CRC-32 of the tensor's whole storage (its zip record's checksum)."""

def _write_storage(t: Tensor, fd: builtins.int) -> None:
    """Writes the tensor's whole storage to the file descriptor ``fd`` at its position."""

def _storage_from_bytes(
    data: bytes, dtype: dtype, offset: builtins.int, numel: builtins.int, name: str = "storage"
) -> Tensor:
    """``numel`` elements of ``dtype`` copied from ``data[offset:]`` (checked), as a flat tensor."""

def _view_of_storage(
    storage: Tensor, sizes: list[builtins.int], strides: list[builtins.int], storage_offset: builtins.int
) -> Tensor:
    """The view (sizes, strides, offset) of ``storage``'s storage, refused unless it stays inside it."""

@final
class _RecordFile:
    """A checkpoint file that storages are read from by byte range (copied, or from one private mapping)."""

    def __new__(cls, path: str | os.PathLike[str], mmap: builtins.bool = False) -> _RecordFile: ...
    def __len__(self) -> builtins.int: ...
    def storage(self, dtype: dtype, offset: builtins.int, numel: builtins.int, name: str = "storage") -> Tensor:
        """``numel`` elements of ``dtype`` at byte ``offset`` of the file (checked), as a flat tensor."""

@final
class _AtomicFile:
    """A file replaced atomically: written through ``fileno()``, then ``commit()`` or ``abort()``."""

    def __new__(cls, path: str | os.PathLike[str]) -> _AtomicFile: ...
    def fileno(self) -> builtins.int: ...
    def commit(self) -> None: ...
    def abort(self) -> None: ...

@final
class OptimRule:
    """The update rule of a fused optimizer: the state keys it keeps and ``step`` over all param groups."""

    Sgd: ClassVar[OptimRule]
    Adam: ClassVar[OptimRule]
    RmsProp: ClassVar[OptimRule]
    Adagrad: ClassVar[OptimRule]
    Adamax: ClassVar[OptimRule]
    NAdam: ClassVar[OptimRule]
    Adadelta: ClassVar[OptimRule]
    RAdam: ClassVar[OptimRule]
    Rprop: ClassVar[OptimRule]
    Asgd: ClassVar[OptimRule]
    def buffer_names(self, group: dict[str, Any]) -> list[str]:
        """PyTorch's state keys of the per-element buffers the rule keeps for ``group``'s options, in order."""
    @property
    def counters(self) -> list[tuple[str, float]]:
        """The 0-dim counters as ``(state key, first value)`` pairs, ``step`` first."""
    def step(self, groups: list[Any]) -> None:
        """Updates every parameter of the groups in place in one pass; each group is ``(options, params,
        grads, buffers, counters, fresh)``, one entry per parameter."""

