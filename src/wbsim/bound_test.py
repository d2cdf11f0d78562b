"""Objects bound to one running simulation refuse copies and pickles with a typed error."""

from __future__ import annotations

import copy
import pickle

import pytest

from wbsim.bound import BoundToSimulation
from wbsim.errors import NotCopyableError, SimulationError, WbsimError


class _Bank(BoundToSimulation):
    def __init__(self) -> None:
        self.values = [1.0]


@pytest.mark.parametrize("copier", [copy.deepcopy, copy.copy, pickle.dumps], ids=["deepcopy", "copy", "pickle"])
def test_copies_and_pickles_raise_a_typed_error_naming_the_object(copier):
    with pytest.raises(NotCopyableError, match="a _Bank belongs to one running simulation .* load the world again"):
        copier(_Bank())
    with pytest.raises(NotCopyableError):
        copier({"bank": [_Bank()]} if copier is not copy.copy else _Bank())  # also inside what is copied


def test_the_error_is_a_simulation_error_and_a_type_error():
    # Callers catch wbsim's errors as WbsimError; code that copies what it can catches TypeError, as copy and pickle
    # raise it for objects they cannot copy (a deep copy of a simulation raised one before, by chance).
    assert issubclass(NotCopyableError, SimulationError) and issubclass(NotCopyableError, WbsimError)
    assert issubclass(NotCopyableError, TypeError)
