"""A typed user program that `make lint` runs mypy over: every name it uses must be visible to type checkers
through the package's star imports and lazy subpackages (it is checked, not run)."""

import ferrograd as torch
import ferrograd.nn as nn
import ferrograd.nn.functional as F

model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Dropout(0.1), nn.Linear(3, 1))
x = torch.randn(4, 2)
y = F.relu(model(x))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)
loss = nn.MSELoss()(y, torch.zeros(4, 1)) + nn.CrossEntropyLoss()(torch.randn(4, 3), torch.tensor([0, 1, 2, 0]))
loss.backward()
optimizer.step()
scheduler.step()
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x), batch_size=2)
grads = torch.autograd.grad(model(x).sum(), list(model.parameters()), allow_unused=True)
with torch.no_grad():
    prediction = model(x).argmax(dim=1)
