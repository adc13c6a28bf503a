"""Datasets: `Dataset`, `IterableDataset`, `TensorDataset`, `StackDataset`, `ConcatDataset`, `ChainDataset`,
`Subset` and `random_split`, with `torch.utils.data`'s behaviour."""

import bisect
import itertools
import math
import warnings

from ... import _core
from ..._core import default_generator

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "StackDataset",
    "ConcatDataset",
    "ChainDataset",
    "Subset",
    "random_split",
]


class Dataset:
    """A map-style dataset: `dataset[i]` is a sample (subclasses define `__getitem__`, usually `__len__`).

    A subclass may also define `__getitems__(indices)`, returning the list of samples of a batch at once;
    the DataLoader then calls it instead of indexing sample by sample.
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset that is a stream of samples (subclasses define `__iter__`)."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


def _batch_index(indices):
    return _core.tensor(list(indices), dtype=_core.int64)


class TensorDataset(Dataset):
    """Samples are the `index`-th rows of each tensor (all of one length along dim 0)."""

    def __init__(self, *tensors):
        for t in tensors:
            if not isinstance(t, _core.Tensor):
                raise TypeError(f"TensorDataset(): expected Tensors, but got {type(t).__name__}")
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __getitems__(self, indices):
        """The samples of a batch: one index op per tensor, then the rows as views."""
        index = _batch_index(indices)
        columns = [tensor.index_select(0, index).unbind(0) for tensor in self.tensors]
        return list(zip(*columns))

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Samples are tuples (positional datasets) or dicts (keyword datasets) of the datasets' samples."""

    def __init__(self, *args, **kwargs):
        if args:
            if kwargs:
                raise ValueError(
                    "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like input/output, "
                    "but both types are given."
                )
            self._length = len(args[0])
            if any(self._length != len(dataset) for dataset in args):
                raise ValueError("Size mismatch between datasets")
            self.datasets = args
        elif kwargs:
            values = list(kwargs.values())
            self._length = len(values[0])
            if any(self._length != len(dataset) for dataset in values):
                raise ValueError("Size mismatch between datasets")
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __getitems__(self, indices):
        def column(dataset):
            if callable(getattr(dataset, "__getitems__", None)):
                items = dataset.__getitems__(indices)
                if len(items) != len(indices):
                    raise ValueError(
                        f"Nested dataset's output size mismatch. Expected {len(indices)}, got {len(items)}"
                    )
                return items
            return [dataset[i] for i in indices]

        if isinstance(self.datasets, dict):
            columns = {k: column(d) for k, d in self.datasets.items()}
            return [{k: columns[k][j] for k in columns} for j in range(len(indices))]
        return list(zip(*(column(d) for d in self.datasets)))

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """The datasets one after the other."""

    @staticmethod
    def cumsum(sequence):
        return list(itertools.accumulate(len(e) for e in sequence))

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of `dataset` at `indices`."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        if type(self).__getitem__ is not Subset.__getitem__ and type(self).__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. When subclassing Subset and "
                "overriding __getitem__, you must also override __getitems__ to ensure DataLoader works correctly "
                "with your custom logic. A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]"
            )

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        inner = [self.indices[i] for i in indices]
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(inner)
        return [self.dataset[i] for i in inner]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=default_generator):
    """Splits `dataset` into non-overlapping `Subset`s of the given lengths (or fractions of its length).

    The split is a random permutation drawn from `generator`: reproducible with a seeded `ferrograd.Generator`,
    though not the same permutation PyTorch draws for the same seed (the generators differ).
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * frac))
        remainder = len(dataset) - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.", stacklevel=2
                )
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = _core._randperm(sum(lengths), generator).tolist()
    return [
        Subset(dataset, indices[offset - length : offset])
        for offset, length in zip(itertools.accumulate(lengths), lengths)
    ]


def _collated_batch(dataset, indices):
    """`default_collate(dataset.__getitems__(indices))` computed directly, as one index op per tensor, for a
    `TensorDataset` (or a `Subset` of one) whose item methods are the stock ones; None for other datasets."""
    while getattr(type(dataset), "__getitems__", None) is Subset.__getitems__ and isinstance(dataset, Subset):
        indices = [dataset.indices[i] for i in indices]
        dataset = dataset.dataset
    if not isinstance(dataset, TensorDataset):
        return None
    if type(dataset).__getitem__ is not TensorDataset.__getitem__:
        return None
    if type(dataset).__getitems__ is not TensorDataset.__getitems__:
        return None
    index = _batch_index(indices)
    return [tensor.index_select(0, index) for tensor in dataset.tensors]
