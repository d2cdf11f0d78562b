"""Argument conversion as Webots' Python binding does it, declared once per API class.

Webots' ``controller`` package hands each argument to the C library through ``ctypes``: a ``double``
parameter is wrapped in ``ctypes.c_double(value)`` and an ``int`` one is passed as it is (no ``argtypes``).
So a value of the wrong type never reaches the C library's own checks: ``c_double`` raises ``TypeError``
("must be real number, not str") or ``OverflowError``, and ctypes raises ``ctypes.ArgumentError`` for an
``int`` parameter given a float, a list or any other object it cannot convert. What does reach C is
converted: ``True`` is 1, ``None`` is ``NULL`` (0), an ``int`` is cut to the C ``int``'s 32 bits. wbsim
applies the same conversions before its methods run, from one table per class (:func:`c_arguments`),
so that the methods' own checks (Webots' ``Error: ...`` messages and ignored calls) see the same values
as the C library would. Strings and bytes for an ``int`` parameter are the one difference: ctypes passes
their address, an arbitrary number, where wbsim raises ``ctypes.ArgumentError``.
"""

from __future__ import annotations

import ctypes
import functools
import inspect
from collections.abc import Callable
from typing import ClassVar, NoReturn, TypeVar

__all__ = ["ArgumentChecked", "c_arguments", "as_c_double", "as_c_int", "as_c_string", "as_c_text", "as_c_flag",
           "as_c_doubles", "as_node", "sf_value", "has_length", "null_pointer", "WRONG_VALUE", "CONVERTERS"]

_T = TypeVar("_T", bound=type)


def as_c_double(value: object, position: int) -> float:
    """``value`` as ``ctypes.c_double`` converts it (``TypeError``/``OverflowError`` as the binding raises)."""
    if type(value) is float:  # the common case, unchanged by c_double
        return value
    del position  # c_double's own messages do not name the argument
    return ctypes.c_double(value).value  # type: ignore[arg-type]


def as_c_int(value: object, position: int) -> int:
    """``value`` as ctypes passes a Python object to a C ``int`` parameter without ``argtypes``.

    ``position`` is the C argument's 1-based position (a device's tag is argument 1), used in the message.
    """
    if type(value) is int and -(2**31) <= value < 2**31:  # the common case, unchanged by ctypes
        return value
    if value is None:
        return 0  # NULL
    if isinstance(value, int):  # bool included: True is 1
        if not -(2**63) <= value < 2**64:  # ctypes converts through a C long long first
            raise ctypes.ArgumentError(f"argument {position}: OverflowError: int too long to convert")
        return ctypes.c_int(value).value  # the callee reads the low 32 bits
    if isinstance(value, (str, bytes)):
        raise ctypes.ArgumentError(
            f"argument {position}: TypeError: wbsim cannot pass a {type(value).__name__} as a C int "
            "(Webots' binding would pass its address)")
    raise ctypes.ArgumentError(f"argument {position}: TypeError: Don't know how to convert parameter {position}")


def as_c_string(value: object, position: int) -> str:
    """``value`` checked as the binding's ``str.encode(value)`` checks it (``TypeError`` for non-strings)."""
    del position
    if value is not None and not isinstance(value, str):
        str.encode(value)  # type: ignore[arg-type]  # raises the binding's TypeError
    return value  # type: ignore[return-value]


def as_c_text(value: object, position: int) -> str:
    """``value`` checked as ``str.encode(value)`` checks it, ``None`` included (a ``TypeError`` for anything but a
    ``str``): the parameters the binding always encodes (``getUrdf``'s prefix, a field's string values)."""
    del position
    if not isinstance(value, str):
        str.encode(value)  # type: ignore[arg-type]  # raises the binding's TypeError
    return value


def as_c_flag(value: object, position: int) -> bool:
    """A C ``bool`` parameter the binding passes as ``1 if value else 0``: any object's truth value (an object
    whose truth value is undefined, like a numpy array of several items, raises its own error)."""
    del position
    return True if value else False  # noqa: SIM210 - the binding's truth test, with its exceptions


def as_c_doubles(value: object, count: int) -> list[float]:
    """``value`` as the binding's ``(ctypes.c_double * count)(*value)`` converts it: ``TypeError`` for a
    non-iterable or a non-number item, ``IndexError`` for more than ``count`` items; fewer items are padded
    with zeros (as the ctypes array is)."""
    return list((ctypes.c_double * count)(*value))  # type: ignore[misc]


def _doubles(count: int) -> Callable[[object, int], object]:
    def convert(value: object, position: int) -> list[float]:
        del position
        return as_c_doubles(value, count)

    convert.__name__ = f"as_c_doubles_{count}"
    convert.__doc__ = f"A ``double[{count}]`` parameter (see :func:`as_c_doubles`)."
    return convert


class _Wrong:
    """Marks a value the binding's ``Field.value`` setter refuses (it prints an error instead of calling C)."""

    def __repr__(self) -> str:
        return "WRONG_VALUE"


WRONG_VALUE = _Wrong()
"""Returned by :func:`sf_value` when the binding would print ``Error: new field value has wrong type or length.``"""


def has_length(value: object, count: int) -> bool:
    """The binding's ``len(value) == count`` test of ``setSFVec2f``/``setSFVec3f``/``setSFRotation``/``setSFColor``
    (a ``TypeError`` for an object without a length)."""
    return len(value) == count  # type: ignore[arg-type]


def sf_value(kind: str, value: object) -> object:
    """A value for a single field as the binding's ``Field.value`` setter converts it, by the field's own type.

    ``kind`` is the field type without ``SF`` (``"Bool"``, ``"Int32"``, ``"Float"``, ``"String"``, ``"Vec2f"``,
    ``"Vec3f"``, ``"Rotation"``, ``"Color"``; anything else, e.g. ``"Node"`` or an MF type, refuses every value).
    Exactly a ``bool`` for SFBool, an ``int`` (``bool`` included) for SFInt32 (then cut to a C ``int``), a
    ``float`` (not an ``int``) for SFFloat, a ``str`` for SFString, a ``list`` of the right length for the vectors
    (converted by ``ctypes.c_double``, raising its ``TypeError``); anything else gives :data:`WRONG_VALUE`.
    """
    if kind == "Bool":
        return value if isinstance(value, bool) else WRONG_VALUE
    if kind == "Int32":
        return as_c_int(value, 2) if isinstance(value, int) else WRONG_VALUE
    if kind == "Float":
        return ctypes.c_double(value).value if isinstance(value, float) else WRONG_VALUE
    if kind == "String":
        return value if isinstance(value, str) else WRONG_VALUE
    count = _VECTOR_SIZES.get(kind)
    if count is None or not isinstance(value, list) or len(value) != count:
        return WRONG_VALUE
    return as_c_doubles(value, count)


_VECTOR_SIZES = {"Vec2f": 2, "Vec3f": 3, "Rotation": 4, "Color": 3}


def null_pointer() -> NoReturn:
    """Raise the error ctypes raises when the binding slices the NULL pointer a C getter returned after an error
    (``getMFVec3f`` on a field of another type or with an index out of range)."""
    raise ValueError("NULL pointer access")


def as_node(value: object, position: int) -> object:
    """An optional node argument as the binding reads it (``node._ref if node else None``): a false value is
    no node, anything else must be a node (a class with ``_c_node = True``) or raises ``AttributeError``."""
    del position
    if not value:
        return None
    if not getattr(type(value), "_c_node", False):
        raise AttributeError(f"{type(value).__name__!r} object has no attribute '_ref'")
    return value


CONVERTERS: dict[str, Callable[[object, int], object]] = {
    "double": as_c_double, "int": as_c_int, "str": as_c_string, "text": as_c_text, "flag": as_c_flag,
    "node": as_node, "double2": _doubles(2), "double3": _doubles(3), "double4": _doubles(4), "double6": _doubles(6)}
"""Converter by C parameter kind, as used in :func:`c_arguments` tables."""


class ArgumentChecked:
    """Base of the API classes with :func:`c_arguments` tables: a subclass that overrides a listed method
    (a Propeller's ``enableForceFeedback``) gets the same conversion for its own version."""

    _c_table: ClassVar[dict[str, tuple[tuple[str, ...], int]]] = {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        _wrap(cls, {name: spec for name, spec in cls._c_table.items() if name in vars(cls)})


def c_arguments(first: int, **table: str | tuple[str, ...]) -> Callable[[_T], _T]:
    """Class decorator: convert the arguments of the named methods as Webots' binding does.

    Args:
        first: the C position of the methods' first argument (2 after a device's or field's tag, 1 for
            functions of the robot itself), for ctypes' messages.
        table: method name -> kind of each positional parameter (a key of :data:`CONVERTERS`: "double",
            "int", "str" (a name, ``None`` allowed), "text" (always encoded), "flag" (a truth value), "node",
            "doubleN" (an array of N doubles); a single kind for a one-parameter method). Parameters beyond the listed ones are passed unchanged.
    """
    specs = {name: ((kinds,) if isinstance(kinds, str) else kinds, first) for name, kinds in table.items()}

    def decorate(cls: _T) -> _T:
        if issubclass(cls, ArgumentChecked):
            cls._c_table = {**cls._c_table, **specs}
        _wrap(cls, specs)
        return cls

    return decorate


def _wrap(cls: type, specs: dict[str, tuple[tuple[str, ...], int]]) -> None:
    """Replace ``cls``'s methods named in ``specs`` (and the properties made from them) by checked ones."""
    replaced: dict[object, Callable[..., object]] = {}
    for name, (kinds, first) in specs.items():
        original = getattr(cls, name)
        if getattr(original, "_c_checked", False):
            continue
        checked = _checked(original, kinds, first)
        replaced[original] = checked
        setattr(cls, name, checked)
    # Properties made in the class body from those methods (``value = property(get, set)``) use them too.
    for name, attribute in list(vars(cls).items()):
        if isinstance(attribute, property) and attribute.fset in replaced:
            setattr(cls, name, property(attribute.fget, replaced[attribute.fset], attribute.fdel, attribute.__doc__))


def _checked(method: Callable[..., object], kinds: tuple[str, ...], first: int) -> Callable[..., object]:
    """``method`` with its first ``len(kinds)`` parameters converted (positional or by keyword)."""
    names = [p.name for p in inspect.signature(method).parameters.values()][1:]  # after self
    steps = [(i, names[i], CONVERTERS[kind], first + i) for i, kind in enumerate(kinds)]

    if len(steps) == 1:  # one converted parameter (most methods): no argument list to rebuild
        _, only_name, only_convert, only_position = steps[0]

        @functools.wraps(method)
        def checked_one(self: object, *args: object, **kwargs: object) -> object:
            if len(args) == 1 and not kwargs:  # the usual call: no argument list to rebuild
                return method(self, only_convert(args[0], only_position))
            if args:
                return method(self, only_convert(args[0], only_position), *args[1:], **kwargs)
            if only_name in kwargs:
                kwargs[only_name] = only_convert(kwargs[only_name], only_position)
            return method(self, **kwargs)

        checked_one._c_checked = True  # type: ignore[attr-defined]
        if kinds != ("double",):
            return checked_one

        @functools.wraps(method)
        def checked_double(self: object, *args: object, **kwargs: object) -> object:
            # One double given as a float (a motor command every step): as_c_double's fast case, without
            # its call.
            if len(args) == 1 and not kwargs and type(args[0]) is float:
                return method(self, args[0])
            return checked_one(self, *args, **kwargs)

        checked_double._c_checked = True  # type: ignore[attr-defined]
        return checked_double

    @functools.wraps(method)
    def checked(self: object, *args: object, **kwargs: object) -> object:
        if args:
            args_list = list(args)
            for index, name, convert, position in steps:
                if index < len(args_list):
                    args_list[index] = convert(args_list[index], position)
                elif name in kwargs:
                    kwargs[name] = convert(kwargs[name], position)
            return method(self, *args_list, **kwargs)
        for _, name, convert, position in steps:
            if name in kwargs:
                kwargs[name] = convert(kwargs[name], position)
        return method(self, *args, **kwargs)

    checked._c_checked = True  # type: ignore[attr-defined]
    return checked
