"""Train a small CNN (and an MLP) on scikit-learn's 8x8 handwritten digits, with ferrograd as torch.

    make demo                          # or: pip install 'ferrograd[examples]' && python examples/train_digits.py

1,797 images ship inside scikit-learn (no download). The script splits them into train and test sets,
trains with a tqdm progress bar, saves a checkpoint and loads it back into a fresh model, prints the test
accuracy of each model, and writes two pictures: the loss curves and a grid of the misclassified digits.
The same file runs on PyTorch with `--torch`.
"""

import argparse
import math
import os
import sys

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--out", default="examples/out", help="folder for the checkpoint and the pictures")
parser.add_argument("--torch", action="store_true", help="run on PyTorch instead (for comparison)")
parser.add_argument("--quiet", action="store_true", help="no progress bar")
args = parser.parse_args()

if args.torch:
    import torch
else:
    import ferrograd as torch

nn = torch.nn
DataLoader, TensorDataset = torch.utils.data.DataLoader, torch.utils.data.TensorDataset

try:
    import matplotlib
    from sklearn.datasets import load_digits
    from tqdm import tqdm
except ImportError as e:
    sys.exit(f"this example needs scikit-learn, matplotlib and tqdm: pip install 'ferrograd[examples]' ({e})")

matplotlib.use("Agg")  # files only, no window
import matplotlib.pyplot as plt  # noqa: E402


class DigitsCNN(nn.Module):
    """Two 3x3 convolutions (8x8 -> 4x4 -> 2x2) and a linear classifier."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=3, padding=1),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.25), nn.Linear(32 * 2 * 2, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def digits_mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))


def load_data(generator):
    digits = load_digits()
    images = torch.tensor(digits.images, dtype=torch.float32).unsqueeze(1) / 16.0  # N x 1 x 8 x 8, in [0, 1]
    labels = torch.tensor(digits.target, dtype=torch.int64)
    order = torch.randperm(len(labels), generator=generator)
    n_test = 360  # 20%
    test, train = order[:n_test], order[n_test:]
    return (images[train], labels[train]), (images[test], labels[test])


def train(model, data, epochs, generator, name):
    loader = DataLoader(TensorDataset(*data), batch_size=32, shuffle=True, generator=generator)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    losses = []
    bar = tqdm(range(epochs), desc=name, disable=args.quiet, unit="epoch")
    for _ in bar:
        model.train()
        total, count = 0.0, 0
        for x, y in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(y)
            count += len(y)
        scheduler.step()
        losses.append(total / count)
        bar.set_postfix(loss=f"{losses[-1]:.4f}")
    return losses


@torch.no_grad()
def predict(model, images):
    model.eval()
    return model(images).argmax(dim=1)


def save_pictures(curves, images, labels, predicted, out):
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, losses in curves.items():
        ax.plot(range(1, len(losses) + 1), losses, label=name)
    ax.set_xlabel("epoch")
    ax.set_ylabel("training loss (cross-entropy)")
    ax.set_yscale("log")
    ax.legend()
    ax.set_title("ferrograd on the 8x8 digits" if torch.__name__ != "torch" else "PyTorch on the 8x8 digits")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "digits_loss.png"), dpi=120)
    plt.close(fig)

    wrong = (predicted != labels).nonzero().flatten().tolist()
    cols = max(1, min(8, len(wrong)))
    rows = max(1, math.ceil(len(wrong) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(max(5.0, 1.3 * cols), 1.5 * rows), squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    for ax, i in zip(axes.flat, wrong):
        ax.imshow(images[i, 0].tolist(), cmap="gray_r", vmin=0, vmax=1)
        ax.set_title(f"{labels[i].item()} as {predicted[i].item()}", fontsize=9, color="firebrick")
    fig.suptitle(f"misclassified test digits ({len(wrong)} of {len(labels)}): true as predicted", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "digits_misclassified.png"), dpi=120)
    plt.close(fig)


def main():
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    (train_x, train_y), (test_x, test_y) = load_data(generator)
    print(f"digits: {len(train_y)} training and {len(test_y)} test images of 8x8 pixels")

    curves = {}
    cnn, mlp = DigitsCNN(), digits_mlp()
    curves["CNN"] = train(cnn, (train_x, train_y), args.epochs, generator, "CNN")
    curves["MLP"] = train(mlp, (train_x, train_y), args.epochs, generator, "MLP")

    # a checkpoint round trip: the reloaded model must predict exactly as the trained one
    path = os.path.join(args.out, "digits_cnn.pt")  # PyTorch's format, from either framework
    torch.save(cnn.state_dict(), path)
    restored = DigitsCNN()
    restored.load_state_dict(torch.load(path, weights_only=True))
    predicted = predict(restored, test_x)
    assert torch.equal(predicted, predict(cnn, test_x)), "the reloaded checkpoint predicts differently"

    for name, model in [("CNN", restored), ("MLP", mlp)]:
        accuracy = (predict(model, test_x) == test_y).float().mean().item()
        print(f"{name} test accuracy: {100 * accuracy:.1f}%")
    print(f"checkpoint: {path}")

    save_pictures(curves, test_x, test_y, predicted, args.out)
    pictures = [os.path.join(args.out, name) for name in ("digits_loss.png", "digits_misclassified.png")]
    print(f"pictures: {', '.join(pictures)}")


if __name__ == "__main__":
    main()
