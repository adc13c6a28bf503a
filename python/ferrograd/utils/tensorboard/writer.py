"""`SummaryWriter` and `FileWriter` (torch's API): summaries into TensorBoard event files, written by the
tensorboard package's `EventFileWriter` (a background thread, `max_queue` events or `flush_secs` apart)."""

import os
import time

from tensorboard.compat.proto import event_pb2
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import summary

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Events into one event file in `log_dir` (made if missing)."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()

    def reopen(self):
        self.event_writer.reopen()


def _default_log_dir(comment):
    """`runs/<Mon>DD_HH-MM-SS_<host><comment>`, torch's default."""
    import socket
    from datetime import datetime

    return os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_" + socket.gethostname() + comment)


class SummaryWriter:
    """Like `torch.utils.tensorboard.SummaryWriter(log_dir=None, comment="", purge_step=None, max_queue=10,
    flush_secs=120, filename_suffix="")`: `add_scalar`, `add_scalars`, `add_histogram`, `add_text`,
    `add_hparams`, `add_image`, `add_images`, `add_figure`, `add_embedding`, `flush`, `close`, and `with`
    blocks."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120, filename_suffix=""):
        if not log_dir:
            log_dir = _default_log_dir(comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()

    @property
    def default_bins(self):
        return summary.default_bins()

    def _get_file_writer(self):
        """The writer of `log_dir`, made again after `close()`; a `purge_step` is written once, first (it tells
        TensorBoard to drop the events a crashed run wrote at or after that step)."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=step, session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    # ---- what can be written ----

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False, double_precision=False):
        """One number (a Python number, a 1-element tensor or array) at `global_step`."""
        event = summary.scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision)
        self._get_file_writer().add_summary(event, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Several numbers under one chart: each tag's into its own run, `<log_dir>/<main_tag>_<tag>`."""
        walltime = time.time() if walltime is None else walltime
        logdir = self._get_file_writer().get_logdir()
        for tag, scalar_value in tag_scalar_dict.items():
            run = logdir + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(run)
            if writer is None:
                writer = FileWriter(run, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[run] = writer
            writer.add_summary(summary.scalar(main_tag, scalar_value), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        """The distribution of `values`; `bins` as numpy's `histogram` takes it, or TensorBoard's default
        exponential buckets ("tensorflow")."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = summary.default_bins()
        self._get_file_writer().add_summary(summary.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_histogram_raw(
        self, tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts, global_step=None, walltime=None
    ):  # torch's argument names
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        histo = summary.HistogramProto(
            min=min,
            max=max,
            num=num,
            sum=sum,
            sum_squares=sum_squares,
            bucket_limit=bucket_limits,
            bucket=bucket_counts,
        )
        event = summary.Summary(value=[summary.Summary.Value(tag=tag, histo=histo)])
        self._get_file_writer().add_summary(event, global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """An image: floats in [0, 1] or uint8, laid out as `dataformats` says (CHW, HWC, HW, ...)."""
        event = summary.image(tag, img_tensor, dataformats=dataformats)
        self._get_file_writer().add_summary(event, global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """A batch of images, shown as one grid (8 to a row)."""
        event = summary.image(tag, img_tensor, dataformats=dataformats)
        self._get_file_writer().add_summary(event, global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A matplotlib figure (or a list of them, as a grid), rendered to an image; closed unless `close`
        is False. Needs matplotlib."""
        from ._figure import figure_to_image

        dataformats = "NCHW" if isinstance(figure, list) else "CHW"
        self.add_image(tag, figure_to_image(figure, close), global_step, walltime, dataformats=dataformats)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Text (markdown) for the text plugin."""
        self._get_file_writer().add_summary(summary.text(tag, text_string), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None, global_step=None):
        """A run's hyperparameters and final metrics for the hparams plugin, in the sub-run `run_name`
        (the current time by default), with each metric also as a scalar there."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        experiment, start, end = summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        if not run_name:
            run_name = str(time.time())
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name)
        with SummaryWriter(log_dir=logdir) as run:
            for event in (experiment, start, end):
                run.file_writer.add_summary(event, global_step)
            for k, v in metric_dict.items():
                run.add_scalar(k, v, global_step)

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None, tag="default",
                      metadata_header=None):  # fmt: skip
        """Points (an N x D matrix) for the projector plugin, with their labels and images: files under
        `<global_step>/<tag>/` and an entry in the log dir's `projector_config.pbtxt` (`_embedding.py`)."""
        from google.protobuf import text_format
        from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

        from . import _embedding
        from ._convert import make_np

        mat = make_np(mat)
        if global_step is None:
            global_step = 0
        subdir = f"{str(global_step).zfill(5)}/{_embedding.encode_tag(tag)}"
        save_path = os.path.join(self._get_file_writer().get_logdir(), subdir)
        if os.path.exists(save_path):
            if not os.path.isdir(save_path):
                raise NotADirectoryError(f"Path: `{save_path}` exists, but is a file. Cannot proceed.")
            print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
        else:
            os.makedirs(save_path)
        if metadata is not None:
            if mat.shape[0] != len(metadata):
                raise AssertionError("#labels should equal with #data points")
            _embedding.write_metadata(metadata, save_path, metadata_header)
        if label_img is not None:
            if mat.shape[0] != label_img.shape[0]:
                raise AssertionError("#images should equal with #data points")
            _embedding.write_sprite(label_img, save_path)
        if mat.ndim != 2:
            raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
        _embedding.write_matrix(mat, save_path)
        # the config lists every embedding so far: kept here and rewritten whole
        if not hasattr(self, "_projector_config"):
            self._projector_config = ProjectorConfig()
        self._projector_config.embeddings.extend(
            [_embedding.embedding_info(metadata, label_img, subdir, global_step, tag)]
        )
        config = text_format.MessageToString(self._projector_config)
        with open(os.path.join(self._get_file_writer().get_logdir(), "projector_config.pbtxt"), "wb") as f:
            f.write(config.encode())

    # ---- files ----

    def flush(self):
        """Writes what is queued to disk."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self):
        """Flushes and closes every event file (a second close does nothing; writing again reopens)."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
