"""`torch._dynamo.config`: the flags programs set, with torch's defaults. ferrograd's capture reads
`recompile_limit` (how many graphs a compiled function keeps); the others steer Dynamo's bytecode tracing,
which ferrograd's capture (it records the ops as they run) does not have, so setting one changes nothing."""

suppress_errors = False
verbose = False
cache_size_limit = 8
recompile_limit = 8
accumulated_cache_size_limit = 256
accumulated_recompile_limit = 256
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
automatic_dynamic_shapes = True
assume_static_by_default = True
optimize_ddp = True
