"""matplotlib figures to CHW uint8 images (rendered with the Agg canvas, alpha dropped)."""

import numpy as np


def figure_to_image(figures, close=True):
    """One figure as a 3 x H x W array, or a list of them as N x 3 x H x W; each closed after if `close`."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def render(figure):
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        rgba = np.frombuffer(canvas.buffer_rgba(), dtype=np.uint8)
        width, height = figure.canvas.get_width_height()
        chw = np.moveaxis(rgba.reshape(height, width, 4)[:, :, :3], 2, 0)
        if close:
            plt.close(figure)
        return chw

    if isinstance(figures, list):
        return np.stack([render(f) for f in figures])
    return render(figures)
