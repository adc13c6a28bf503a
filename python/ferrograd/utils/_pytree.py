"""`ferrograd.utils._pytree`: flattening nested tuples, lists, dicts and namedtuples into leaves and back, as
`torch.utils._pytree` does for `torch.func` (same `TreeSpec` repr, so error messages that print a structure
read as torch's)."""

from collections import OrderedDict

__all__ = [
    "TreeSpec",
    "LeafSpec",
    "tree_flatten",
    "tree_unflatten",
    "tree_map",
    "tree_leaves",
    "tree_structure",
    "treespec_pprint",
]


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


class TreeSpec:
    """A container's type, its context (dict keys, namedtuple class) and the specs of its children."""

    def __init__(self, type, context, children_specs):
        self.type = type
        self._context = context
        self._children = list(children_specs)
        self.num_children = len(self._children)
        self.num_leaves = sum(c.num_leaves for c in self._children)

    @property
    def context(self):
        return self._context

    @property
    def children_specs(self):
        return self._children

    def is_leaf(self):
        return False

    def __repr__(self, indent=0):
        prefix = f"TreeSpec({self.type.__name__}, {self._context}, ["
        children = ""
        if self.num_children > 0:
            indent += 2
            children += self._children[0].__repr__(indent)
            children += "," if self.num_children > 1 else ""
            children += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self._children[1:])
        return prefix + children + "])"

    def __eq__(self, other):
        if not isinstance(other, TreeSpec) or isinstance(other, LeafSpec) != isinstance(self, LeafSpec):
            return False
        return self.type is other.type and self._context == other._context and self._children == other._children

    def __hash__(self):
        return id(self)

    def unflatten(self, leaves):
        return tree_unflatten(leaves, self)


class LeafSpec(TreeSpec):
    def __init__(self):
        self.type = None
        self._context = None
        self._children = []
        self.num_children = 0
        self.num_leaves = 1

    def is_leaf(self):
        return True

    def __repr__(self, indent=0):
        return "*"

    def __eq__(self, other):
        return isinstance(other, LeafSpec)

    def __hash__(self):
        return 0


_LEAF = LeafSpec()


def _children(tree):
    """(type, context, children) of a container, or None for a leaf."""
    if _is_namedtuple(tree):
        return type(tree), type(tree), list(tree)
    if isinstance(tree, (tuple, list)) and type(tree) in (tuple, list):
        return type(tree), None, list(tree)
    if type(tree) is OrderedDict:
        return OrderedDict, list(tree.keys()), list(tree.values())
    if type(tree) is dict:
        return dict, list(tree.keys()), list(tree.values())
    return None


def _flatten_into(tree, leaves, is_leaf):
    node = None if is_leaf is not None and is_leaf(tree) else _children(tree)
    if node is None:
        leaves.append(tree)
        return _LEAF
    typ, context, kids = node
    return TreeSpec(typ, context, [_flatten_into(k, leaves, is_leaf) for k in kids])


def tree_flatten(tree, is_leaf=None):
    """`(leaves, spec)`: the leaves in order, and the structure to rebuild the tree with `tree_unflatten`."""
    leaves = []
    spec = _flatten_into(tree, leaves, is_leaf)
    return leaves, spec


def _build(spec, it):
    if spec.is_leaf():
        return next(it)
    kids = [_build(c, it) for c in spec._children]
    if spec.type is dict or spec.type is OrderedDict:
        return spec.type(zip(spec._context, kids))
    if spec.type is tuple or spec.type is list:
        return spec.type(kids)
    return spec.type(*kids)  # a namedtuple


def tree_unflatten(leaves, treespec):
    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(
            f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to a pytree that "
            f"holds {treespec.num_leaves} items ({treespec})."
        )
    return _build(treespec, iter(leaves))


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [tree_flatten(r, is_leaf)[0] for r in rests]
    return tree_unflatten([func(*xs) for xs in zip(leaves, *others)], spec)


def _broadcast_to_and_flatten(prefix, spec):
    """The leaves of `prefix` repeated over `spec`'s leaves where `prefix` stops early (a leaf of `prefix` stands
    for a whole subtree), or None when `prefix` is not a prefix of `spec`."""
    if spec.is_leaf():
        return None if _children(prefix) is not None else [prefix]
    node = _children(prefix)
    if node is None:
        return [prefix] * spec.num_leaves
    typ, context, kids = node
    if typ is not spec.type or context != spec._context or len(kids) != spec.num_children:
        if (
            not ({typ, spec.type} <= {dict, OrderedDict} and sorted(context) == sorted(spec._context))
            or len(kids) != spec.num_children
        ):
            return None
        kids = [prefix[k] for k in spec._context]
    out = []
    for k, child in zip(kids, spec._children):
        sub = _broadcast_to_and_flatten(k, child)
        if sub is None:
            return None
        out.extend(sub)
    return out


def treespec_pprint(spec):
    """The structure as a Python literal with `*` for leaves: `(*, {'a': *})`."""
    if spec.is_leaf():
        return "*"
    kids = [treespec_pprint(c) for c in spec._children]
    if spec.type is dict or spec.type is OrderedDict:
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(spec._context, kids)) + "}"
    if spec.type is list:
        return "[" + ", ".join(kids) + "]"
    if spec.type is tuple:
        return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
    return f"{spec.type.__name__}(" + ", ".join(f"{f}={v}" for f, v in zip(spec.type._fields, kids)) + ")"
