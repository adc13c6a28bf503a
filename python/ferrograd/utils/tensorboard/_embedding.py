"""The projector plugin's files for `SummaryWriter.add_embedding`: under `<step>/<tag>/` in the log dir,
`tensors.tsv` (one row a point), `metadata.tsv` (its labels, with a header row for several columns) and
`sprite.png` (the points' images tiled into one square), and `projector_config.pbtxt` listing every embedding,
laid out as torch's writer lays them out."""

import math
import os

import numpy as np

from ._convert import make_grid, make_np
from ._png import encode_png


def write_metadata(metadata, save_path, metadata_header=None):
    if metadata_header:
        if len(metadata_header) != len(metadata[0]):
            raise AssertionError("len of header must be equal to the number of columns in metadata")
        lines = ["\t".join(str(e) for e in row) for row in [metadata_header, *metadata]]
    else:
        lines = [str(x) for x in metadata]
    with open(os.path.join(save_path, "metadata.tsv"), "wb") as f:
        f.write(("\n".join(lines) + "\n").encode())


def write_sprite(label_img, save_path):
    """The N images (N x C x H x W, values in [0, 1]) tiled ceil(sqrt(N)) to a row on a square black canvas."""
    images = make_np(label_img)
    grid = make_grid(images, ncols=math.ceil(images.shape[0] ** 0.5))  # 3 x rows*H x cols*W
    side = grid.shape[2]
    square = np.zeros((side, side, 3))
    square[: grid.shape[1]] = grid.transpose(1, 2, 0)
    with open(os.path.join(save_path, "sprite.png"), "wb") as f:
        f.write(encode_png(np.uint8((square * 255).clip(0, 255))))


def write_matrix(mat, save_path):
    with open(os.path.join(save_path, "tensors.tsv"), "wb") as f:
        for row in mat:
            f.write(("\t".join(str(v.item()) for v in row) + "\n").encode())


def embedding_info(metadata, label_img, subdir, global_step, tag):
    from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo

    info = EmbeddingInfo()
    info.tensor_name = f"{tag}:{str(global_step).zfill(5)}"
    info.tensor_path = os.path.join(subdir, "tensors.tsv")
    if metadata is not None:
        info.metadata_path = os.path.join(subdir, "metadata.tsv")
    if label_img is not None:
        info.sprite.image_path = os.path.join(subdir, "sprite.png")
        info.sprite.single_image_dim.extend([label_img.shape[3], label_img.shape[2]])
    return info


def encode_tag(tag):
    """A tag as a directory name: '%', '/' and '\\' written as %xx, as torch's writer does."""
    return tag.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")
