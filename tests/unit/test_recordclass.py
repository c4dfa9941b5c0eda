"""``wizard.core.records.record`` builds classes that behave as ``dataclasses.dataclass`` builds them (issue 26: the
same classes, without compiling their methods at import), for what the wizard uses: side by side with real
dataclasses of the same body."""
import copy
import dataclasses
import pickle

import pytest

from wizard.core import recordclass
from wizard.core.recordclass import field, record, replace


def _twins(frozen: bool):
    """The same class body as a record and as a dataclass."""
    made = []
    for decorate, fld in ((record(frozen=frozen), field), (dataclasses.dataclass(frozen=frozen), dataclasses.field)):
        class Point:
            """A point."""

            x: int
            y: int = 0
            tags: list = fld(default_factory=list)
            note: str = fld(default="", compare=False, repr=False)

            def total(self) -> int:
                return self.x + self.y

        made.append(decorate(Point))
    return made


@pytest.mark.parametrize("frozen", [True, False])
def test_init_defaults_eq_and_repr_as_a_dataclass(frozen):
    rec, dc = _twins(frozen)
    for args, kwargs in [((1,), {}), ((1, 2), {}), ((1,), {"y": 5, "note": "n"}), ((), {"x": 3, "tags": ["a"]})]:
        r, d = rec(*args, **kwargs), dc(*args, **kwargs)
        assert repr(r) == repr(d)
        assert vars(r) == vars(d)
        assert r.total() == d.total()
    assert rec(1, 2, note="a") == rec(1, 2, note="b")  # a field with compare=False is not compared
    assert rec(1, 2) != rec(1, 3)
    assert rec(1) != dc(1) and (rec(1) == (1, 0)) is False  # only records of the same class are equal
    assert rec(1).tags is not rec(1).tags  # a default_factory runs for each instance
    assert rec.y == dc.y == 0  # a plain default stays a class attribute
    assert rec.__match_args__ == dc.__match_args__


@pytest.mark.parametrize("frozen", [True, False])
def test_wrong_arguments_are_refused_as_a_dataclass_refuses_them(frozen):
    rec, dc = _twins(frozen)
    for args, kwargs in [((), {}), ((1, 2, [], "n", 5), {}), ((1,), {"x": 2}), ((1,), {"z": 2})]:
        with pytest.raises(TypeError):
            dc(*args, **kwargs)
        with pytest.raises(TypeError):
            rec(*args, **kwargs)


def test_frozen_records_refuse_assignment_and_hash_their_compared_fields():
    rec, dc = _twins(frozen=True)
    r = rec(1, 2, note="a")
    with pytest.raises(AttributeError):
        r.x = 5
    with pytest.raises(AttributeError):
        del r.y
    assert isinstance(r, rec) and r.x == 1
    frozen_point = record(frozen=True)(type("P", (), {"__annotations__": {"a": "int", "b": "str"}}))
    assert hash(frozen_point(1, "b")) == hash(dataclasses.dataclass(frozen=True)(
        type("P", (), {"__annotations__": {"a": "int", "b": "str"}}))(1, "b"))
    assert len({frozen_point(1, "b"), frozen_point(1, "b"), frozen_point(2, "b")}) == 2


def test_mutable_records_are_unhashable_and_assignable():
    rec, dc = _twins(frozen=False)
    r = rec(1)
    r.x = 7
    assert r.x == 7
    assert rec.__hash__ is None and dc.__hash__ is None
    with pytest.raises(TypeError):
        hash(r)


def test_post_init_runs_and_may_set_a_frozen_field():
    @record(frozen=True)
    class Keys:
        keys: tuple

        def __post_init__(self):
            if isinstance(self.keys, str):
                object.__setattr__(self, "keys", (self.keys,))

    assert Keys("a").keys == ("a",)
    assert replace(Keys(("a",)), keys="b").keys == ("b",)  # replace goes through __init__, so __post_init__ too


def test_replace_fields_copy_and_pickle():
    rec, _ = _twins(frozen=True)
    r = rec(1, 2, ["t"], "n")
    assert replace(r, y=9) == rec(1, 9, ["t"], "n") and replace(r, y=9).note == "n"
    with pytest.raises(TypeError):
        replace(r, z=1)
    assert [f.name for f in recordclass.fields(rec)] == [f.name for f in dataclasses.fields(_twins(True)[1])]
    assert copy.deepcopy(r) == r and copy.copy(r) == r
    assert pickle.loads(pickle.dumps(Module_level(1, "a"))) == Module_level(1, "a")


@record(frozen=True)
class Module_level:  # noqa: N801 (pickle finds it by name)
    a: int
    b: str = ""


def test_what_record_does_not_support_is_refused():
    with pytest.raises(ValueError, match="default_factory"):
        record(type("M", (), {"__annotations__": {"items": "list"}, "items": []}))
    with pytest.raises(TypeError, match="follows default"):
        record(type("O", (), {"__annotations__": {"a": "int", "b": "int"}, "a": 1}))
    with pytest.raises(TypeError, match="ClassVar"):
        record(type("C", (), {"__annotations__": {"a": "ClassVar[int]"}}))
    base = record(type("B", (), {"__annotations__": {"a": "int"}}))
    with pytest.raises(TypeError, match="inherit"):
        record(type("D", (base,), {"__annotations__": {"b": "int"}}))
