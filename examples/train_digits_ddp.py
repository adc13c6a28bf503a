"""Trains a small network on scikit-learn's 8x8 digits on N processes with DistributedDataParallel.

    pip install ferrograd[distributed] scikit-learn
    mpiexec -n 2 python examples/train_digits_ddp.py        # or -n 4, or across machines (README)

Each rank trains on its own share of every epoch (DistributedSampler); gradients are averaged over the ranks
during backward, so every replica takes the same optimizer steps. Rank 0 prints the loss (averaged over the
ranks) and the test accuracy. The code is PyTorch's API throughout, `import ferrograd as torch`.
"""

import ferrograd as torch
import ferrograd.distributed as dist
import ferrograd.nn.functional as F
from ferrograd import nn
from ferrograd.nn.parallel import DistributedDataParallel as DDP
from ferrograd.utils.data import DataLoader, DistributedSampler, TensorDataset

EPOCHS = 20
BATCH = 32  # per rank


class DigitsNet(nn.Module):
    """The CNN of examples/train_digits.py: two 3x3 convolutions (8x8 -> 4x4 -> 2x2) and a linear classifier."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=3, padding=1),
            nn.BatchNorm2d(16),  # its running statistics come from rank 0 at each forward (broadcast_buffers)
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * 2 * 2, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def load():
    try:
        from sklearn.datasets import load_digits
    except ImportError as e:
        raise SystemExit("this example needs scikit-learn: pip install scikit-learn") from e
    digits = load_digits()
    images = torch.tensor(digits.images / 16.0, dtype=torch.float32).unsqueeze(1)
    labels = torch.tensor(digits.target)
    # the same split on every rank: the first 1500 images train, the rest test
    return images[:1500], labels[:1500], images[1500:], labels[1500:]


def main():
    dist.init_process_group(backend="mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    x_train, y_train, x_test, y_test = load()
    torch.manual_seed(rank)  # different initial weights on each rank: DDP starts every replica from rank 0's
    model = DDP(DigitsNet())
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    train = TensorDataset(x_train, y_train)
    sampler = DistributedSampler(train, shuffle=True, seed=0)
    loader = DataLoader(train, batch_size=BATCH, sampler=sampler)
    if rank == 0:
        print(f"{world} ranks, {len(sampler)} training images each per epoch")
    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)
        model.train()
        total, batches = torch.zeros(1), 0
        for images, labels in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(images), labels)
            loss.backward()
            optimizer.step()
            total += loss.detach()
            batches += 1
        dist.all_reduce(total, op=dist.ReduceOp.SUM)
        model.eval()
        with torch.no_grad():
            accuracy = (model(x_test).argmax(1) == y_test).float().mean().item()
        if rank == 0:
            print(f"epoch {epoch + 1:2d}: loss {total.item() / (batches * world):.4f}, test accuracy {accuracy:.1%}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
