"""What `weight_norm` and `spectral_norm` share: taking their forward pre-hook off a module again."""


def remove_norm_hook(module, name, hook_class, label):
    """Removes the `hook_class` pre-hook that reparametrizes `module.<name>` (it puts back one plain parameter);
    torch's ValueError naming `label` when there is none."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, hook_class) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"{label} of '{name}' not found in {module}")
