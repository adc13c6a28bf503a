"""`ferrograd.utils.tensorboard.SummaryWriter` writing real event files, read back with TensorBoard's
`EventAccumulator`: scalars (tags, steps, values, wall times), `add_scalars` runs, histograms against torch's
recording, text, hparams, images (CHW/HWC/HW, float and uint8, grids) and figures decoded back to their pixels,
purge_step, the default log_dir, flush/close/reopen and bad input. Needs the tensorboard package (a dev
requirement); skipped as a whole without it."""

import os
import re
import socket
import subprocess
import sys

import ferrograd as fg
import numpy as np
import pytest
import tensorboard_cases as cases
from helpers import AGAINST_TORCH, golden

pytest.importorskip("tensorboard")
from ferrograd.utils.tensorboard import SummaryWriter
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

EVERYTHING = {"scalars": 0, "histograms": 0, "images": 0, "tensors": 0}


def _read(log_dir):
    events = EventAccumulator(str(log_dir), size_guidance=EVERYTHING)
    events.Reload()
    return events


def _event_files(log_dir):
    return sorted(f for f in os.listdir(log_dir) if f.startswith("events.out.tfevents."))


def _pixels(encoded):
    image = pytest.importorskip("PIL.Image")
    import io

    return np.asarray(image.open(io.BytesIO(encoded)))


# ---------------------------------------------------------------------------
# scalars
# ---------------------------------------------------------------------------


def test_scalars_round_trip_with_their_steps_and_wall_times(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.add_scalar("loss/train", fg.tensor(0.5), 0, walltime=100.0)
        writer.add_scalar("loss/train", fg.tensor([0.25], dtype=fg.float64), 1, walltime=101.0)
        writer.add_scalar("loss/train", 0.125, 2)
        writer.add_scalar("lr", np.float32(0.01), global_step=7)
        writer.add_scalar("accuracy", fg.tensor(3, dtype=fg.int64))
    events = _read(tmp_path)
    assert sorted(events.Tags()["scalars"]) == ["accuracy", "loss/train", "lr"]
    loss = events.Scalars("loss/train")
    assert [(s.step, s.value) for s in loss] == [(0, 0.5), (1, 0.25), (2, 0.125)]
    assert [s.wall_time for s in loss[:2]] == [100.0, 101.0]
    (lr,) = events.Scalars("lr")
    assert lr.step == 7 and lr.value == pytest.approx(0.01)
    (acc,) = events.Scalars("accuracy")
    assert acc.value == 3.0 and acc.step == 0


def test_new_style_scalars_are_tensors_for_the_scalars_plugin(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.add_scalar("f", 1.5, 0, new_style=True)
        writer.add_scalar("d", 1.0 / 3.0, 0, new_style=True, double_precision=True)
    events = _read(tmp_path)
    (f,) = events.Tensors("f")
    assert list(f.tensor_proto.float_val) == [1.5]
    (d,) = events.Tensors("d")
    assert list(d.tensor_proto.double_val) == [1.0 / 3.0]
    assert events.SummaryMetadata("f").plugin_data.plugin_name == "scalars"


def test_add_scalars_writes_one_run_per_tag(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        for step in range(3):
            writer.add_scalars("run/loss", {"train": 1.0 / (step + 1), "val": 2.0 + step}, step)
    runs = sorted(d for d in os.listdir(tmp_path) if (tmp_path / d).is_dir())
    assert runs == ["run_loss_train", "run_loss_val"]
    train = _read(tmp_path / "run_loss_train").Scalars("run/loss")
    val = _read(tmp_path / "run_loss_val").Scalars("run/loss")
    assert [s.value for s in train] == pytest.approx([1.0, 0.5, 1 / 3])
    assert [(s.step, s.value) for s in val] == [(0, 2.0), (1, 3.0), (2, 4.0)]


def test_a_scalar_must_be_one_number(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(AssertionError, match="Tensor should contain one element"):
            writer.add_scalar("x", fg.ones(2))
        with pytest.raises(NotImplementedError, match="but numpy array or torch tensor are expected"):
            writer.add_scalar("x", [1.0])


# ---------------------------------------------------------------------------
# histograms, text, hparams
# ---------------------------------------------------------------------------


def test_histograms_are_torchs(tmp_path):
    got = cases.histograms(fg, tmp_path)
    want = golden("tensorboard")["histograms"]
    assert sorted(got) == sorted(want)
    for tag, expected in want.items():
        actual = got[tag]
        assert actual["step"] == expected["step"], tag
        np.testing.assert_allclose(actual["stats"], expected["stats"], rtol=1e-12, err_msg=tag)
        assert actual["counts"] == expected["counts"], tag
        np.testing.assert_array_equal(actual["limits"], expected["limits"], err_msg=tag)


def test_histogram_input_errors(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(ValueError, match="^The input has no element.$"):
            writer.add_histogram("empty", fg.zeros(0))
        with pytest.raises(ValueError, match=re.escape("len(bucket_limits) != len(bucket_counts)")):
            writer.add_histogram_raw("raw", 0, 1, 2, 1, 1, [0.5, 1.0], [2])


def test_text(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.add_text("notes", "**lr** = 0.1", 3)
        writer.add_text("notes", "épocas: 2", 4)
    events = _read(tmp_path)
    assert events.Tags()["tensors"] == ["notes/text_summary"]
    texts = events.Tensors("notes/text_summary")
    assert [t.step for t in texts] == [3, 4]
    assert [t.tensor_proto.string_val[0].decode() for t in texts] == ["**lr** = 0.1", "épocas: 2"]
    assert events.SummaryMetadata("notes/text_summary").plugin_data.plugin_name == "text"


def test_hparams_go_to_a_sub_run_for_the_hparams_plugin(tmp_path):
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData

    with SummaryWriter(tmp_path) as writer:
        writer.add_hparams(
            {"lr": 0.1, "optimizer": "sgd", "batch": 32, "momentum": fg.tensor([0.9]), "unused": None},
            {"hparam/accuracy": 0.75, "hparam/loss": 0.5},
            hparam_domain_discrete={"optimizer": ["sgd", "adam"]},
            run_name="trial",
        )
    events = _read(tmp_path / "trial")
    content = events.PluginTagToContent("hparams")
    assert sorted(content) == ["_hparams_/experiment", "_hparams_/session_end_info", "_hparams_/session_start_info"]
    start = HParamsPluginData.FromString(content["_hparams_/session_start_info"]).session_start_info
    assert start.hparams["lr"].number_value == 0.1 and start.hparams["optimizer"].string_value == "sgd"
    assert start.hparams["batch"].number_value == 32
    assert start.hparams["momentum"].number_value == pytest.approx(0.9)
    assert "unused" not in start.hparams
    experiment = HParamsPluginData.FromString(content["_hparams_/experiment"]).experiment
    assert [info.name for info in experiment.hparam_infos] == ["lr", "optimizer", "batch", "momentum"]
    (optimizer,) = [info for info in experiment.hparam_infos if info.name == "optimizer"]
    assert [v.string_value for v in optimizer.domain_discrete.values] == ["sgd", "adam"]
    assert [m.name.tag for m in experiment.metric_infos] == ["hparam/accuracy", "hparam/loss"]
    end = HParamsPluginData.FromString(content["_hparams_/session_end_info"]).session_end_info
    assert end.status == 1  # STATUS_SUCCESS
    assert [s.value for s in events.Scalars("hparam/accuracy")] == [0.75]


def test_hparams_errors(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(TypeError, match="^hparam_dict and metric_dict should be dictionary.$"):
            writer.add_hparams([("lr", 0.1)], {})
        with pytest.raises(ValueError, match="value should be one of int, float, str, bool, or torch.Tensor"):
            writer.add_hparams({"layers": [1, 2]}, {})
        with pytest.raises(TypeError, match=re.escape("hparam_domain_discrete[lr] should be a list of same type")):
            writer.add_hparams({"lr": 0.1}, {}, hparam_domain_discrete={"lr": ["fast"]})


# ---------------------------------------------------------------------------
# images
# ---------------------------------------------------------------------------


def _image_values():
    rng = np.random.default_rng(4)
    return rng.uniform(0, 1, (3, 4, 5)).astype(np.float32)


def test_float_chw_and_hwc_images(tmp_path):
    chw = _image_values()
    with SummaryWriter(tmp_path) as writer:
        writer.add_image("chw", fg.tensor(chw), 0)
        writer.add_image("hwc", fg.tensor(chw.transpose(1, 2, 0)), 1, dataformats="HWC")
        writer.add_image("out_of_range", fg.tensor(chw * 3 - 1), 2)
    events = _read(tmp_path)
    want = (chw.transpose(1, 2, 0) * 255).astype(np.uint8)  # truncated, as torch does
    for tag in ("chw", "hwc"):
        (img,) = events.Images(tag)
        assert (img.height, img.width) == (4, 5)
        np.testing.assert_array_equal(_pixels(img.encoded_image_string), want)
    (clipped,) = events.Images("out_of_range")
    expected = ((chw * 3 - 1).transpose(1, 2, 0) * 255).clip(0, 255).astype(np.uint8)
    np.testing.assert_array_equal(_pixels(clipped.encoded_image_string), expected)


def test_uint8_grey_and_rgba_images(tmp_path):
    grey = np.arange(12, dtype=np.uint8).reshape(3, 4) * 20
    rgba = np.random.default_rng(5).integers(0, 256, (2, 3, 4), dtype=np.uint8)
    with SummaryWriter(tmp_path) as writer:
        writer.add_image("hw", fg.tensor(grey), 0, dataformats="HW")
        writer.add_image("one_channel", fg.tensor(grey[None]), 0)
        writer.add_image("rgba", fg.tensor(rgba), 0, dataformats="HWC")
        writer.add_image("numpy", grey[:, :, None], 0, dataformats="HWC")
    events = _read(tmp_path)
    for tag in ("hw", "one_channel", "numpy"):
        (img,) = events.Images(tag)
        np.testing.assert_array_equal(_pixels(img.encoded_image_string), np.stack([grey] * 3, 2), err_msg=tag)
    (img,) = events.Images("rgba")
    np.testing.assert_array_equal(_pixels(img.encoded_image_string), rgba)


def test_add_images_makes_a_grid_of_eight_to_a_row(tmp_path):
    batch = np.random.default_rng(6).uniform(0, 1, (10, 3, 2, 3)).astype(np.float32)
    with SummaryWriter(tmp_path) as writer:
        writer.add_images("batch", fg.tensor(batch), 0)
        writer.add_images("nhwc", fg.tensor(batch[:2].transpose(0, 2, 3, 1)), 0, dataformats="NHWC")
    events = _read(tmp_path)
    (grid,) = events.Images("batch")
    assert (grid.height, grid.width) == (4, 24)
    pixels = _pixels(grid.encoded_image_string)
    as_uint8 = (batch * 255).astype(np.uint8).transpose(0, 2, 3, 1)
    np.testing.assert_array_equal(pixels[0:2, 0:3], as_uint8[0])
    np.testing.assert_array_equal(pixels[0:2, 21:24], as_uint8[7])
    np.testing.assert_array_equal(pixels[2:4, 3:6], as_uint8[9])
    assert not pixels[2:4, 6:].any()  # the empty places
    (two,) = events.Images("nhwc")
    assert (two.height, two.width) == (2, 6)


def test_image_layout_errors(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(AssertionError, match="size of input tensor and input format are different"):
            writer.add_image("bad", fg.zeros(3, 4), 0)
        with pytest.raises(AssertionError, match="You can not use the same dimension shorthand twice"):
            writer.add_image("bad", fg.zeros(3, 4, 4), 0, dataformats="CHH")


def test_figures(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure = plt.figure(figsize=(2, 1), dpi=50)
    figure.add_subplot(1, 1, 1).plot([0, 1], [1, 0])
    others = [plt.figure(figsize=(1, 1), dpi=20) for _ in range(2)]
    with SummaryWriter(tmp_path) as writer:
        writer.add_figure("one", figure, 0)
        writer.add_figure("two", others, 0, close=False)
    assert not plt.fignum_exists(figure.number)
    assert all(plt.fignum_exists(f.number) for f in others)
    plt.close("all")
    events = _read(tmp_path)
    (one,) = events.Images("one")
    assert (one.height, one.width) == (50, 100)
    assert _pixels(one.encoded_image_string).shape == (50, 100, 3)
    (two,) = events.Images("two")
    assert (two.height, two.width) == (20, 40)


# ---------------------------------------------------------------------------
# the writer itself
# ---------------------------------------------------------------------------


def test_default_log_dir_is_runs_date_host_comment(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with SummaryWriter(comment="_lr0.1") as writer:
        log_dir = writer.get_logdir()
        writer.add_scalar("x", 1.0)
    pattern = r"runs/[A-Z][a-z]{2}\d{2}_\d{2}-\d{2}-\d{2}_" + re.escape(socket.gethostname()) + r"_lr0\.1"
    assert re.fullmatch(pattern, log_dir), log_dir
    assert _event_files(tmp_path / log_dir)


def test_filename_suffix_and_constructor_settings(tmp_path):
    writer = SummaryWriter(str(tmp_path), max_queue=3, flush_secs=5, filename_suffix=".ferro")
    writer.add_scalar("x", 1.0)
    writer.close()
    (name,) = _event_files(tmp_path)
    assert name.endswith(".ferro")
    assert (writer.max_queue, writer.flush_secs, writer.get_logdir()) == (3, 5, str(tmp_path))


def test_purge_step_is_written_first(tmp_path):
    with SummaryWriter(tmp_path, purge_step=5) as writer:
        writer.add_scalar("x", 1.0, 6)
    events = list(EventFileLoader(str(tmp_path / _event_files(tmp_path)[0])).Load())
    assert events[0].file_version == "brain.Event:2"
    assert events[1].step == 5 and events[1].file_version == "brain.Event:2"
    assert events[2].step == 5 and events[2].session_log.status == 1  # SessionLog.START
    assert events[3].step == 6


def test_flush_close_and_reopen(tmp_path):
    writer = SummaryWriter(tmp_path, flush_secs=10_000, max_queue=1000)
    writer.add_scalar("x", 1.0, 0)
    writer.flush()
    assert [s.value for s in _read(tmp_path).Scalars("x")] == [1.0]
    writer.close()
    writer.close()  # a second close does nothing
    writer.add_scalar("x", 2.0, 1)  # writing after close opens a new file
    writer.close()
    assert len(_event_files(tmp_path)) == 2
    assert [s.value for s in _read(tmp_path).Scalars("x")] == [1.0, 2.0]


@pytest.mark.skipif(AGAINST_TORCH, reason="torch's own message when tensorboard is missing")
def test_without_tensorboard_the_import_says_how_to_install_it():
    code = (
        "import sys\n"
        "sys.modules['tensorboard'] = None\n"
        "import ferrograd, ferrograd.utils\n"
        "try:\n"
        "    import ferrograd.utils.tensorboard\n"
        "except ImportError as e:\n"
        "    print(type(e).__name__, e.name, e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("ModuleNotFoundError tensorboard No module named 'tensorboard'")
    assert "pip install tensorboard" in out


@pytest.mark.skipif(AGAINST_TORCH, reason="what `import ferrograd` loads")
def test_import_ferrograd_does_not_load_tensorboard():
    code = "import ferrograd, ferrograd.utils, ferrograd.nn\nimport sys\nprint('tensorboard' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# ---------------------------------------------------------------------------
# embeddings (the projector plugin's files)
# ---------------------------------------------------------------------------

_PROJECTOR_CONFIG = """embeddings {
  tensor_name: "feat/one:00000"
  metadata_path: "00000/feat%2fone/metadata.tsv"
  tensor_path: "00000/feat%2fone/tensors.tsv"
}
embeddings {
  tensor_name: "default:00007"
  metadata_path: "00007/default/metadata.tsv"
  tensor_path: "00007/default/tensors.tsv"
}
"""


def test_add_embedding_writes_torchs_projector_files(tmp_path):
    """pytorch/tutorials' tensorboardyt tutorial logs features with their labels; the files are torch's byte for
    byte (recorded from torch 2.15)."""
    with SummaryWriter(str(tmp_path)) as writer:
        mat = fg.arange(12.0).reshape(4, 3) / 4
        writer.add_embedding(mat, metadata=["a", "b", 3, "d"], tag="feat/one")
        metadata = [["x", 1], ["y", 2], ["z", 3], ["w", 4]]
        writer.add_embedding(mat * 2, metadata=metadata, metadata_header=["name", "n"], global_step=7)
    assert (tmp_path / "projector_config.pbtxt").read_text() == _PROJECTOR_CONFIG
    first = tmp_path / "00000" / "feat%2fone"
    assert (first / "metadata.tsv").read_text() == "a\nb\n3\nd\n"
    assert (first / "tensors.tsv").read_text() == "0.0\t0.25\t0.5\n0.75\t1.0\t1.25\n1.5\t1.75\t2.0\n2.25\t2.5\t2.75\n"
    assert (tmp_path / "00007" / "default" / "metadata.tsv").read_text() == "name\tn\nx\t1\ny\t2\nz\t3\nw\t4\n"
    with pytest.raises(AssertionError, match="#labels should equal with #data points"):
        SummaryWriter(str(tmp_path / "bad")).add_embedding(mat, metadata=["a"])


def _png_pixels(encoded):
    """Pixels of a PNG: through Pillow when installed, else ferrograd's own unfiltered RGB encoding read back."""
    try:
        return _pixels(encoded)
    except pytest.skip.Exception:
        import struct
        import zlib

        width, height = struct.unpack(">II", encoded[16:24])
        data, at = b"", 8
        while at < len(encoded):
            (length,) = struct.unpack(">I", encoded[at : at + 4])
            if encoded[at + 4 : at + 8] == b"IDAT":
                data += encoded[at + 8 : at + 8 + length]
            at += 12 + length
        rows = np.frombuffer(zlib.decompress(data), dtype=np.uint8).reshape(height, 1 + width * 3)
        assert (rows[:, 0] == 0).all()
        return rows[:, 1:].reshape(height, width, 3)


def test_add_embedding_tiles_the_label_images_into_a_square_sprite(tmp_path):
    images = fg.zeros(3, 1, 2, 4)
    for i in range(3):
        images[i] = (i + 1) / 4
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_embedding(fg.ones(3, 2), label_img=images)
    pixels = _png_pixels((tmp_path / "00000" / "default" / "sprite.png").read_bytes())
    # ceil(sqrt(3)) = 2 images a row: a 4 x 8 grid on an 8 x 8 black square
    want = np.zeros((8, 8, 3), dtype=np.uint8)
    for i, value in enumerate((63, 127, 191)):
        row, col = divmod(i, 2)
        want[row * 2 : row * 2 + 2, col * 4 : col * 4 + 4] = value
    np.testing.assert_array_equal(pixels, want)
    assert "single_image_dim: 4\n    single_image_dim: 2" in (tmp_path / "projector_config.pbtxt").read_text()
