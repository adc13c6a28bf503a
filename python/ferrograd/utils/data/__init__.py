"""`ferrograd.utils.data`: data loading (`DistributedSampler`: a rank's share of a data set)."""

from .distributed import DistributedSampler

__all__ = ["DistributedSampler"]
