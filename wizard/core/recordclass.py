"""``record``: the small value classes of the start path, written like dataclasses but built without their cost.

``dataclasses.dataclass`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and (frozen)
``__setattr__``/``__delattr__`` as source text and compiles it when the module is imported: about a millisecond a
class, and importing ``dataclasses`` brings ``inspect`` (with ``ast``, ``dis``, ``tokenize``). `check` and
`--headless` build some twenty such classes before they read a file (issue 26). ``record`` builds the same methods
from closures over the field list, so a class costs microseconds; an instance costs a few microseconds more to
make than a dataclass's, which the few hundred made on a start path do not notice.

What it supports is what the wizard uses: ``frozen``, ``eq``, ``repr``, fields with a default or a
``field(default=..., default_factory=..., compare=..., repr=...)``, ``__post_init__``, and :func:`replace`. No
inheritance between records, no ``order``, ``slots``, ``kw_only``, ``InitVar`` or ``ClassVar`` fields: a class
needing them stays a dataclass (``record`` refuses what it does not support instead of guessing). The behaviour it
copies from dataclasses (equality only between objects of the same class, comparing the fields in order; a frozen
record is hashable from its compared fields, a mutable one is not; ``repr`` as ``Name(a=1, b='x')``; a frozen
record refuses assignment) is held to by tests/unit/test_recordclass.py, side by side with real dataclasses.

Type checkers read a record as a dataclass (``dataclass_transform``).
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from typing_extensions import dataclass_transform  # typing's own from Python 3.11

    T = TypeVar("T")
else:
    def dataclass_transform(**_kwargs):
        return lambda decorated: decorated


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""No default given."""


class FrozenRecordError(AttributeError):
    """Assigning to (or deleting) a field of a frozen record (dataclasses' ``FrozenInstanceError``)."""


class Field:
    """A field's options, as ``field(...)`` gives them in the class body, and (in ``__record_fields__``) its name."""

    __slots__ = ("name", "default", "default_factory", "compare", "repr")

    def __init__(self, default: Any = MISSING, default_factory: Any = MISSING, compare: bool = True,
                 repr: bool = True) -> None:  # noqa: A002 (dataclasses' own keyword)
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot give both default and default_factory")
        self.name = ""
        self.default, self.default_factory, self.compare, self.repr = default, default_factory, compare, repr


def field(*, default: Any = MISSING, default_factory: Callable[[], Any] | Any = MISSING, compare: bool = True,
          repr: bool = True) -> Any:  # noqa: A002
    """A field with options, as ``dataclasses.field`` (the keywords it has in common)."""
    return Field(default, default_factory, compare, repr)


_MUTABLE = (list, dict, set)


def _fields_of(cls: type) -> tuple[Field, ...]:
    for base in cls.__mro__[1:]:
        if "__record_fields__" in base.__dict__ or "__dataclass_fields__" in base.__dict__:
            raise TypeError(f"{cls.__name__}: record does not support inheriting fields (from {base.__name__})")
    out = []
    seen_default = False
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
        if text.startswith(("ClassVar", "typing.ClassVar", "InitVar", "dataclasses.InitVar", "KW_ONLY")):
            raise TypeError(f"{cls.__name__}.{name}: record does not support {text.split('[')[0]}")
        value = cls.__dict__.get(name, MISSING)
        spec = value if isinstance(value, Field) else Field(default=value)
        spec.name = name
        if isinstance(spec.default, _MUTABLE):
            raise ValueError(f"{cls.__name__}.{name}: a mutable default {type(spec.default).__name__} is shared by "
                             "every instance; use field(default_factory=...)")
        has_default = spec.default is not MISSING or spec.default_factory is not MISSING
        if seen_default and not has_default:
            raise TypeError(f"{cls.__name__}: non-default argument {name!r} follows default argument")
        seen_default = seen_default or has_default
        if spec.default is MISSING:  # as dataclasses: a default stays a class attribute, a field() without one goes
            if isinstance(value, Field):
                delattr(cls, name)
        else:
            setattr(cls, name, spec.default)
        out.append(spec)
    return tuple(out)


def _make_init(cls: type, fields: tuple[Field, ...]) -> Callable[..., None]:
    name = cls.__qualname__
    names = tuple(f.name for f in fields)
    known = frozenset(names)
    defaults = {f.name: f.default for f in fields if f.default is not MISSING}
    factories = tuple((f.name, f.default_factory) for f in fields if f.default_factory is not MISSING)
    count = len(names)
    post_init = "__post_init__" in cls.__dict__

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if len(args) > count:
            raise TypeError(f"{name}.__init__() takes {count + 1} positional arguments but {len(args) + 1} were "
                            "given")
        values = self.__dict__
        values.update(defaults)
        values.update(zip(names, args, strict=False))  # the leading fields given by position
        if kwargs:
            for key in kwargs:
                if key not in known:
                    raise TypeError(f"{name}.__init__() got an unexpected keyword argument {key!r}")
                if key in names[:len(args)]:
                    raise TypeError(f"{name}.__init__() got multiple values for argument {key!r}")
            values.update(kwargs)
        for key, factory in factories:
            if key not in values:
                values[key] = factory()
        if len(values) < count:
            missing = [key for key in names if key not in values]
            raise TypeError(f"{name}.__init__() missing required argument: {missing[0]!r}")
        if post_init:
            self.__post_init__()

    return __init__


def _make_repr(fields: tuple[Field, ...]) -> Callable[[Any], str]:
    shown = tuple(f.name for f in fields if f.repr)

    def __repr__(self: Any) -> str:
        values = self.__dict__
        return f"{type(self).__qualname__}({', '.join(f'{key}={values[key]!r}' for key in shown)})"

    return __repr__


def _make_eq(fields: tuple[Field, ...]) -> tuple[Callable[[Any, Any], Any], Callable[[Any], int]]:
    compared = tuple(f.name for f in fields if f.compare)

    def key(self: Any) -> tuple:
        values = self.__dict__
        return tuple(values[name] for name in compared)

    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __eq__, __hash__


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenRecordError(f"cannot delete field {name!r}")


def _build(cls: type, frozen: bool, eq: bool, repr: bool) -> type:  # noqa: A002
    fields = _fields_of(cls)
    cls.__record_fields__ = fields  # type: ignore[attr-defined]
    cls.__match_args__ = tuple(f.name for f in fields)  # type: ignore[attr-defined,misc]
    own = cls.__dict__
    cls.__init__ = _make_init(cls, fields)  # type: ignore[misc]
    if repr and "__repr__" not in own:
        cls.__repr__ = _make_repr(fields)  # type: ignore[method-assign,assignment]
    if eq:
        explicit_hash = own.get("__hash__", MISSING) is not MISSING and not (
            own["__hash__"] is None and "__eq__" in own)  # a class that defines __eq__ gets __hash__ = None itself
        equal, hashed = _make_eq(fields)
        if "__eq__" not in own:
            cls.__eq__ = equal  # type: ignore[method-assign,assignment]
        if not explicit_hash:  # dataclasses: eq and frozen hash the compared fields; eq alone is unhashable
            cls.__hash__ = hashed if frozen else None  # type: ignore[method-assign,assignment]
    if frozen:
        for method in ("__setattr__", "__delattr__"):
            if method in own:
                raise TypeError(f"{cls.__name__}: a frozen record cannot define {method}")
        cls.__setattr__ = _frozen_setattr  # type: ignore[method-assign,assignment]
        cls.__delattr__ = _frozen_delattr  # type: ignore[method-assign,assignment]
    return cls


@dataclass_transform(field_specifiers=(field, Field))
def record(cls: type[T] | None = None, /, *, frozen: bool = False, eq: bool = True,
           repr: bool = True) -> Any:  # noqa: A002
    """``@record`` / ``@record(frozen=True)``: the class as ``@dataclass`` would make it (the options above)."""
    def wrap(klass: type[T]) -> type[T]:
        return _build(klass, frozen, eq, repr)

    return wrap if cls is None else wrap(cls)


def fields(obj: Any) -> tuple[Field, ...]:
    """The fields of a record class or instance, in order (``dataclasses.fields``)."""
    try:
        return obj.__record_fields__
    except AttributeError:
        raise TypeError(f"{obj!r} is not a record") from None


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the record ``obj`` with ``changes`` (``dataclasses.replace``: the copy is made through
    ``__init__``, so ``__post_init__`` runs on it). A dataclass instance goes to ``dataclasses.replace``, so modules
    holding both kinds use this one ``replace``."""
    spec = getattr(type(obj), "__record_fields__", None)
    if spec is None:
        import dataclasses

        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    known = {f.name for f in spec}
    for name in changes:
        if name not in known:
            raise TypeError(f"{type(obj).__qualname__} has no field {name!r}")
    values = obj.__dict__
    return type(obj)(**{f.name: changes[f.name] if f.name in changes else values[f.name] for f in spec})
