"""Helpers of the DataLoader: collation (`collate`) and fetching samples (`fetch`)."""

from . import collate, fetch
