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


def resnet_small(nn):
    """A CIFAR-style ResNet (He et al.'s 6n+2 layout with n = 1, 16/32/64 channels): a 3×3 convolution, three
    basic blocks (two 3×3 convolutions with BatchNorm, a 1×1 projection where the shape changes), global
    average pooling and a linear layer. Every convolution is followed by a BatchNorm2d, as in torchvision's."""

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.shortcut = nn.Sequential()
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + self.shortcut(x))

    return nn.Sequential(
        nn.Conv2d(3, 16, 3, 1, 1, bias=False),
        nn.BatchNorm2d(16),
        nn.ReLU(inplace=True),
        BasicBlock(16, 16, 1),
        BasicBlock(16, 32, 2),
        BasicBlock(32, 64, 2),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(64, 10),
    )
