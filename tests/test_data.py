"""ferrograd.utils.data: datasets, samplers, default_collate / default_convert and the DataLoader, with
torch.utils.data's results, errors and messages."""

import collections

import ferrograd as fg
import numpy as np
import pytest
from ferrograd.utils.data import (
    BatchSampler,
    ChainDataset,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    StackDataset,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    default_convert,
    get_worker_info,
    random_split,
)

Point = collections.namedtuple("Point", ["x", "y"])


def _arrays(n=10):
    rng = np.random.default_rng(0)
    return rng.uniform(-1, 1, (n, 3)).astype(np.float32), rng.integers(0, 5, n)


def _dataset(n=10):
    x, y = _arrays(n)
    return TensorDataset(fg.tensor(x), fg.tensor(y)), x, y


def _generator(seed):
    g = fg.Generator()
    g.manual_seed(seed)
    return g


def _np(t):
    return t.numpy()


# ---------------------------------------------------------------------------
# datasets
# ---------------------------------------------------------------------------


def test_tensor_dataset_rows_and_length():
    ds, x, y = _dataset()
    assert len(ds) == 10
    xi, yi = ds[3]
    np.testing.assert_array_equal(_np(xi), x[3])
    assert int(yi) == y[3]
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(fg.zeros(3, 2), fg.zeros(4))


def test_concat_subset_and_stack_datasets():
    a, xa, _ = _dataset(4)
    b, xb, _ = _dataset(6)
    both = a + b
    assert isinstance(both, ConcatDataset) and len(both) == 10 and both.cumulative_sizes == [4, 10]
    np.testing.assert_array_equal(_np(both[5][0]), xb[1])
    np.testing.assert_array_equal(_np(both[-1][0]), xb[5])
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        both[-11]
    sub = Subset(both, [9, 0, 4])
    assert len(sub) == 3
    np.testing.assert_array_equal(_np(sub[1][0]), xa[0])
    stacked = StackDataset(a, Subset(b, [0, 1, 2, 3]))
    assert len(stacked) == 4 and len(stacked[2]) == 2
    named = StackDataset(first=a, second=Subset(b, [0, 1, 2, 3]))
    assert set(named[0]) == {"first", "second"}
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(a, b)


def test_random_split_with_lengths_or_fractions_is_a_reproducible_partition():
    ds, _, _ = _dataset(10)
    parts = random_split(ds, [3, 7], generator=_generator(1))
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    again = random_split(ds, [3, 7], generator=_generator(1))
    assert [p.indices for p in again] == [p.indices for p in parts]
    fractions = random_split(ds, [0.5, 0.25, 0.25], generator=_generator(2))
    assert [len(p) for p in fractions] == [6, 2, 2]  # floors 5, 2, 2; the remainder goes to the first
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(ds, [3, 3])
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        random_split(ds, [0.5, 1.5, -1.0])


def test_iterable_and_chain_datasets():
    class Count(IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n

    chained = Count(3) + Count(2)
    assert isinstance(chained, ChainDataset)
    assert list(chained) == [0, 1, 2, 0, 1] and len(chained) == 5
    loader = DataLoader(Count(7), batch_size=3)
    assert len(loader) == 3
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in DataLoader(Count(7), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got shuffle=True"):
        DataLoader(Count(3), shuffle=True)


# ---------------------------------------------------------------------------
# samplers
# ---------------------------------------------------------------------------


def test_sequential_and_batch_samplers():
    assert list(SequentialSampler(range(5))) == [0, 1, 2, 3, 4]
    assert list(BatchSampler(SequentialSampler(range(7)), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(BatchSampler(SequentialSampler(range(7)), 3, True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(BatchSampler(range(7), 3, False)) == 3 and len(BatchSampler(range(7), 3, True)) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=0"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value, but got drop_last=1"):
        BatchSampler(range(3), 2, 1)


def test_random_sampler_is_a_permutation_reproducible_with_a_generator():
    first = list(RandomSampler(range(20), generator=_generator(5)))
    assert sorted(first) == list(range(20))
    assert list(RandomSampler(range(20), generator=_generator(5))) == first
    sampler = RandomSampler(range(20), generator=_generator(5))
    assert list(sampler) == first and list(sampler) != first  # the generator moves on between epochs
    more = list(RandomSampler(range(4), num_samples=10, generator=_generator(6)))
    assert len(more) == 10 and all(sorted(more[i : i + 4]) == [0, 1, 2, 3] for i in (0, 4))
    drawn = list(RandomSampler(range(3), replacement=True, num_samples=100, generator=_generator(7)))
    assert len(drawn) == 100 and set(drawn) == {0, 1, 2}
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got replacement=1"):
        RandomSampler(range(3), replacement=1)


def test_subset_and_weighted_random_samplers():
    picked = list(SubsetRandomSampler([10, 20, 30], generator=_generator(8)))
    assert sorted(picked) == [10, 20, 30]
    weighted = list(WeightedRandomSampler([0.0, 1.0, 3.0], 200, generator=_generator(9)))
    assert len(weighted) == 200 and set(weighted) == {1, 2}
    assert weighted.count(2) > weighted.count(1)
    unique = list(WeightedRandomSampler([1.0, 1.0, 1.0, 1.0], 4, replacement=False, generator=_generator(10)))
    assert sorted(unique) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="weights should be a 1d sequence but given weights have shape \\(2, 2\\)"):
        WeightedRandomSampler([[1.0, 2.0], [3.0, 4.0]], 2)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=True"):
        WeightedRandomSampler([1.0], True)


# ---------------------------------------------------------------------------
# collation
# ---------------------------------------------------------------------------


def test_default_collate_stacks_tensors_and_types_numbers_as_torch():
    batch = default_collate([fg.tensor([1.0, 2.0]), fg.tensor([3.0, 4.0])])
    np.testing.assert_array_equal(_np(batch), [[1.0, 2.0], [3.0, 4.0]])
    ints = default_collate([1, 2, 3])
    assert ints.dtype == fg.int64 and ints.tolist() == [1, 2, 3]
    floats = default_collate([1.5, 2.5])
    assert floats.dtype == fg.float64 and floats.tolist() == [1.5, 2.5]
    bools = default_collate([True, False])
    assert bools.dtype == fg.bool and bools.tolist() == [True, False]
    arrays = default_collate([np.ones(2, np.float32), np.zeros(2, np.float32)])
    assert arrays.dtype == fg.float32 and arrays.shape == (2, 2)
    scalars = default_collate([np.float32(1.0), np.float32(2.0)])
    assert scalars.dtype == fg.float32 and scalars.tolist() == [1.0, 2.0]
    assert default_collate(["a", "b"]) == ["a", "b"]


def test_default_collate_transposes_nested_structures():
    samples = [
        {"image": np.full((2,), i, np.float64), "label": i, "meta": (f"s{i}", [i, i * 10]), "p": Point(i, -i)}
        for i in range(3)
    ]
    batch = default_collate(samples)
    assert set(batch) == {"image", "label", "meta", "p"}
    assert batch["image"].dtype == fg.float64 and batch["image"].tolist() == [[0, 0], [1, 1], [2, 2]]
    assert batch["label"].tolist() == [0, 1, 2]
    names, pairs = batch["meta"]  # a tuple comes back as a list
    assert isinstance(batch["meta"], list)
    assert names == ("s0", "s1", "s2")  # strings stay as the transposed samples were
    assert isinstance(pairs, list) and [p.tolist() for p in pairs] == [[0, 1, 2], [0, 10, 20]]
    assert isinstance(batch["p"], Point) and batch["p"].x.tolist() == [0, 1, 2] and batch["p"].y.tolist() == [0, -1, -2]


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError) as info:
        default_collate([object(), object()])
    assert str(info.value) == (
        "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class 'object'>"
    )
    with pytest.raises(TypeError, match="found <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])


def test_default_convert_turns_numpy_into_tensors_and_keeps_the_rest():
    converted = default_convert({"a": np.arange(3), "b": (np.float64(1.5), "text"), "c": Point(np.ones(1), 2)})
    assert converted["a"].dtype == fg.int64 and converted["a"].tolist() == [0, 1, 2]
    assert isinstance(converted["b"], list) and float(converted["b"][0]) == 1.5 and converted["b"][1] == "text"
    assert isinstance(converted["c"], Point) and converted["c"].y == 2
    strings = np.array(["x", "y"])
    assert default_convert(strings) is strings


# ---------------------------------------------------------------------------
# DataLoader
# ---------------------------------------------------------------------------


def test_loader_batches_in_order_with_a_short_last_batch():
    ds, x, y = _dataset(10)
    loader = DataLoader(ds, batch_size=4)
    assert len(loader) == 3
    batches = list(loader)
    assert [len(b[1]) for b in batches] == [4, 4, 2]
    assert isinstance(batches[0], list)
    np.testing.assert_array_equal(_np(batches[2][0]), x[8:])
    np.testing.assert_array_equal(_np(batches[1][1]), y[4:8])
    assert batches[0][0].dtype == fg.float32 and batches[0][1].dtype == fg.int64
    dropped = DataLoader(ds, batch_size=4, drop_last=True)
    assert len(dropped) == 2 and [len(b[1]) for b in dropped] == [4, 4]
    assert len(DataLoader(ds)) == 10


def test_shuffle_is_reproducible_with_a_generator_and_covers_every_sample():
    ds, _, y = _dataset(10)
    ds = TensorDataset(fg.arange(10), fg.tensor(y))

    def epoch_orders(seed, epochs=2):
        loader = DataLoader(ds, batch_size=3, shuffle=True, generator=_generator(seed))
        return [[i for idx, _ in loader for i in idx.tolist()] for _ in range(epochs)]

    first = epoch_orders(11)
    assert first == epoch_orders(11)
    assert all(sorted(order) == list(range(10)) for order in first)
    assert first[0] != first[1]


def test_sampler_and_batch_sampler_options():
    ds, x, _ = _dataset(6)
    by_sampler = [b[0] for b in DataLoader(ds, batch_size=2, sampler=[5, 4, 3, 2, 1, 0])]
    np.testing.assert_array_equal(_np(by_sampler[0]), x[[5, 4]])
    by_batches = [b[0] for b in DataLoader(ds, batch_sampler=[[0], [1, 2, 3], [5, 4]])]
    assert [len(b) for b in by_batches] == [1, 3, 2]
    np.testing.assert_array_equal(_np(by_batches[2]), x[[5, 4]])
    loader = DataLoader(ds, batch_sampler=[[0], [1, 2, 3]])
    assert loader.batch_size is None and len(loader) == 2


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"sampler": [0, 1], "shuffle": True}, "sampler option is mutually exclusive with shuffle"),
        (
            {"batch_sampler": [[0]], "batch_size": 2},
            "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last",
        ),
        (
            {"batch_sampler": [[0]], "drop_last": True},
            "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last",
        ),
        (
            {"batch_size": None, "drop_last": True},
            "batch_size=None option disables auto-batching and is mutually exclusive with drop_last",
        ),
        (
            {"num_workers": -1},
            "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.",
        ),
        ({"timeout": -1}, "timeout option should be non-negative"),
        ({"persistent_workers": True}, "persistent_workers option needs num_workers > 0"),
        ({"prefetch_factor": 2}, "prefetch_factor option could only be specified in multiprocessing"),
        ({"batch_size": 0}, "batch_size should be a positive integer value, but got batch_size=0"),
    ],
)
def test_loader_argument_errors(kwargs, message):
    ds, _, _ = _dataset(4)
    with pytest.raises(ValueError) as info:
        DataLoader(ds, **kwargs)
    assert str(info.value).startswith(message)


def test_no_batching_converts_samples_one_by_one():
    class Pairs(Dataset):
        def __getitem__(self, i):
            return np.full(2, i), i

        def __len__(self):
            return 3

    samples = list(DataLoader(Pairs(), batch_size=None))
    assert len(samples) == 3
    arr, label = samples[2]
    assert isinstance(arr, fg.Tensor) and arr.tolist() == [2, 2] and label == 2


def test_custom_collate_fn_gets_the_list_of_samples():
    ds, x, _ = _dataset(5)
    seen = []

    def collate(samples):
        seen.append(samples)
        return len(samples)

    assert list(DataLoader(ds, batch_size=2, collate_fn=collate)) == [2, 2, 1]
    assert len(seen[0]) == 2 and isinstance(seen[0][0], tuple)
    np.testing.assert_array_equal(_np(seen[0][1][0]), x[1])


def test_the_loader_fetches_a_batch_through_getitems_when_the_dataset_has_it():
    class Batched(Dataset):
        def __init__(self):
            self.calls = []

        def __getitem__(self, i):
            raise AssertionError("fetched one by one")

        def __getitems__(self, indices):
            self.calls.append(list(indices))
            return [float(i) for i in indices]

        def __len__(self):
            return 5

    ds = Batched()
    batches = [b.tolist() for b in DataLoader(ds, batch_size=2)]
    assert batches == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    assert ds.calls == [[0, 1], [2, 3], [4]]
    sub = Subset(ds, [4, 3])
    assert [b.tolist() for b in DataLoader(sub, batch_size=2)] == [[4.0, 3.0]]


def test_a_subset_of_a_tensor_dataset_batches_as_indexing_would():
    ds, x, y = _dataset(10)
    sub = Subset(Subset(ds, [9, 8, 7, 6, 5]), [4, 0, 2])
    ((bx, by),) = list(DataLoader(sub, batch_size=3))
    np.testing.assert_array_equal(_np(bx), x[[5, 9, 7]])
    np.testing.assert_array_equal(_np(by), y[[5, 9, 7]])

    # a TensorDataset subclass with its own __getitem__ is read through it
    class Doubled(TensorDataset):
        def __getitem__(self, i):
            return tuple(t[i] * 2 for t in self.tensors)

        def __getitems__(self, indices):
            return [self[i] for i in indices]

    ((dx, _),) = list(DataLoader(Doubled(fg.tensor(x), fg.tensor(y)), batch_size=10))
    np.testing.assert_allclose(_np(dx), x * 2)


def test_setting_loader_attributes_after_init_is_refused():
    ds, _, _ = _dataset(4)
    loader = DataLoader(ds, batch_size=2)
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        loader.batch_size = 3


def test_pin_memory_warns_without_an_accelerator():
    ds, _, _ = _dataset(4)
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
        batches = list(DataLoader(ds, batch_size=2, pin_memory=True))
    assert len(batches) == 2


def test_worker_info_is_none_in_the_main_process():
    assert get_worker_info() is None


# ---------------------------------------------------------------------------
# worker processes
# ---------------------------------------------------------------------------


class _Tagged(Dataset):
    """Each sample says which worker loaded it, and carries a draw from that worker's generators."""

    def __getitem__(self, i):
        info = get_worker_info()
        return {"index": i, "worker": info.id, "workers": info.num_workers, "rand": fg.rand(1), "np": np.random.rand()}

    def __len__(self):
        return 12


def test_workers_load_the_same_batches_in_order():
    ds, x, y = _dataset(10)
    single = list(DataLoader(ds, batch_size=3))
    multi = list(DataLoader(ds, batch_size=3, num_workers=2))
    assert len(multi) == len(single) == 4
    for (a, b), (c, d) in zip(single, multi):
        np.testing.assert_array_equal(_np(a), _np(c))
        np.testing.assert_array_equal(_np(b), _np(d))
        assert c.dtype == fg.float32 and d.dtype == fg.int64
    shuffled = [b[1].tolist() for b in DataLoader(ds, batch_size=3, shuffle=True, generator=_generator(3))]
    in_workers = [
        b[1].tolist() for b in DataLoader(ds, batch_size=3, shuffle=True, generator=_generator(3), num_workers=2)
    ]
    assert in_workers == shuffled


def test_worker_info_init_fn_and_per_worker_seeds():
    loader = DataLoader(_Tagged(), batch_size=2, num_workers=2, worker_init_fn=lambda worker_id: None)
    batches = list(loader)
    assert [b["index"].tolist() for b in batches] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11]]
    assert {w for b in batches for w in b["worker"].tolist()} == {0, 1}
    assert all(b["workers"].tolist() == [2, 2] for b in batches)
    by_worker = {}
    for b in batches:
        by_worker.setdefault(b["worker"][0].item(), []).append((b["rand"][0].item(), b["np"][0].item()))
    first_draws = [draws[0] for draws in by_worker.values()]
    assert first_draws[0][0] != first_draws[1][0] and first_draws[0][1] != first_draws[1][1]


def test_worker_init_fn_runs_in_each_worker():
    class SeenInit(Dataset):
        def __getitem__(self, i):
            return getattr(get_worker_info().dataset, "initialized_by", -1)

        def __len__(self):
            return 4

    def init(worker_id):
        get_worker_info().dataset.initialized_by = worker_id

    got = [b.tolist() for b in DataLoader(SeenInit(), batch_size=1, num_workers=2, worker_init_fn=init)]
    assert sorted(v for b in got for v in b) == [0, 0, 1, 1]


def test_an_error_in_a_worker_is_raised_with_its_traceback():
    class Broken(Dataset):
        def __getitem__(self, i):
            if i == 3:
                raise ValueError("bad sample 3")
            return i

        def __len__(self):
            return 6

    loader = DataLoader(Broken(), batch_size=2, num_workers=2)
    with pytest.raises(ValueError, match="Caught ValueError in DataLoader worker process [01]") as info:
        list(loader)
    assert "bad sample 3" in str(info.value)


def test_iterable_datasets_shard_by_worker_info():
    class Sharded(IterableDataset):
        def __iter__(self):
            info = get_worker_info()
            return iter(range(info.id, 10, info.num_workers))

    batches = [b.tolist() for b in DataLoader(Sharded(), batch_size=2, num_workers=2)]
    assert sorted(v for b in batches for v in b) == list(range(10))


def test_structures_and_dtypes_survive_the_trip_from_a_worker():
    class Mixed(Dataset):
        def __getitem__(self, i):
            t = fg.tensor([float(i), 0.5])
            return Point(t.bfloat16(), {"half": t.half(), "name": f"n{i}", "flag": i % 2 == 0})

        def __len__(self):
            return 4

    (batch,) = list(DataLoader(Mixed(), batch_size=4, num_workers=1))
    assert isinstance(batch, Point)
    assert batch.x.dtype == fg.bfloat16 and batch.x.shape == (4, 2)
    assert batch.y["half"].dtype == fg.float16 and batch.y["name"] == ["n0", "n1", "n2", "n3"]
    assert batch.y["flag"].tolist() == [True, False, True, False]


def test_a_slow_worker_times_out():
    import time

    class Slow(Dataset):
        def __getitem__(self, i):
            time.sleep(1.5)
            return i

        def __len__(self):
            return 2

    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.3 seconds"):
        next(iter(DataLoader(Slow(), num_workers=1, timeout=0.3)))


def test_out_of_order_loading_and_stopping_early():
    ds, _, _ = _dataset(10)
    ds = TensorDataset(fg.arange(10))
    got = sorted(v for (b,) in DataLoader(ds, batch_size=2, num_workers=2, in_order=False) for v in b.tolist())
    assert got == list(range(10))
    for (first,) in DataLoader(ds, batch_size=2, num_workers=2):
        assert first.tolist() == [0, 1]
        break


def _hold_the_result_lock_in_worker_0(worker_id):
    """Worker 0 keeps the result queue's write lock a while after each send, as when it is preempted there."""
    if worker_id == 0:
        import time
        from multiprocessing import connection

        send = connection.Connection._send_bytes

        def slow_send(self, buf):
            send(self, buf)
            time.sleep(0.2)

        connection.Connection._send_bytes = slow_send


def test_a_worker_whose_iterable_ended_lets_the_others_send_theirs():
    # A worker that left as soon as its iterable ended could die with the lock every worker sends under, and
    # then worker 1's batches never came: the pass hung (here it would time out instead).
    import time

    class FirstWorkerEndsAtOnce(IterableDataset):
        def __iter__(self):
            if get_worker_info().id == 0:
                return iter([])
            time.sleep(0.5)  # worker 1 sends after worker 0 has been told to leave
            return iter(range(4))

    slow_lock = _hold_the_result_lock_in_worker_0
    loader = DataLoader(FirstWorkerEndsAtOnce(), batch_size=2, num_workers=2, timeout=30, worker_init_fn=slow_lock)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3]]


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_workers_started_by_another_method_load_too(method):
    # a forkserver's workers are the server's children, not the main process's: they must not take that
    # for their parent's death
    ds = TensorDataset(fg.arange(6))
    batches = [b.tolist() for (b,) in DataLoader(ds, batch_size=2, num_workers=2, multiprocessing_context=method)]
    assert batches == [[0, 1], [2, 3], [4, 5]]


def _die_holding_the_result_lock_in_worker_0(worker_id):
    """Worker 0 is killed right after its first send, before it lets go of the result queue's write lock."""
    if worker_id == 0:
        import os
        import signal
        from multiprocessing import connection

        send = connection.Connection._send_bytes

        def send_and_die(self, buf):
            send(self, buf)
            os.kill(os.getpid(), signal.SIGKILL)

        connection.Connection._send_bytes = send_and_die


def test_a_worker_killed_after_its_iterable_ended_is_reported(monkeypatch):
    # worker 1's batches can never come (worker 0 died with the lock), so the death must be reported even though
    # worker 0 had no work left
    import time

    from ferrograd.utils.data._utils import worker

    monkeypatch.setattr(worker, "MP_STATUS_CHECK_INTERVAL", 0.2)

    class FirstWorkerEndsAtOnce(IterableDataset):
        def __iter__(self):
            if get_worker_info().id == 0:
                return iter([])
            time.sleep(0.5)
            return iter(range(4))

    loader = DataLoader(
        FirstWorkerEndsAtOnce(), batch_size=2, num_workers=2, worker_init_fn=_die_holding_the_result_lock_in_worker_0
    )
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid"):
        list(loader)
