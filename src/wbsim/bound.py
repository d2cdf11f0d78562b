"""Objects bound to one running simulation refuse copies and pickles.

A simulation's device banks call it through closures (its random generator, its clock, the kinematics refresh,
the sampling plan) and keep compiled calls over its ``MjData``'s arrays, some packed as raw addresses
(:mod:`wbsim.devices.packed`); the simulation holds its controllers' greenlets and MuJoCo's callbacks. A copy could
not be made correct cheaply: a copied bank would draw from the original simulation's generator, refresh the
original's kinematics, and read arrays copied from the ``MjData``'s views that no longer follow any data. So
``copy.deepcopy``, ``copy.copy`` and ``pickle`` of such an object raise :class:`~wbsim.errors.NotCopyableError`
(before, a deep copy failed by chance, on a node schema's ``mappingproxy``). An independent copy of a world is
loaded again (:func:`wbsim.load_world`, :func:`wbsim.batch.run_many`); going back to a state is
``Simulation.reset`` or a supervisor's ``saveState``/``loadState``.
"""

from __future__ import annotations

from typing import NoReturn, SupportsIndex

from wbsim.errors import NotCopyableError

__all__ = ["BoundToSimulation"]


class BoundToSimulation:
    """Mixin of the objects that belong to one running simulation: copies and pickles raise
    :class:`~wbsim.errors.NotCopyableError` (module docstring)."""

    __slots__ = ()

    def __reduce_ex__(self, protocol: SupportsIndex) -> NoReturn:
        """``copy.deepcopy``, ``copy.copy`` and ``pickle`` all ask this first (the object defines no
        ``__copy__``/``__deepcopy__``).

        Raises:
            NotCopyableError: always.
        """
        raise NotCopyableError(
            f"a {type(self).__name__} belongs to one running simulation and cannot be copied or pickled: load the "
            "world again for an independent simulation (wbsim.load_world, wbsim.batch.run_many), or go back to a "
            "state with Simulation.reset or a supervisor's saveState/loadState")
