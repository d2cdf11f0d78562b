"""Compile LED nodes: their frames and the fields they colour.

An LED colours what its **first child** holds (``WbLed::findMaterialsAndLights``): a Shape's Material or
PBRAppearance (their ``emissiveColor``), a Light (its ``color``), or, in a Group, Pose, Transform or
Solid, every such node found recursively. At load Webots sets them to black (the LED is off). Without any
of them the LED ignores ``set`` (with Webots' warning).

So that supervisors read what the LED shows, the bindings of an LED kind are one :class:`LedBinding` per
LED (the device rows, in scene order) followed by one :class:`LedTargetBinding` per coloured node: the
simulation routes a supervisor's reads and writes of a node's fields to the bank row of its binding
(``DeviceBank.field_value`` / ``field_changed``), so the bank answers the colour its LED shows now. Target
rows are never robot devices.

An LED needs no body: it is frame-only (``BodyPlan.frame_only``), like a connector.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco

from wbsim.compile.context import CompileContext
from wbsim.compile.slots import BodyRequest, DeviceSlot, SolidSlot
from wbsim.devices.kind import BodyPlan, DeviceCompiler
from wbsim.world.model import WbNode

__all__ = ["LedBinding", "LedTargetBinding", "LedCompiler", "driven_fields"]


@dataclass(frozen=True, slots=True)
class LedBinding:
    """An LED.

    Attributes:
        node: the LED node.
        drives: the LED found a Material, PBRAppearance or Light to colour (otherwise ``set`` is ignored).
    """

    node: WbNode
    drives: bool


@dataclass(frozen=True, slots=True)
class LedTargetBinding:
    """A node an LED colours (a bank row after the LEDs' rows).

    Attributes:
        node: the Material, PBRAppearance or Light node.
        led: the bank row of the LED colouring it.
        field: the field it colours: ``"emissiveColor"`` (Material, PBRAppearance) or ``"color"`` (Light).
    """

    node: WbNode
    led: int
    field: str


def driven_fields(led: WbNode) -> list[tuple[WbNode, str]]:
    """The (node, field) pairs an LED colours, in Webots' search order (first child only, recursively)."""
    found: list[tuple[WbNode, str]] = []

    def visit(node: WbNode) -> None:
        if node.type_name == "Shape":
            appearance = node["appearance"]
            if isinstance(appearance, WbNode):
                if appearance.type_name == "PBRAppearance":
                    found.append((appearance, "emissiveColor"))
                elif isinstance(appearance.get("material"), WbNode):
                    found.append((appearance["material"], "emissiveColor"))  # type: ignore[arg-type]
        elif node.is_a("light"):
            found.append((node, "color"))
        elif node.is_a("group") or node.is_a("solid"):
            for child in node.get("children", ()):  # type: ignore[union-attr]
                if isinstance(child, WbNode):
                    visit(child)

    children = led["children"]
    if children:
        visit(children[0])  # type: ignore[index]
    return found


@dataclass(eq=False)
class _Led:
    node: WbNode
    targets: list[tuple[WbNode, str]]


class LedCompiler(DeviceCompiler):
    """Claims LED nodes and finds the materials and lights they colour."""

    def __init__(self) -> None:
        self._leds: list[_Led] = []

    def plan_body(self, node: WbNode, request: BodyRequest) -> BodyPlan:
        """An LED needs no body of its own."""
        return BodyPlan(frame_only=True, allow_no_physics_in_dynamic_parent=True)

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim an LED, with Webots' load-time warnings (``WbLed::updateChildren``)."""
        assert isinstance(slot, SolidSlot)
        targets = driven_fields(node)
        if bool(node["gradual"]) and len(node["color"]) > 1:  # type: ignore[arg-type]
            ctx.warn("Too many colors defined for a gradual LED.", node, "color")
        if not targets:
            ctx.warn("No PBRAppearance, Material and no Light found. The first child of a LED should be either a "
                     "Shape, a Light or a Group containing Shape and Light nodes.", node, "children")
        self._leds.append(_Led(node, targets))
        return True

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[LedBinding | LedTargetBinding, ...]:
        """One :class:`LedBinding` per LED in scene order, then one :class:`LedTargetBinding` per coloured node."""
        leds: list[LedBinding | LedTargetBinding] = [LedBinding(led.node, bool(led.targets)) for led in self._leds]
        for row, led in enumerate(self._leds):
            leds.extend(LedTargetBinding(node, row, field) for node, field in led.targets)
        return tuple(leds)
