"""`torch._inductor.config`: the code generator's settings that programs set before `torch.compile`
(nanoGPT-style scripts and gpt-fast set `coordinate_descent_tuning`, `triton.unique_kernel_names`,
`fx_graph_cache`), with torch's defaults. They tune generated Triton/C++ code, which ferrograd does not
generate, so setting one changes nothing."""

import types

coordinate_descent_tuning = False
coordinate_descent_check_all_directions = False
epilogue_fusion = True
max_autotune = False
max_autotune_gemm = False
freezing = False
fx_graph_cache = True
force_disable_caches = False
cpp_wrapper = False
debug = False
# torch's nested settings namespace for its GPU code
triton = types.SimpleNamespace(cudagraphs=False, unique_kernel_names=True, cudagraph_trees=True)
