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
