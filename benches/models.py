"""Models the benchmarks share, built from whichever framework's `nn` they are given (ferrograd's or torch's)."""


def lenet(nn):
    """LeNet-5 for 1×32×32 images: two 5×5 convolutions with max pooling, then three linear layers."""
    return nn.Sequential(
        nn.Conv2d(1, 6, 5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(400, 120),
        nn.ReLU(),
        nn.Linear(120, 84),
        nn.ReLU(),
        nn.Linear(84, 10),
    )


def cnn3d(nn):
    """A small 3-D CNN for 3×16×32×32 volumes: two 3×3×3 convolutions (8 filters) around a max pool, then an
    adaptive average pool and a linear layer."""
    return nn.Sequential(
        nn.Conv3d(3, 8, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool3d(2),
        nn.Conv3d(8, 8, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool3d(1),
        nn.Flatten(),
        nn.Linear(8, 10),
    )
