"""`DistributedSampler`: each rank's share of a data set, for data-parallel training."""

import math

from .sampler import Sampler


class DistributedSampler(Sampler):
    """Yields the indices of rank `rank`'s share of `dataset`: every `num_replicas`-th index of one order of
    the whole set, so the shares are disjoint and (but for padding) cover it. With `shuffle`, the order is a
    permutation drawn from `seed + epoch`: the same on every rank, and a new one after `set_epoch(epoch)`.
    Without `drop_last` the order is padded with its own first indices up to a multiple of `num_replicas`
    (every rank then has `ceil(len(dataset) / num_replicas)` samples); with it, the tail is dropped.
    `num_replicas` and `rank` default to the default process group's world size and rank."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            from ... import distributed as dist

            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if drop_last and len(dataset) % num_replicas != 0:
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            import ferrograd  # the package, complete by now (it imports this module while loading)

            g = ferrograd.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = ferrograd.randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[: self.total_size]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Sets the epoch the next shuffled order is drawn for: call it on every rank before each epoch."""
        self.epoch = epoch
