"""The stub's unary section and `ferrograd/_functions.py` are generated (tools/gen_api.py) from the core's
op registry and the stubs, and must match them: an op added or changed without `make generate` fails here."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _gen_api():
    spec = importlib.util.spec_from_file_location("gen_api", ROOT / "tools" / "gen_api.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_files_are_up_to_date():
    gen_api = _gen_api()
    for path, text in gen_api.generate().items():
        assert gen_api.up_to_date(path, text), (
            f"{path.relative_to(ROOT)} is stale (the op registry or a `# function form` stub changed): "
            "run `make generate`"
        )


def test_every_function_form_forwards_to_its_method():
    gen_api = _gen_api()
    source = gen_api.FUNCTIONS.read_text(encoding="utf-8")
    names = gen_api.function_form_names(gen_api.STUB.read_text(encoding="utf-8"), gen_api._core())
    assert len(names) > 100
    for name in names:
        assert f"def {name}(" in source
        assert f"return input.{name}(" in source
