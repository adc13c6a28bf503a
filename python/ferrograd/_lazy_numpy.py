"""numpy, imported on first use: `import ferrograd` must not pay numpy's import (~70 ms, 50x ours)."""


class _LazyNumpy:
    """Stands in for the numpy module; the first attribute access imports it."""

    def __getattr__(self, name):
        import numpy

        return getattr(numpy, name)


np = _LazyNumpy()
