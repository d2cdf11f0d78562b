"""Track (and its TrackWheel children): Webots' belt whose surface moves along the Track's x axis.

Package layout (one device kind, see ``docs/architecture.md``): ``schema`` (Track and TrackWheel),
``compile`` (``TrackBinding``, one per Track, and ``TrackDeviceBinding``, one per device of its
``device`` field), ``bank`` (the belt's motor law, the contact surface velocities, the belt position and
its position sensor), ``api`` (the Track's ``LinearMotor`` and ``PositionSensor``). See ``docs/track.md``.
"""

from __future__ import annotations

from wbsim.devices.kind import DeviceKind, lazy

__all__ = ["KIND"]

KIND = DeviceKind(
    name="track",
    node_types=("Track",),
    placement="solid",
    schemas=lazy("wbsim.devices.track.schema:schemas"),
    compiler=lazy("wbsim.devices.track.compile:TrackCompiler"),
    bank=lazy("wbsim.devices.track.bank:TrackBank"),
    api=lazy("wbsim.devices.track.api:make_api"),
    api_classes=lazy("wbsim.devices.track.api:api_classes"),
)
"""The track device kind (its devices: a LinearMotor and a PositionSensor in the Track's ``device`` field)."""
