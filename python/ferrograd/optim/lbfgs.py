"""`LBFGS`: limited-memory BFGS over all parameters as one flat vector, with PyTorch's defaults, closure
semantics, state and (optional) strong-Wolfe line search.

The numbers follow torch's `torch.optim.LBFGS` operation for operation: the per-iteration scalars (`y.dot(s)`,
`1 / ys`, the step size of the first iteration, the line search's slopes) stay 0-dim tensors of the parameters'
dtype where torch's do, so a float32 run rounds where torch's rounds. The vector work is whole-tensor ops on the
flat gradient (`cat` of views, `dot`, `add_(alpha=)`); Python loops only over parameters and history entries.
"""

from .. import cat, zeros
from .._core import Tensor
from ..grad_mode import enable_grad, no_grad
from .optimizer import Optimizer

__all__ = ["LBFGS"]

_LINE_SEARCHES = ("strong_wolfe",)


def _magnitude(value):
    """`abs()` of a Python number or a 0-dim tensor (the line search's step sizes are either)."""
    return value.abs() if isinstance(value, Tensor) else abs(value)


def _number(value):
    """A Python number for an `alpha=` argument (torch takes a 0-dim tensor there and reads its value)."""
    return value.item() if isinstance(value, Tensor) else value


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped to `bounds`
    (by default the interval between x1 and x2); the midpoint of the bounds when the cubic has no minimum."""
    if bounds is None:
        bounds = (x1, x2) if x1 <= x2 else (x2, x1)
    low, high = bounds
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if not d2_square >= 0:
        return (low + high) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        minimum = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        minimum = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(minimum, low), high)


class _Bracket:
    """An interval of step sizes known to hold a point satisfying the strong Wolfe conditions: for each end
    the step, the loss there, the flat gradient there and the directional derivative."""

    def __init__(self, steps, losses, grads, slopes):
        self.steps, self.losses, self.grads, self.slopes = steps, losses, grads, slopes
        self.order()

    def order(self):
        """Which end has the lower loss (`low`) and which the higher (`high`)."""
        self.low, self.high = (0, 1) if self.losses[0] <= self.losses[-1] else (1, 0)

    def set(self, end, step, loss, grad, slope):
        self.steps[end], self.losses[end], self.grads[end], self.slopes[end] = step, loss, grad, slope

    def width(self):
        return _magnitude(self.steps[1] - self.steps[0])


def _strong_wolfe(evaluate, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step size along `d` from the parameters `x` (loss `f`, flat gradient `g`, slope `gtd`) satisfying the
    strong Wolfe conditions, by bracketing then zooming with cubic interpolation (Nocedal and Wright, alg.
    3.5-3.6). `evaluate(x, t, d)` gives the loss and flat gradient at `x + t d`. Returns the loss, gradient
    and step chosen and how many evaluations were made (at most `max_ls`)."""
    d_norm = d.abs().max()
    g = g.clone()

    def sufficient_decrease(step, loss):
        return loss <= f + c1 * step * gtd

    def curvature(slope):
        return _magnitude(slope) <= -c2 * gtd

    f_new, g_new = evaluate(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    bracket, found = None, False
    iteration = 0
    # bracketing: grow the step until the interval (previous step, step) must hold an acceptable point
    while iteration < max_ls:
        if not sufficient_decrease(t, f_new) or (iteration > 1 and f_new >= f_prev):
            bracket = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()], [gtd_prev, gtd_new])
            break
        if curvature(gtd_new):
            bracket, found = _Bracket([t], [f_new], [g_new], [gtd_new]), True
            break
        if gtd_new >= 0:
            bracket = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()], [gtd_prev, gtd_new])
            break
        extrapolated = _cubic_interpolate(
            t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(t + 0.01 * (t - t_prev), t * 10)
        )
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new.clone(), gtd_new
        t = extrapolated
        f_new, g_new = evaluate(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        iteration += 1
    if iteration == max_ls:
        # out of evaluations: the interval from the start to the last step (no zoom follows)
        bracket = _Bracket([0, t], [f, f_new], [g, g_new], [None, None])

    # zoom: shrink the bracket, keeping an end with sufficient decrease, until a step satisfies both conditions
    stalled = False
    while not found and iteration < max_ls:
        if bracket.width() * d_norm < tolerance_change:
            break
        steps = bracket.steps
        t = _cubic_interpolate(
            steps[0], bracket.losses[0], bracket.slopes[0], steps[1], bracket.losses[1], bracket.slopes[1]
        )
        top, bottom = max(steps), min(steps)
        margin = 0.1 * (top - bottom)
        # a point too near an end makes slow progress: after two in a row (or one outside), move it inwards
        if min(top - t, t - bottom) < margin:
            if stalled or t >= top or t <= bottom:
                t = top - margin if _magnitude(t - top) < _magnitude(t - bottom) else bottom + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        f_new, g_new = evaluate(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        iteration += 1
        if not sufficient_decrease(t, f_new) or f_new >= bracket.losses[bracket.low]:
            bracket.set(bracket.high, t, f_new, g_new.clone(), gtd_new)
            bracket.order()
        else:
            if curvature(gtd_new):
                found = True
            elif gtd_new * (steps[bracket.high] - steps[bracket.low]) >= 0:
                low = bracket.low
                bracket.set(bracket.high, steps[low], bracket.losses[low], bracket.grads[low], bracket.slopes[low])
            bracket.set(bracket.low, t, f_new, g_new.clone(), gtd_new)
    low = bracket.low
    return bracket.losses[low], bracket.grads[low], bracket.steps[low], evals


class LBFGS(Optimizer):
    """Like `torch.optim.LBFGS`: `step(closure)` runs up to `max_iter` iterations, each a quasi-Newton
    direction from the last `history_size` curvature pairs and a step of `lr` (the first iteration's scaled
    by the gradient), or a strong-Wolfe line search with `line_search_fn="strong_wolfe"`. One param group."""

    def __init__(
        self,
        params,
        lr=1,
        max_iter=20,
        max_eval=None,
        tolerance_grad=1e-7,
        tolerance_change=1e-9,
        history_size=100,
        line_search_fn=None,
        *,
        maximize=False,
    ):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
            "maximize": maximize,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def __setstate__(self, state):
        super().__setstate__(state)
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    # ---- the parameters as one flat vector ----

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        """Every parameter's gradient (zeros where there is none), flattened into one vector; negated when
        maximizing."""
        views = [zeros(p.numel(), dtype=p.dtype) if p.grad is None else p.grad.reshape(-1) for p in self._params]
        flat = cat(views, 0)
        if self.param_groups[0].get("maximize", False):
            flat.neg_()
        return flat

    def _add_grad(self, step_size, update):
        """Adds `step_size * update` (a flat vector) to the parameters."""
        alpha = _number(step_size)
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(update[offset : offset + n].view_as(p), alpha=alpha)
            offset += n
        if offset != self._numel():
            raise AssertionError(f"Expected offset {offset} to equal {self._numel()}")

    def _clone_param(self):
        return [p.clone() for p in self._params]

    def _set_param(self, params_data):
        for p, saved in zip(self._params, params_data):
            p.copy_(saved)

    def _directional_evaluate(self, closure, x, t, d):
        """The loss and flat gradient at `x + t d`; the parameters are left at `x`."""
        self._add_grad(t, d)
        loss = float(closure())
        if self.param_groups[0].get("maximize", False):
            loss = -loss
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # ---- the step ----

    def step(self, closure):
        """Up to `max_iter` iterations; `closure()` reevaluates the model (under grad mode) and returns the
        loss. Returns the loss of the first evaluation."""
        args, kwargs = (self, closure), {}
        args, kwargs = self._run_step_pre_hooks(args, kwargs)
        closure = args[1] if len(args) > 1 else kwargs.get("closure")
        with no_grad():
            loss = self._iterate(closure)
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, args, kwargs)
        return loss

    def _iterate(self, closure):
        if len(self.param_groups) != 1:
            raise AssertionError(f"Expected exactly one param_group, but got {len(self.param_groups)}")

        def evaluate():
            # every evaluation, the line search's too, records the graph the closure's backward() needs
            with enable_grad():
                return closure()

        if len(self._params) == 0:
            return evaluate()
        group = self.param_groups[0]
        lr = _number(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        maximize = group.get("maximize", False)

        # the state lives on the first parameter (torch's layout)
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = evaluate()
        loss = -float(orig_loss) if maximize else float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                H_diag = self._remember(flat_grad, prev_flat_grad, d, t, (old_dirs, old_stps, ro), H_diag, history_size)
                d = self._direction(flat_grad, old_dirs, old_stps, ro, H_diag, state, history_size)

            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            # the first step is scaled down by the gradient's size: the curvature is not known yet
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break  # not a descent direction

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn not in _LINE_SEARCHES:
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def along(x, step, direction):
                    return self._directional_evaluate(evaluate, x, step, direction)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    along, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals
                )
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    # the last iteration's loss is not needed: the next step's closure computes it
                    new_loss = evaluate()
                    loss = -float(new_loss) if maximize else float(new_loss)
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:
                break  # the parameters barely move
            if abs(loss - prev_loss) < tolerance_change:
                break  # the loss barely changes

        state["d"], state["t"] = d, t
        state["old_dirs"], state["old_stps"], state["ro"] = old_dirs, old_stps, ro
        state["H_diag"] = H_diag
        state["prev_flat_grad"], state["prev_loss"] = prev_flat_grad, prev_loss
        return orig_loss

    @staticmethod
    def _remember(flat_grad, prev_flat_grad, d, t, history, H_diag, history_size):
        """Adds the last step's curvature pair (gradient change y, step s) to the history when it is positive
        enough (dropping the oldest when full); returns the new initial Hessian scale y.s / y.y."""
        old_dirs, old_stps, ro = history
        y = flat_grad.sub(prev_flat_grad)
        s = d.mul(t)
        ys = y.dot(s)
        if ys > 1e-10:
            if len(old_dirs) == history_size:
                del old_dirs[0], old_stps[0], ro[0]
            old_dirs.append(y)
            old_stps.append(s)
            ro.append(1.0 / ys)
            H_diag = ys / y.dot(y)
        return H_diag

    @staticmethod
    def _direction(flat_grad, old_dirs, old_stps, ro, H_diag, state, history_size):
        """The quasi-Newton direction -H g by the two-loop recursion over the history."""
        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"]
        num_old = len(old_dirs)
        q = flat_grad.neg()
        for i in range(num_old - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q.add_(old_dirs[i], alpha=-al[i].item())
        r = q.mul(H_diag)
        for i in range(num_old):
            be_i = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i], alpha=(al[i] - be_i).item())
        return r
