"""PyTorch's beginner nn programs, run on ferrograd: the 60-minute blitz "Neural Networks" chapter and the nn
programs of "Learning PyTorch with Examples" (polynomial fit with nn.Sequential, a custom nn.Module, a
two-layer net, a dynamic net), first with the weight updates written out under no_grad, then with torch.optim
(SGD, SGD with momentum, RMSprop, Adam) as the tutorials' "optim" programs do.

The code of every block is the tutorials' (only the import differs, and the dynamic net runs 3000 steps
instead of 30000). ``python examples/nn_tutorial.py --torch`` runs the same code on PyTorch, so the outputs
can be diffed (tests/golden/nn_tutorial.torch.txt). Sections marked "(deterministic)" start from weights
built from math instead of the random generator, so their numbers must agree with PyTorch's too.
"""

import math
import random
import sys

if "--torch" in sys.argv[1:]:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torch.optim as optim
else:
    import ferrograd as torch
    import ferrograd.nn as nn
    import ferrograd.nn.functional as F
    import ferrograd.optim as optim

torch.manual_seed(0)
random.seed(0)

print("# --- Neural Networks: Define the network ---")


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()  # noqa: UP008 - the tutorial's spelling
        # 1 input image channel, 6 output channels, 5x5 square convolution
        # kernel
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        # an affine operation: y = Wx + b
        self.fc1 = nn.Linear(16 * 5 * 5, 120)  # 5*5 from image dimension
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        # Convolution layer C1: 1 input image channel, 6 output channels,
        # 5x5 square convolution, it uses RELU activation function, and
        # outputs a Tensor with size (N, 6, 28, 28), where N is the size of the batch
        c1 = F.relu(self.conv1(input))
        # Subsampling layer S2: 2x2 grid, purely functional,
        # this layer does not have any parameter, and outputs a (N, 6, 14, 14) Tensor
        s2 = F.max_pool2d(c1, (2, 2))
        # Convolution layer C3: 6 input channels, 16 output channels,
        # 5x5 square convolution, it uses RELU activation function, and
        # outputs a (N, 16, 10, 10) Tensor
        c3 = F.relu(self.conv2(s2))
        # Subsampling layer S4: 2x2 grid, purely functional,
        # this layer does not have any parameter, and outputs a (N, 16, 5, 5) Tensor
        s4 = F.max_pool2d(c3, 2)
        # Flatten operation: purely functional, outputs a (N, 400) Tensor
        s4 = torch.flatten(s4, 1)
        # Fully connected layer F5: (N, 400) Tensor input,
        # and outputs a (N, 120) Tensor, it uses RELU activation function
        f5 = F.relu(self.fc1(s4))
        # Fully connected layer F6: (N, 120) Tensor input,
        # and outputs a (N, 84) Tensor, it uses RELU activation function
        f6 = F.relu(self.fc2(f5))
        # Gaussian layer OUTPUT: (N, 84) Tensor input, and
        # outputs a (N, 10) Tensor
        output = self.fc3(f6)
        return output


net = Net()
print(net)

params = list(net.parameters())
print(len(params))
print(params[0].size())  # conv1's .weight

print("# --- Neural Networks: Forward (random) ---")
input = torch.randn(1, 1, 32, 32)
out = net(input)
print(out)

net.zero_grad()
out.backward(torch.randn(1, 10))

print("# --- Loss Function (random) ---")
output = net(input)
target = torch.randn(10)  # a dummy target, for example
target = target.view(1, -1)  # make it the same shape as output
criterion = nn.MSELoss()

loss = criterion(output, target)
print(loss)

print(loss.grad_fn)  # MSELoss
print(loss.grad_fn.next_functions[0][0])  # Linear
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])  # ReLU

print("# --- Backprop (random) ---")
net.zero_grad()  # zeroes the gradient buffers of all parameters

print("conv1.bias.grad before backward")
print(net.conv1.bias.grad)

loss.backward()

print("conv1.bias.grad after backward")
print(net.conv1.bias.grad)

print("# --- Update the weights (random) ---")
learning_rate = 0.01
for f in net.parameters():
    f.data.sub_(f.grad.data * learning_rate)
print(criterion(net(input), target) < loss)

print("# --- Polynomial fit with nn.Sequential: the model ---")
# Create Tensors to hold input and outputs.
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)

# For this example, the output y is a linear function of (x, x^2, x^3), so
# we can consider it as a linear layer neural network. Let's prepare the
# tensor (x, x^2, x^3).
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)


def fit_polynomial(model):
    # The nn package also contains definitions of popular loss functions; in this
    # case we will use Mean Squared Error (MSE) as our loss function.
    loss_fn = torch.nn.MSELoss(reduction="sum")

    learning_rate = 1e-6
    for t in range(2000):
        # Forward pass: compute predicted y by passing x to the model.
        y_pred = model(xx)

        # Compute and print loss.
        loss = loss_fn(y_pred, y)
        if t % 100 == 99:
            print(t, loss.item())

        # Zero the gradients before running the backward pass.
        model.zero_grad()

        # Backward pass: compute gradient of the loss with respect to all the learnable
        # parameters of the model.
        loss.backward()

        # Update the weights using gradient descent.
        with torch.no_grad():
            for param in model.parameters():
                param -= learning_rate * param.grad

    # You can access the first layer of `model` like accessing the first item of a list
    linear_layer = model[0]

    # For linear layer, its parameters are stored as `weight` and `bias`.
    print(
        f"Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + "
        f"{linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3"
    )


# Use the nn package to define our model as a sequence of layers. nn.Sequential
# is a Module which contains other Modules, and applies them in sequence to
# produce its output. The Linear Module computes output from input using a
# linear function, and holds internal Tensors for its weight and bias.
# The Flatten layer flatens the output of the linear layer to a 1D tensor,
# to match the shape of `y`.
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
print(model)
print("# --- Polynomial fit with nn.Sequential: training (random) ---")
fit_polynomial(model)

print("# --- Polynomial fit with nn.Sequential (deterministic) ---")
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[0.5, -0.25, 0.125]]))
    model[0].bias.fill_(0.1)
fit_polynomial(model)

print("# --- Polynomial as a custom nn.Module: the model ---")


class Polynomial3(torch.nn.Module):
    def __init__(self):
        """
        In the constructor we instantiate four parameters and assign them as
        member parameters.
        """
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        """
        In the forward function we accept a Tensor of input data and we must return
        a Tensor of output data. We can use Modules defined in the constructor as
        well as arbitrary operators on Tensors.
        """
        return self.a + self.b * x + self.c * x**2 + self.d * x**3

    def string(self):
        """
        Just like any class in Python, you can also define custom method on PyTorch modules
        """
        return f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3"


def fit_module(model, steps, report_every):
    # Construct our loss function and an Optimizer (here: plain SGD written out)
    criterion = torch.nn.MSELoss(reduction="sum")
    for t in range(steps):
        # Forward pass: Compute predicted y by passing x to the model
        y_pred = model(x)

        # Compute and print loss
        loss = criterion(y_pred, y)
        if t % report_every == report_every - 1:
            print(t, loss.item())

        # Zero gradients, perform a backward pass, and update the weights.
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                if param.grad is not None:  # as optimizer.step(): a parameter unused this step has no grad
                    param -= 1e-6 * param.grad
    print(f"Result: {model.string()}")


model = Polynomial3()
print(model)
print([name for name, _ in model.named_parameters()])
print("# --- Polynomial as a custom nn.Module: training (random) ---")
fit_module(model, 2000, 100)

print("# --- Polynomial as a custom nn.Module (deterministic) ---")
model = Polynomial3()
with torch.no_grad():
    for i, param in enumerate(model.parameters()):
        param.fill_(0.25 * (i + 1) * (-1) ** i)
fit_module(model, 2000, 250)

print("# --- Dynamic net (random) ---")


class DynamicNet(torch.nn.Module):
    def __init__(self):
        """
        In the constructor we instantiate five parameters and assign them as members.
        """
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
        self.e = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        """
        For the forward pass of the model, we randomly choose either 4, 5
        and reuse the e parameter to compute the contribution of these orders.

        Since each forward pass builds a dynamic computation graph, we can use normal
        Python control-flow operators like loops or conditional statements when
        defining the forward pass of the model.

        Here we also see that it is perfectly safe to reuse the same parameter many
        times when defining a computational graph.
        """
        y = self.a + self.b * x + self.c * x**2 + self.d * x**3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x**exp
        return y

    def string(self):
        """
        Just like any class in Python, you can also define custom method on PyTorch modules
        """
        return (
            f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3 + "
            f"{self.e.item()} x^4 ? + {self.e.item()} x^5 ?"
        )


model = DynamicNet()
fit_module(model, 3000, 1000)

print("# --- Two-layer net with nn.Sequential: the model ---")
# N is batch size; D_in is input dimension;
# H is hidden dimension; D_out is output dimension.
N, D_in, H, D_out = 64, 1000, 100, 10

# Create random Tensors to hold inputs and outputs
x = torch.randn(N, D_in)
y = torch.randn(N, D_out)


def train_two_layer(model, x, y, learning_rate=1e-4):
    # The nn package also contains definitions of popular loss functions; in this
    # case we will use Mean Squared Error (MSE) as our loss function.
    loss_fn = torch.nn.MSELoss(reduction="sum")
    for t in range(500):
        # Forward pass: compute predicted y by passing x to the model. Module objects
        # override the __call__ operator so you can call them like functions. When
        # doing so you pass a Tensor of input data to the Module and it produces
        # a Tensor of output data.
        y_pred = model(x)

        # Compute and print loss. We pass Tensors containing the predicted and true
        # values of y, and the loss function returns a Tensor containing the
        # loss.
        loss = loss_fn(y_pred, y)
        if t % 100 == 99:
            print(t, loss.item())

        # Zero the gradients before running the backward pass.
        model.zero_grad()

        # Backward pass: compute gradient of the loss with respect to all the learnable
        # parameters of the model. Internally, the parameters of each Module are stored
        # in Tensors with requires_grad=True, so this call will compute gradients for
        # all learnable parameters in the model.
        loss.backward()

        # Update the weights using gradient descent. Each parameter is a Tensor, so
        # we can access its gradients like we did before.
        with torch.no_grad():
            for param in model.parameters():
                param -= learning_rate * param.grad


# Use the nn package to define our model as a sequence of layers. nn.Sequential
# is a Module which contains other Modules, and applies them in sequence to
# produce its output. Each Linear Module computes output from input using a
# linear function, and holds internal Tensors for its weight and bias.
model = torch.nn.Sequential(
    torch.nn.Linear(D_in, H),
    torch.nn.ReLU(),
    torch.nn.Linear(H, D_out),
)
print(model)
print("# --- Two-layer net with nn.Sequential: training (random) ---")
train_two_layer(model, x, y)

print("# --- Two-layer net as a custom nn.Module (deterministic) ---")


class TwoLayerNet(torch.nn.Module):
    def __init__(self, D_in, H, D_out):
        """
        In the constructor we instantiate two nn.Linear modules and assign them as
        member variables.
        """
        super(TwoLayerNet, self).__init__()  # noqa: UP008 - the tutorial's spelling
        self.linear1 = torch.nn.Linear(D_in, H)
        self.linear2 = torch.nn.Linear(H, D_out)

    def forward(self, x):
        """
        In the forward function we accept a Tensor of input data and we must return
        a Tensor of output data. We can use Modules defined in the constructor as
        well as arbitrary operators on Tensors.
        """
        h_relu = self.linear1(x).clamp(min=0)
        y_pred = self.linear2(h_relu)
        return y_pred


model = TwoLayerNet(D_in, H, D_out)
print(model)
# inputs, targets and weights from sines instead of the random generator
grid = torch.arange(N * D_in, dtype=torch.float32).reshape(N, D_in)
x = torch.sin(grid * 0.01)
y = torch.cos(torch.arange(N * D_out, dtype=torch.float32).reshape(N, D_out) * 0.3)
with torch.no_grad():
    for i, param in enumerate(model.parameters()):
        n = param.numel()
        scale = 1 / math.sqrt(param.shape[-1])
        param.copy_(torch.sin(torch.arange(n, dtype=torch.float32) * (0.37 + i)).reshape(param.shape) * scale)
train_two_layer(model, x, y, learning_rate=1e-5)
print(sorted(model.state_dict().keys()))

print("# --- optim: the blitz's training loop with optim.SGD (random) ---")
# create your optimizer
optimizer = optim.SGD(net.parameters(), lr=0.01)

# in your training loop:
optimizer.zero_grad()  # zero the gradient buffers
output = net(input)
loss = criterion(output, target)
loss.backward()
optimizer.step()  # Does the update
print(criterion(net(input), target) < loss)

print("# --- optim: polynomial fit with RMSprop (deterministic) ---")
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[0.5, -0.25, 0.125]]))
    model[0].bias.fill_(0.1)
loss_fn = torch.nn.MSELoss(reduction="sum")

# Use the optim package to define an Optimizer that will update the weights of
# the model for us. Here we will use RMSprop; the optim package contains many other
# optimization algorithms. The first argument to the RMSprop constructor tells the
# optimizer which Tensors it should update.
learning_rate = 1e-3
optimizer = torch.optim.RMSprop(model.parameters(), lr=learning_rate)
print(optimizer)
# (1000 steps instead of 2000: near its optimum RMSprop oscillates, and float32 sums in another order
# part ways with PyTorch's there)
for t in range(1000):
    # Forward pass: compute predicted y by passing x to the model.
    y_pred = model(xx)

    # Compute and print loss.
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, loss.item())

    # Before the backward pass, use the optimizer object to zero all of the
    # gradients for the variables it will update (which are the learnable
    # weights of the model). This is because by default, gradients are
    # accumulated in buffers( i.e, not overwritten) whenever .backward()
    # is called. Checkout docs of torch.autograd.backward for more details.
    optimizer.zero_grad()

    # Backward pass: compute gradient of the loss with respect to model
    # parameters
    loss.backward()

    # Calling the step function on an Optimizer makes an update to its
    # parameters
    optimizer.step()

linear_layer = model[0]
print(
    f"Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + "
    f"{linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3"
)

print("# --- optim: Polynomial3 with SGD, dynamic net with SGD + momentum (deterministic) ---")


def fit_with_optimizer(model, optimizer, steps, report_every):
    criterion = torch.nn.MSELoss(reduction="sum")
    for t in range(steps):
        # Forward pass: Compute predicted y by passing x to the model
        y_pred = model(x)

        # Compute and print loss
        loss = criterion(y_pred, y)
        if t % report_every == report_every - 1:
            print(t, loss.item())

        # Zero gradients, perform a backward pass, and update the weights.
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"Result: {model.string()}")


for model, options, steps in [(Polynomial3(), {"lr": 1e-6}, 2000), (DynamicNet(), {"lr": 1e-8, "momentum": 0.9}, 3000)]:
    with torch.no_grad():
        for i, param in enumerate(model.parameters()):
            param.fill_(0.25 * (i + 1) * (-1) ** i)
    random.seed(1)
    optimizer = torch.optim.SGD(model.parameters(), **options)
    fit_with_optimizer(model, optimizer, steps, 500)

print("# --- optim: two-layer net with Adam (deterministic) ---")
N, D_in, H, D_out = 64, 1000, 100, 10
x = torch.sin(torch.arange(N * D_in, dtype=torch.float32).reshape(N, D_in) * 0.01)
y = torch.cos(torch.arange(N * D_out, dtype=torch.float32).reshape(N, D_out) * 0.3)
model = torch.nn.Sequential(
    torch.nn.Linear(D_in, H),
    torch.nn.ReLU(),
    torch.nn.Linear(H, D_out),
)
with torch.no_grad():
    for i, param in enumerate(model.parameters()):
        scale = 1 / math.sqrt(param.shape[-1])
        param.copy_(
            torch.sin(torch.arange(param.numel(), dtype=torch.float32) * (0.37 + i)).reshape(param.shape) * scale
        )
loss_fn = torch.nn.MSELoss(reduction="sum")

# Use the optim package to define an Optimizer that will update the weights of
# the model for us. Here we will use Adam; the optim package contains many other
# optimization algorithms. The first argument to the Adam constructor tells the
# optimizer which Tensors it should update.
learning_rate = 1e-4
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
for t in range(500):
    # Forward pass: compute predicted y by passing x to the model.
    y_pred = model(x)

    # Compute and print loss.
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, loss.item())

    # Before the backward pass, use the optimizer object to zero all of the
    # gradients for the variables it will update (which are the learnable
    # weights of the model).
    optimizer.zero_grad()

    # Backward pass: compute gradient of the loss with respect to model parameters
    loss.backward()

    # Calling the step function on an Optimizer makes an update to its parameters
    optimizer.step()
print(optimizer.state_dict()["param_groups"])
