"""Records torch's nn.utils (packed sequences through RNNs, prune, parametrize, weight/spectral norm, fusion)
for tests/test_nn_utils_rnn.py and tests/test_nn_utils_prune_parametrize.py; run with torch's Python:
`PYTHONPATH=tools/torch_shim /work/torchvenv/bin/python tests/golden/record_nn_utils.py`."""

import json
import os
import warnings

import _torch_path  # noqa: F401  (first: `import ferrograd` is torch)
import nn_utils_cases as cases

if __name__ == "__main__":
    warnings.simplefilter("ignore")
    data = {
        "packed_rnn": [cases.packed_rnn_case(i) for i in range(len(cases.PACKED_RNN_CASES))],
        "packing": cases.packing_cases(),
        "packing_errors": cases.packing_errors(),
        "prune": cases.prune_cases(),
        "prune_errors": cases.prune_errors(),
        "parametrize": cases.parametrize_cases(),
        "norms": cases.norm_cases(),
        "fusion": cases.fusion_cases(),
        "transfer": cases.transfer_case(),
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_utils.json")
    with open(path, "w") as f:
        json.dump(data, f)
