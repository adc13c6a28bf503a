"""The `Summary` protobufs `SummaryWriter` writes, with the contents torch's writer gives them: scalars (simple
values, or tensors for `new_style`), histograms (bucket counts trimmed to the occupied range), PNG images,
text for the text plugin, and the three hparams-plugin summaries."""

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

from ... import _core
from ._convert import make_np, to_uint8_image
from ._png import encode_png

__all__ = ["histogram", "hparams", "image", "scalar", "text"]


def scalar(name, value, new_style=False, double_precision=False):
    """One number under `name`: a `simple_value`, or with `new_style` a float (or double) tensor for the
    scalars plugin."""
    array = make_np(value).squeeze()
    if array.ndim != 0:
        raise AssertionError(
            f"Tensor should contain one element (0 dimensions). Was given size: {array.size} and {array.ndim} "
            "dimensions."
        )
    number = float(array)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=number)])
    if double_precision:
        proto = TensorProto(double_val=[number], dtype="DT_DOUBLE")
    else:
        proto = TensorProto(float_val=[number], dtype="DT_FLOAT")
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=metadata)])


def _tensorflow_bins():
    """TensorBoard's default bucket edges: +-1e-12 growing by 10% to 1e20, and 0 (torch's `default_bins`)."""
    edges = []
    v = 1e-12
    while v < 1e20:
        edges.append(v)
        v *= 1.1
    return [-e for e in reversed(edges)] + [0] + edges


_DEFAULT_BINS: list[float] = []


def default_bins():
    if not _DEFAULT_BINS:
        _DEFAULT_BINS.extend(_tensorflow_bins())
    return _DEFAULT_BINS


def make_histogram(values, bins, max_bins=None):
    """A HistogramProto of `values`: numpy's bucket counts (merged down to `max_bins` buckets), kept from one
    bucket before the first occupied one to the last occupied one, and the values' min, max, count, sum and
    sum of squares."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        group = len(counts) // max_bins
        short = len(counts) % group
        if short:
            counts = np.pad(counts, (0, group - short))
        counts = counts.reshape(-1, group).sum(axis=-1)
        limits = np.concatenate([limits[:-1:group], limits[-1:]])
    occupied = np.flatnonzero(counts)
    if occupied.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    first, last = int(occupied[0]), int(occupied[-1])
    # TensorBoard draws each bucket from the previous limit: one empty bucket before the first occupied one
    if first > 0:
        counts = counts[first - 1 : last + 1]
    else:
        counts = np.concatenate([[0], counts[: last + 1]])
    limits = limits[first : last + 2]
    return HistogramProto(
        min=values.min(),
        max=values.max(),
        num=len(values),
        sum=values.sum(),
        sum_squares=values.dot(values),
        bucket_limit=limits.tolist(),
        bucket=counts.tolist(),
    )


def histogram(name, values, bins, max_bins=None):
    return Summary(value=[Summary.Value(tag=name, histo=make_histogram(make_np(values).astype(float), bins, max_bins))])


def image(tag, value, dataformats="NCHW"):
    """A PNG image of `value`: floats in [0, 1] or uint8, laid out as `dataformats` says."""
    pixels = to_uint8_image(make_np(value), dataformats)
    height, width, channels = pixels.shape
    encoded = encode_png(pixels)
    return Summary(
        value=[
            Summary.Value(
                tag=tag,
                image=Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=encoded),
            )
        ]
    )


def text(tag, text_string):
    """`text_string` for the text plugin, under `tag + "/text_summary"` (torch's tag)."""
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

    plugin_data = SummaryMetadata.PluginData(plugin_name="text", content=TextPluginData(version=0).SerializeToString())
    proto = TensorProto(
        dtype="DT_STRING",
        string_val=[text_string.encode(encoding="utf_8")],
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]),
    )
    return Summary(
        value=[
            Summary.Value(tag=tag + "/text_summary", metadata=SummaryMetadata(plugin_data=plugin_data), tensor=proto)
        ]
    )


def _hparam_info(name, value, domain, kinds):
    """The HParamInfo of one hyperparameter and how its value is set on a SessionStartInfo."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams.api_pb2 import DataType, HParamInfo

    field, data_type = kinds
    discrete = None
    if domain is not None:
        discrete = struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d}) for d in domain])
    return HParamInfo(name=name, type=DataType.Value(data_type), domain_discrete=discrete)


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    """The experiment, session-start and session-end summaries of the hparams plugin for one run."""
    from tensorboard.plugins.hparams.api_pb2 import Experiment, MetricInfo, MetricName, Status
    from tensorboard.plugins.hparams.metadata import (
        EXPERIMENT_TAG,
        PLUGIN_DATA_VERSION,
        PLUGIN_NAME,
        SESSION_END_INFO_TAG,
        SESSION_START_INFO_TAG,
    )
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData, SessionEndInfo, SessionStartInfo

    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    hparam_domain_discrete = hparam_domain_discrete or {}
    if not isinstance(hparam_domain_discrete, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in hparam_domain_discrete.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(
                f"parameter: hparam_domain_discrete[{k}] should be a list of same type as hparam_dict[{k}]."
            )
    infos = []
    start = SessionStartInfo()
    for k, v in hparam_dict.items():
        if v is None:
            continue
        domain = hparam_domain_discrete.get(k)
        # a bool is an int here, so it is logged as a number (as torch logs it)
        if isinstance(v, (int, float)):
            start.hparams[k].number_value = v
            infos.append(_hparam_info(k, v, domain, ("number_value", "DATA_TYPE_FLOAT64")))
        elif isinstance(v, str):
            start.hparams[k].string_value = v
            infos.append(_hparam_info(k, v, domain, ("string_value", "DATA_TYPE_STRING")))
        elif isinstance(v, _core.Tensor):
            start.hparams[k].number_value = float(make_np(v).reshape(-1)[0])
            infos.append(_hparam_info(k, v, None, ("number_value", "DATA_TYPE_FLOAT64")))
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")

    def plugin_summary(tag, **content):
        data = HParamsPluginData(version=PLUGIN_DATA_VERSION, **content)
        metadata = SummaryMetadata(
            plugin_data=SummaryMetadata.PluginData(plugin_name=PLUGIN_NAME, content=data.SerializeToString())
        )
        return Summary(value=[Summary.Value(tag=tag, metadata=metadata)])

    experiment = Experiment(hparam_infos=infos, metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    return (
        plugin_summary(EXPERIMENT_TAG, experiment=experiment),
        plugin_summary(SESSION_START_INFO_TAG, session_start_info=start),
        plugin_summary(SESSION_END_INFO_TAG, session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))),
    )
