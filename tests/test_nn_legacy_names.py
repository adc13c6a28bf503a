"""torch.nn's old and helper names that scripts still reach: `NLLLoss2d`, `Container`, `factory_kwargs`."""

import ferrograd as fg
import pytest

nn = fg.nn


def test_nllloss2d_is_nllloss_over_images():
    fg.manual_seed(0)
    logits = fg.randn(2, 3, 4, 4).log_softmax(1)
    target = fg.randint(0, 3, (2, 4, 4))
    loss = nn.NLLLoss2d(ignore_index=1)
    assert isinstance(loss, nn.NLLLoss)
    assert fg.equal(loss(logits, target), nn.NLLLoss(ignore_index=1)(logits, target))
    assert repr(loss) == "NLLLoss2d()"


def test_container_holds_its_keyword_modules_and_warns():
    with pytest.warns(FutureWarning, match=r"^`nn.Container` is deprecated"):
        box = nn.Container(first=nn.Linear(2, 3), second=nn.ReLU())
    assert list(dict(box.named_children())) == ["first", "second"]
    assert [k for k, _ in box.named_parameters()] == ["first.weight", "first.bias"]


def test_factory_kwargs_merges_and_refuses_as_torch():
    assert nn.factory_kwargs(None) == {}
    got = nn.factory_kwargs({"dtype": fg.float64, "factory_kwargs": {"device": "cpu"}})
    assert got == {"dtype": fg.float64, "device": "cpu"}
    with pytest.raises(TypeError, match="^unexpected kwargs"):
        nn.factory_kwargs({"dtype": fg.float64, "size": 3})
    with pytest.raises(TypeError, match="^dtype specified twice, in \\*\\*kwargs and in factory_kwargs$"):
        nn.factory_kwargs({"dtype": fg.float64, "factory_kwargs": {"dtype": fg.float32}})
