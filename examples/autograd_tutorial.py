"""PyTorch's "Autograd: automatic differentiation" tutorial, run on ferrograd.

The code of every block is the tutorial's, unchanged: only the import differs.
``python examples/autograd_tutorial.py --torch`` runs the very same code on real
PyTorch, so the two outputs can be diffed (tests/golden/autograd_tutorial.torch.txt).
"""

import sys
import warnings

if "--torch" in sys.argv[1:]:
    import torch
    from torch.autograd import Variable
else:
    import ferrograd as torch
    from ferrograd.autograd import Variable

torch.manual_seed(0)

print("# --- Tensor ---")
x = torch.ones(2, 2, requires_grad=True)
print(x)

print("# --- Do a tensor operation ---")
y = x + 2
print(y)
print(y.grad_fn)

print("# --- Do more operations on y ---")
z = y * y * 3
out = z.mean()

print(z, out)

print("# --- requires_grad_ ---")
a = torch.randn(2, 2)
a = (a * 3) / (a - 1)
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn)

print("# --- grad_fn before and after requires_grad_ ---")
a = torch.randn(2, 2)
a = (a * 3) / (a - 1)
print(a.requires_grad)

b = (a * a).sum()
print(b.grad_fn)

a.requires_grad_(True)
print(a.requires_grad)

c = (a * a).sum()
print(c.grad_fn)

print("# --- Gradients ---")
print(z)
print(out)
print(x.grad)

out.backward()
print(x.grad)

print("# --- Vector-Jacobian product ---")
x = torch.randn(3, requires_grad=True)

y = x * 2
while y.data.norm() < 1000:
    y = y * 2

print(y)

v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)

print(x.grad)

print("# --- Backward of a non-scalar with a gradient argument ---")
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x + 2) ** 2
z = 4 * y

z.backward(torch.tensor([1, 1, 1]))
print(x.grad)

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x + 2) ** 2
z = 4 * y

z.backward(torch.tensor([1, 10, 100]))
print(x.grad)

print("# --- Stop autograd: torch.no_grad() ---")
print(x.requires_grad)
print((x**2).requires_grad)

with torch.no_grad():
    print((x**2).requires_grad)

print("# --- Stop autograd: .detach() ---")
print(x.requires_grad)
y = x.detach()
print(y.requires_grad)
print(x.eq(y).all())

# The older tutorial, written for the Variable API (PyTorch 0.1-0.3).
print("# --- Variable ---")
x = Variable(torch.ones(2, 2), requires_grad=True)
print(x)

y = x + 2
print(y)

with warnings.catch_warnings():  # .creator is ferrograd's deprecated alias of .grad_fn
    warnings.simplefilter("ignore")
    print(y.creator if hasattr(y, "creator") else y.grad_fn)  # PyTorch itself dropped .creator

z = y * y * 3
out = z.mean()

print(z, out)

print("# --- Variable: Gradients ---")
out.backward()
print(x.grad)

x = torch.randn(3)
x = Variable(x, requires_grad=True)

y = x * 2
while y.data.norm() < 1000:
    y = y * 2

print(y)

gradients = torch.FloatTensor([0.1, 1.0, 0.0001])
y.backward(gradients)

print(x.grad)
