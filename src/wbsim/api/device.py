"""Base class of Webots API devices."""

from __future__ import annotations

import sys

from wbsim.api.constants import node_type_of
from wbsim.world.model import WbNode

__all__ = ["Device", "print_error"]


def print_error(text: str) -> None:
    """Print a controller-library error line (``Error: ...``) on stderr, as libController does."""
    print(f"Error: {text}", file=sys.stderr, flush=True)


class Device:
    """A device of a robot (Webots' ``controller.Device``)."""

    def __init__(self, node: WbNode, name: str) -> None:
        self._node = node
        self._name = name

    def getName(self) -> str:
        """The device's ``name`` field."""
        return self._name

    def getModel(self) -> str:
        """The device's ``model`` field ("" for devices without one)."""
        return str(self._node.get("model", ""))

    def getNodeType(self) -> int:
        """The ``Node.X`` constant of the device's node type."""
        return node_type_of(self._node.type_name)

    @property
    def name(self) -> str:
        """The device name."""
        return self._name

    @property
    def model(self) -> str:
        """The device model."""
        return self.getModel()

    @property
    def node_type(self) -> int:
        """The node type constant."""
        return self.getNodeType()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._name!r}>"
