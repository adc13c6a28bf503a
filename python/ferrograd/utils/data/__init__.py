"""`ferrograd.utils.data`: datasets, samplers and the DataLoader, as `torch.utils.data`.

A `DistributedSampler` (one shard of the indices per process) belongs beside the samplers here: any `Sampler`
with `__iter__` and `__len__` drives a DataLoader unchanged.
"""

from ._utils.collate import default_collate, default_convert
from .dataloader import DataLoader, _DatasetKind, get_worker_info
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
