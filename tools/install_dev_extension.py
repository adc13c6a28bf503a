"""Installs a built wheel's compiled module into the source tree, as an editable install of `python/`.

`make build` builds the extension exactly as `make wheel` does (release, linked through zig for manylinux2014),
so that a wheel built after the tests reuses every compiled crate: maturin's `develop` links differently, and
cargo would build everything a second time (a whole release build more in CI). This script then does what
`develop` would have: the module goes beside the Python sources, and the venv imports `python/` through
`ferrograd.pth`, with the wheel's metadata recorded as an editable install.

    python tools/install_dev_extension.py DIR_WITH_ONE_WHEEL
"""

import json
import os
import shutil
import sys
import sysconfig
import zipfile

MODULE = "ferrograd/_core.abi3.so"


def main(wheel_dir: str) -> None:
    wheels = [name for name in os.listdir(wheel_dir) if name.endswith(".whl")]
    if len(wheels) != 1:
        sys.exit(f"expected one wheel in {wheel_dir}, found {wheels}")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    source = os.path.join(root, "python")
    site = sysconfig.get_paths()["purelib"]
    with zipfile.ZipFile(os.path.join(wheel_dir, wheels[0])) as wheel:
        # A new file renamed over the old one: a running interpreter keeps the module it has mapped.
        target = os.path.join(source, MODULE)
        with wheel.open(MODULE) as src, open(target + ".tmp", "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.chmod(target + ".tmp", 0o755)
        os.replace(target + ".tmp", target)
        info = next(name.split("/")[0] for name in wheel.namelist() if name.endswith(".dist-info/METADATA"))
        for old in os.listdir(site):
            if old.startswith("ferrograd-") and old.endswith(".dist-info"):
                shutil.rmtree(os.path.join(site, old))
        os.makedirs(os.path.join(site, info))
        for name in ("METADATA", "WHEEL"):
            with open(os.path.join(site, info, name), "wb") as out:
                out.write(wheel.read(f"{info}/{name}"))
    extra = {
        "INSTALLER": "make\n",
        "direct_url.json": json.dumps({"dir_info": {"editable": True}, "url": f"file://{root}"}),
    }
    for name, text in extra.items():
        with open(os.path.join(site, info, name), "w") as out:
            out.write(text)
    with open(os.path.join(site, "ferrograd.pth"), "w") as out:
        out.write(source + "\n")
    files = [*(f"{info}/{name}" for name in ("METADATA", "WHEEL", *extra)), "ferrograd.pth", f"{info}/RECORD"]
    with open(os.path.join(site, info, "RECORD"), "w") as out:
        out.write("".join(f"{name},,\n" for name in files))


if __name__ == "__main__":
    main(sys.argv[1])
