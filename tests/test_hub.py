"""`torch.hub`'s download half: a checkpoint fetched once into the cache directory and loaded, torch's hash
check on the file's name, `get_dir`/`set_dir`, and the `tqdm` programs import from it (pytorch/examples'
vision_transformer). Runs against torch too (FG_TEST_AGAINST_TORCH=1)."""

import hashlib
import os

import ferrograd as fg
import ferrograd.hub as hub
import pytest


@pytest.fixture
def hub_dir(tmp_path):
    before = hub.get_dir()
    hub.set_dir(str(tmp_path / "hub"))
    yield tmp_path / "hub"
    hub.set_dir(before)


def test_tqdm_is_importable_from_hub():
    from ferrograd.hub import tqdm

    with tqdm(total=3, disable=True) as bar:
        bar.update(3)


def test_set_dir_is_where_downloads_go(hub_dir):
    assert hub.get_dir() == str(hub_dir)


def test_load_state_dict_from_url_downloads_once_and_checks_the_hash(tmp_path, hub_dir):
    state = {"weight": fg.arange(6.0).reshape(2, 3), "bias": fg.ones(2)}
    source = tmp_path / "plain.pth"
    fg.save(state, source)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    named = tmp_path / f"model-{digest[:8]}.pth"
    os.rename(source, named)
    loaded = hub.load_state_dict_from_url(named.as_uri(), check_hash=True, progress=False, weights_only=True)
    assert loaded["weight"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and loaded["bias"].tolist() == [1.0, 1.0]
    cached = hub_dir / "checkpoints" / named.name
    assert cached.exists()
    named.unlink()  # a second call reads the cache, not the URL
    again = hub.load_state_dict_from_url(named.as_uri(), progress=False, weights_only=True)
    assert again["bias"].tolist() == [1.0, 1.0]
    wrong = tmp_path / "other-00000000.pth"
    fg.save(state, wrong)
    with pytest.raises(RuntimeError, match="invalid hash value"):
        hub.load_state_dict_from_url(wrong.as_uri(), check_hash=True, progress=False, weights_only=True)
    assert not (hub_dir / "checkpoints" / wrong.name).exists()  # nothing half-written stays


def test_the_factories_take_their_shape_as_size():
    """pytorch/examples' gat: `nn.Parameter(torch.empty(size=(in_features, out_features)))`."""
    assert fg.empty(size=(3, 4)).shape == (3, 4) and fg.empty(2, 3).shape == (2, 3)
    assert fg.ones(2).new_empty(size=(2, 5)).shape == (2, 5)
    for factory in (fg.zeros, fg.ones, fg.rand, fg.randn):
        assert factory(size=(2, 3)).shape == (2, 3) and factory(size=[4]).shape == (4,)
        assert factory(size=fg.Size([2, 1]), dtype=fg.float64).dtype == fg.float64
        with pytest.raises(TypeError):  # torch's words differ between zeros and rand; both are TypeErrors
            factory((2, 3), size=(2, 3))
    assert fg.zeros(size=(2,)).tolist() == [0.0, 0.0] and fg.ones(size=(1,)).tolist() == [1.0]
