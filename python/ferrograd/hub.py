"""`torch.hub`'s download half: `load_state_dict_from_url` (a checkpoint fetched once into the hub's cache
directory, then `ferrograd.load`), `download_url_to_file`, `get_dir`/`set_dir` and the `tqdm` programs import
from here (pytorch/examples' vision_transformer: `from torch.hub import tqdm`). `hub.load`/`list`/`help` run a
GitHub repository's `hubconf.py`, written against torch's own model code: refused, with that reason."""

import hashlib
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

try:
    from tqdm import tqdm
except ImportError:  # torch's stand-in: progress as a bare percentage on stderr

    class tqdm:  # type: ignore[no-redef]
        def __init__(self, total=None, disable=False, unit=None, *args, **kwargs):
            self.total, self.disable, self.n = total, disable, 0

        def update(self, n):
            if self.disable:
                return
            self.n += n
            shown = f"{self.n:.1f} bytes" if self.total is None else f"{100 * self.n / float(self.total):.1f}%"
            sys.stderr.write(f"\r{shown}")
            sys.stderr.flush()

        def set_description(self, *args, **kwargs):
            pass

        def write(self, s):
            sys.stderr.write(f"{s}\n")

        def close(self):
            self.disable = True

        def __enter__(self):
            return self

        def __exit__(self, exc_type, exc_val, exc_tb):
            if self.disable:
                return
            sys.stderr.write("\n")


_hub_dir = None
_CHUNK = 128 * 1024
_HASH_IN_NAME = re.compile(r"-([a-f0-9]*)\.")  # "resnet18-5c106cde.pth": the sha256's first digits


def get_dir():
    """Where downloads are cached: `set_dir`'s, else `$TORCH_HOME/hub` (`$XDG_CACHE_HOME/torch/hub`, else
    `~/.cache/torch/hub`)."""
    if _hub_dir is not None:
        return _hub_dir
    home = os.getenv("TORCH_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"), "torch"))
    return os.path.join(os.path.expanduser(home), "hub")


def set_dir(d):
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """`url`'s bytes into the file `dst`, written beside it first and renamed (never half a file); with
    `hash_prefix`, their sha256 must start with it (torch's RuntimeError otherwise)."""
    dst = os.path.expanduser(dst)
    folder = os.path.dirname(os.path.abspath(dst))
    with urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "torch.hub"})) as response:
        total = response.headers.get("Content-Length") if hasattr(response, "headers") else None
        sha = hashlib.sha256()
        with tempfile.NamedTemporaryFile(delete=False, dir=folder, suffix=".partial") as part:
            try:
                with tqdm(total=int(total) if total else None, disable=not progress, unit="B") as bar:
                    while chunk := response.read(_CHUNK):
                        part.write(chunk)
                        sha.update(chunk)
                        bar.update(len(chunk))
                part.close()
                digest = sha.hexdigest()
                if hash_prefix is not None and digest[: len(hash_prefix)] != hash_prefix:
                    raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
                shutil.move(part.name, dst)
            finally:
                part.close()
                if os.path.exists(part.name):
                    os.remove(part.name)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=False):  # fmt: skip
    """The object saved at `url` (a checkpoint), downloaded once into `model_dir` (`<hub dir>/checkpoints`),
    then loaded with `ferrograd.load`; `check_hash`: the sha256 must start with the hex digits after the last
    '-' of the file's name, as torch's published weights are named."""
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        found = _HASH_IN_NAME.search(filename) if check_hash else None
        download_url_to_file(url, cached, found.group(1) if found else None, progress=progress)
    from .serialization import load as _load

    return _load(cached, map_location=map_location, weights_only=weights_only)


def _refuse(what):
    raise NotImplementedError(
        f"torch.hub.{what} runs a GitHub repository's hubconf.py, written against torch's own model code; "
        "ferrograd does not fetch repositories: build the model in your program and load its weights with "
        "hub.load_state_dict_from_url"
    )


def load(repo_or_dir, model, *args, **kwargs):
    _refuse("load")


def list(github, force_reload=False, skip_validation=False, trust_repo=None, verbose=True):
    _refuse("list")


def help(github, model, force_reload=False, skip_validation=False, trust_repo=None):
    _refuse("help")
