"""The pure domain of fsdpds-wizard.

Nothing in this package imports textual, torch, accelerate or deepspeed at import time; modules that
need the heavy libraries (``verify``) import them inside functions.

Its loose modules (``vocab``, ``findings``, ``rules``, ``context``, ``inputs``, ...) are its ground floor: they import
none of its subpackages, and every part may import them (docs/architecture.md).
"""


def lazy_names(package: str, where: dict[str, tuple[str, ...]]):
    """A package's module ``__getattr__`` that imports a name's module (``where``: module -> the names it defines)
    when the name is first asked for, then keeps the name in the package (issue 26: what the first screen does not
    show is not imported at start)."""
    module_of = {name: module for module, names in where.items() for name in names}

    def __getattr__(name: str):
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import sys
        from importlib import import_module

        value = getattr(import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
