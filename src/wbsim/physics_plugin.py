"""The functions a physics plugin calls: Webots' utility functions and the ODE functions plugins use.

A Webots plugin is C over ODE; a wbsim plugin is its line-by-line Python port::

    from wbsim.physics_plugin import *

    robot_body = None

    def webots_physics_init():
        global robot_body
        robot_body = dWebotsGetBodyFromDEF("ROBOT")

    def webots_physics_step():
        dBodyAddForce(robot_body, 0, 0, 5.0)

    def webots_physics_cleanup():
        pass

Conventions of the port: ``NULL`` is ``None``; vectors are returned as lists (``dBodyGetPosition`` gives 3
numbers, ``dBodyGetRotation``/``dGeomGetRotation`` ODE's 12, 3 rows of 4); output parameters are also
returned (``start, direction = dGeomRayGet(ray)``); buffers are ``bytes`` (``dWebotsReceive()`` returns
the bytes or None, ``len()`` gives the size). Bodies and geoms are handles (:mod:`wbsim.plugins.bodies`,
:mod:`wbsim.plugins.geoms`) over the MuJoCo model; see ``docs/physics_plugins.md`` for what each
function does in wbsim and where it differs from ODE.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Sequence

import numpy as np

from wbsim.compile.frames import Frame, quat_to_matrix
from wbsim.errors import PluginError
from wbsim.plugins.bodies import Body, cross
from wbsim.plugins.collisions import ContactJoint, JointGroup, World
from wbsim.plugins.geoms import Geom, Ray, Space
from wbsim.plugins.ode_types import *  # noqa: F403 (ODE's constants and structures, re-exported)
from wbsim.plugins.ode_types import __all__ as _ODE_TYPES
from wbsim.plugins.ode_types import dContact, dContactGeom, dMass
from wbsim.plugins.runtime import current_plugin

__all__ = [
    *_ODE_TYPES,
    # Webots' utility functions
    "dWebotsGetBodyFromDEF", "dWebotsGetGeomFromDEF", "dWebotsGetContactJointGroup", "dGeomSetDynamicFlag",
    "dWebotsSend", "dWebotsReceive", "dWebotsGetTime", "dWebotsConsolePrintf",
    # bodies
    "dBodyAddForce", "dBodyAddRelForce", "dBodyAddForceAtPos", "dBodyAddForceAtRelPos", "dBodyAddRelForceAtPos",
    "dBodyAddRelForceAtRelPos", "dBodyAddTorque", "dBodyAddRelTorque", "dBodyGetPosition", "dBodyGetQuaternion",
    "dBodyGetRotation", "dBodyGetLinearVel", "dBodyGetAngularVel", "dBodySetLinearVel", "dBodySetAngularVel",
    "dBodySetPosition", "dBodySetQuaternion", "dBodySetRotation", "dBodyGetMass", "dBodyVectorToWorld",
    "dBodyVectorFromWorld", "dBodyGetRelPointPos", "dBodyGetPosRelPoint", "dBodyGetRelPointVel",
    "dBodyGetPointVel", "dBodyGetWorld", "dBodyIsEnabled", "dBodyEnable", "dBodyDisable",
    # geoms and spaces
    "dGeomGetBody", "dGeomGetPosition", "dGeomGetRotation", "dGeomGetQuaternion", "dGeomGetClass", "dGeomIsSpace",
    "dGeomGetSpace", "dSpaceGetNumGeoms", "dSpaceGetGeom", "dSpaceQuery", "dSpaceAdd", "dSpaceRemove",
    "dAreGeomsSame", "dGeomTransformGetGeom", "dCreateRay", "dGeomRaySet", "dGeomRayGet", "dGeomRaySetLength",
    "dGeomRayGetLength", "dGeomDestroy", "dCollide",
    # joints
    "dJointCreateContact", "dJointAttach", "dJointGroupEmpty",
    # random numbers from the simulation's seeded generator
    "dRandInt", "dRandReal", "rand", "RAND_MAX",
]

RAND_MAX = 2147483647
"""The largest value :func:`rand` returns (glibc's)."""


def _vector(x: float | Sequence[float], y: float | None, z: float | None) -> np.ndarray:
    try:
        if y is None and z is None:
            return np.asarray(x, dtype=float).reshape(3)
        return np.array([float(x), float(y), float(z)])  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise PluginError(f"expected 3 numbers, got {(x, y, z)!r}.") from None


def _floats(values: Sequence[float], count: int, function: str) -> np.ndarray:
    """``count`` numbers from a sequence (a dQuaternion, a dMatrix3), or a PluginError."""
    try:
        array = np.asarray(values, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        array = np.zeros(0)
    if array.shape != (count,):
        raise PluginError(f"{function}(): expected {count} numbers, got {values!r}.")
    return array


def _float(value: object, function: str) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise PluginError(f"{function}(): expected a number, got {value!r}.") from None


def _int(value: object, function: str) -> int:
    if isinstance(value, numbers.Integral):
        return int(value)
    raise PluginError(f"{function}(): expected an int, got {value!r}.")


def _fill(result: list[float] | None, values: np.ndarray | list[float]) -> list[float]:
    values = [float(v) for v in values]
    if result is not None:
        if not isinstance(result, list):
            raise PluginError(f"the result argument must be a list (ODE's dVector3), not {type(result).__name__}.")
        result[: len(values)] = values
        return result
    return values


def _matrix12(rot: np.ndarray) -> list[float]:
    out = [0.0] * 12
    for row in range(3):
        out[4 * row : 4 * row + 3] = [float(v) for v in rot[row]]
    return out


def _body(body: Body | None, function: str, state: bool = True) -> Body:
    """Check a body argument; with ``state``, make the poses and velocities it reads current (adding a force
    at the centre of mass reads nothing, so it skips that)."""
    if not isinstance(body, Body):
        raise PluginError(f"{function}(): invalid body {body!r} (NULL or not a dBodyID).")
    if state:
        current_plugin().scene.refresh()
    return body


def _geom(geom: Geom | None, function: str) -> Geom:
    if not isinstance(geom, Geom):
        raise PluginError(f"{function}(): invalid geom {geom!r} (NULL or not a dGeomID).")
    current_plugin().scene.refresh()
    return geom


# -- Webots' utility functions ------------------------------------------------------------------------------------
def dWebotsGetBodyFromDEF(DEF: str) -> Body | None:  # noqa: N802, N803 (Webots' names)
    """The body of the Solid with DEF name (or dotted DEF path) ``DEF``: its body merger, None if there is no
    such Solid, it has no Physics or it does not move."""
    runtime = current_plugin()
    if DEF is not None and not isinstance(DEF, str):
        raise PluginError(f"dWebotsGetBodyFromDEF(): the DEF name must be a string, not {DEF!r}.")
    if not DEF:
        runtime.sim.messages.warning("dWebotsGetBodyFromDEF(): invalid NULL or empty DEF argument.")
        return None
    node = runtime.scene.find_solid(DEF)
    return runtime.scene.body_of_solid(node) if node is not None else None


def dWebotsGetGeomFromDEF(DEF: str) -> Geom | None:  # noqa: N802, N803 (Webots' names)
    """The top-level geom of the boundingObject of the Solid with DEF name (or dotted path) ``DEF`` (a
    primitive, transform or space), None if there is no such Solid or it has no boundingObject."""
    runtime = current_plugin()
    if DEF is not None and not isinstance(DEF, str):
        raise PluginError(f"dWebotsGetGeomFromDEF(): the DEF name must be a string, not {DEF!r}.")
    if not DEF:
        runtime.sim.messages.warning("dWebotsGetGeomFromDEF(): invalid NULL or empty DEF argument.")
        return None
    node = runtime.scene.find_solid(DEF)
    return runtime.scene.geom_of_solid(node) if node is not None else None


def dWebotsGetContactJointGroup() -> JointGroup | None:  # noqa: N802 (Webots' name)
    """The group to create contact joints in (None inside ``webots_physics_init``, as in Webots)."""
    return current_plugin().contact_group


def dGeomSetDynamicFlag(geom: Geom) -> None:  # noqa: N802 (Webots' name)
    """Webots' multi-threading hint for body-less geoms: no effect (wbsim's physics is single-threaded)."""
    _geom(geom, "dGeomSetDynamicFlag")


def dWebotsSend(channel: int, buffer: bytes | bytearray | memoryview | str, size: int | None = None) -> None:  # noqa: N802
    """Send ``buffer`` (its first ``size`` bytes) to every enabled Receiver on exactly ``channel``, with an
    infinite signal strength and a NaN direction; never to the plugin itself."""
    runtime = current_plugin()
    channel = _int(channel, "dWebotsSend")
    if isinstance(buffer, str):
        data = buffer.encode()
    elif isinstance(buffer, (bytes, bytearray, memoryview)):
        data = bytes(buffer)
    elif buffer is None:
        data = b""
    else:  # bytes(5) would send 5 zero bytes: C passes a pointer, Python a buffer
        raise PluginError(f"dWebotsSend(): the buffer must be bytes, bytearray, memoryview or str, not "
                          f"{type(buffer).__name__} (pack numbers with struct.pack).")
    if size is not None:
        data = data[: max(_int(size, "dWebotsSend"), 0)]
    if not data:
        runtime.sim.messages.warning("dWebotsSend(): invalid argument(s): buffer == NULL or size < 1.")
        return
    bank = runtime.sim.banks.get("radio")
    deliver = getattr(bank, "deliver_from_plugin", None)
    if deliver is not None:
        deliver(channel, data)


def dWebotsReceive() -> bytes | None:  # noqa: N802 (Webots' name)
    """What emitters on channel 0 sent since the last call (packets concatenated), or None; readable once."""
    return current_plugin().sim.plugin_mailbox.receive()


def dWebotsGetTime() -> float:  # noqa: N802 (Webots' name)
    """The simulated time at the start of the current step, in ms."""
    return float(current_plugin().time_ms)


def dWebotsConsolePrintf(format: str, *args: object) -> None:  # noqa: A002, N802 (C's names)
    """``printf`` to the console (standard output)."""
    current_plugin()
    try:
        text = format % args  # always formatted, as printf ("100%%" prints "100%")
    except (TypeError, ValueError) as error:
        raise PluginError(f"dWebotsConsolePrintf(): the arguments do not match the format {format!r}: {error}") from None
    sys.stdout.write(text)
    sys.stdout.flush()


# -- bodies ---------------------------------------------------------------------------------------------------------
def _add(body: Body, force: np.ndarray | None, torque: np.ndarray | None) -> None:
    current_plugin().forces.add(body, force, torque)


def dBodyAddForce(body: Body, fx: float, fy: float, fz: float) -> None:  # noqa: N802 (ODE's names)
    """Add a force (world frame, N) at the centre of mass, acting during the next physics step."""
    forces = current_plugin().forces
    if not isinstance(body, Body):  # inline rather than _body(): plugins call this for every body and step
        _body(body, "dBodyAddForce")
    try:
        fx, fy, fz = float(fx), float(fy), float(fz)
    except (TypeError, ValueError):
        raise PluginError(f"dBodyAddForce(): expected 3 numbers, got {(fx, fy, fz)!r}.") from None
    forces.add_force(body, fx, fy, fz)


def dBodyAddRelForce(body: Body, fx: float, fy: float, fz: float) -> None:  # noqa: N802
    """Add a force given in the body frame (N) at the centre of mass."""
    body = _body(body, "dBodyAddRelForce")
    _add(body, body.rotation() @ _vector(fx, fy, fz), None)


def dBodyAddForceAtPos(body: Body, fx: float, fy: float, fz: float, px: float, py: float, pz: float) -> None:  # noqa: N802
    """Add a force (world frame, N) at a world point (m)."""
    body = _body(body, "dBodyAddForceAtPos")
    force = _vector(fx, fy, fz)
    _add(body, force, cross(_vector(px, py, pz) - body.com(), force))


def dBodyAddForceAtRelPos(body: Body, fx: float, fy: float, fz: float, px: float, py: float, pz: float) -> None:  # noqa: N802
    """Add a force (world frame, N) at a point given in the body frame (m)."""
    body = _body(body, "dBodyAddForceAtRelPos")
    force = _vector(fx, fy, fz)
    _add(body, force, cross(body.rotation() @ _vector(px, py, pz), force))


def dBodyAddRelForceAtPos(body: Body, fx: float, fy: float, fz: float, px: float, py: float, pz: float) -> None:  # noqa: N802
    """Add a force given in the body frame (N) at a world point (m)."""
    body = _body(body, "dBodyAddRelForceAtPos")
    force = body.rotation() @ _vector(fx, fy, fz)
    _add(body, force, cross(_vector(px, py, pz) - body.com(), force))


def dBodyAddRelForceAtRelPos(body: Body, fx: float, fy: float, fz: float, px: float, py: float, pz: float) -> None:  # noqa: N802
    """Add a force given in the body frame (N) at a point given in the body frame (m)."""
    body = _body(body, "dBodyAddRelForceAtRelPos")
    rot = body.rotation()
    force = rot @ _vector(fx, fy, fz)
    _add(body, force, cross(rot @ _vector(px, py, pz), force))


def dBodyAddTorque(body: Body, tx: float, ty: float, tz: float) -> None:  # noqa: N802
    """Add a torque (world frame, N m)."""
    body = _body(body, "dBodyAddTorque", state=False)
    _add(body, None, _vector(tx, ty, tz))


def dBodyAddRelTorque(body: Body, tx: float, ty: float, tz: float) -> None:  # noqa: N802
    """Add a torque given in the body frame (N m)."""
    body = _body(body, "dBodyAddRelTorque")
    _add(body, None, body.rotation() @ _vector(tx, ty, tz))


def dBodyGetPosition(body: Body) -> list[float]:  # noqa: N802
    """The body's position: its centre of mass, world frame (m)."""
    return _fill(None, _body(body, "dBodyGetPosition").com())


def dBodyGetRotation(body: Body) -> list[float]:  # noqa: N802
    """The body's rotation, ODE's 12 numbers (3 rows of 4; columns are its axes in the world)."""
    return _matrix12(_body(body, "dBodyGetRotation").rotation())


def dBodyGetQuaternion(body: Body) -> list[float]:  # noqa: N802
    """The body's orientation as a quaternion (w, x, y, z)."""
    return _fill(None, Frame(np.zeros(3), _body(body, "dBodyGetQuaternion").rotation()).quat)


def dBodyGetLinearVel(body: Body) -> list[float]:  # noqa: N802
    """The velocity of the centre of mass, world frame (m/s)."""
    return _fill(None, _body(body, "dBodyGetLinearVel").velocity()[0])


def dBodyGetAngularVel(body: Body) -> list[float]:  # noqa: N802
    """The angular velocity, world frame (rad/s)."""
    return _fill(None, _body(body, "dBodyGetAngularVel").velocity()[1])


def _require_free(done: bool, function: str) -> None:
    if not done:
        current_plugin().sim.messages.warning(
            f"{function}(): wbsim can set this only for a free body (a top-level Solid with Physics); ignored.")


def dBodySetLinearVel(body: Body, x: float, y: float, z: float) -> None:  # noqa: N802
    """Set the velocity of the centre of mass (world frame, m/s) of a free body."""
    _require_free(_body(body, "dBodySetLinearVel").set_velocity(_vector(x, y, z), None), "dBodySetLinearVel")


def dBodySetAngularVel(body: Body, x: float, y: float, z: float) -> None:  # noqa: N802
    """Set the angular velocity (world frame, rad/s) of a free body."""
    _require_free(_body(body, "dBodySetAngularVel").set_velocity(None, _vector(x, y, z)), "dBodySetAngularVel")


def dBodySetPosition(body: Body, x: float, y: float, z: float) -> None:  # noqa: N802
    """Move a free body's centre of mass to a world point (m)."""
    _require_free(_body(body, "dBodySetPosition").set_pose(_vector(x, y, z), None), "dBodySetPosition")


def dBodySetQuaternion(body: Body, q: Sequence[float]) -> None:  # noqa: N802
    """Turn a free body to the orientation ``q`` (w, x, y, z) about its centre of mass."""
    rot = quat_to_matrix(_floats(q, 4, "dBodySetQuaternion"))
    _require_free(_body(body, "dBodySetQuaternion").set_pose(None, rot), "dBodySetQuaternion")


def dBodySetRotation(body: Body, R: Sequence[float]) -> None:  # noqa: N802, N803 (ODE's names)
    """Turn a free body to the rotation ``R`` (ODE's 12 numbers) about its centre of mass."""
    values = _floats(R, 12, "dBodySetRotation")  # ODE's dMatrix3: 3 rows of 4
    rot = np.array([values[0:3], values[4:7], values[8:11]])
    _require_free(_body(body, "dBodySetRotation").set_pose(None, rot), "dBodySetRotation")


def dBodyGetMass(body: Body, mass: dMass | None = None) -> dMass:  # noqa: N802
    """The body's mass properties (filled into ``mass`` if given, and returned)."""
    result = _body(body, "dBodyGetMass").mass_properties()
    if mass is not None and not isinstance(mass, dMass):
        raise PluginError(f"dBodyGetMass(): the mass argument must be a dMass, not {mass!r}.")
    if mass is not None:
        mass.mass, mass.c, mass.I = result.mass, result.c, result.I
        return mass
    return result


def dBodyVectorToWorld(body: Body, px: float, py: float, pz: float, result: list[float] | None = None) -> list[float]:  # noqa: N802
    """A vector given in the body frame, in the world frame."""
    return _fill(result, _body(body, "dBodyVectorToWorld").rotation() @ _vector(px, py, pz))


def dBodyVectorFromWorld(body: Body, px: float, py: float, pz: float,  # noqa: N802
                         result: list[float] | None = None) -> list[float]:
    """A world vector, in the body frame."""
    return _fill(result, _body(body, "dBodyVectorFromWorld").rotation().T @ _vector(px, py, pz))


def dBodyGetRelPointPos(body: Body, px: float, py: float, pz: float,  # noqa: N802
                        result: list[float] | None = None) -> list[float]:
    """A point given in the body frame (origin: its centre of mass), in the world (m)."""
    body = _body(body, "dBodyGetRelPointPos")
    return _fill(result, body.com() + body.rotation() @ _vector(px, py, pz))


def dBodyGetPosRelPoint(body: Body, px: float, py: float, pz: float,  # noqa: N802
                        result: list[float] | None = None) -> list[float]:
    """A world point in the body frame (origin: its centre of mass)."""
    body = _body(body, "dBodyGetPosRelPoint")
    return _fill(result, body.rotation().T @ (_vector(px, py, pz) - body.com()))


def dBodyGetPointVel(body: Body, px: float, py: float, pz: float,  # noqa: N802
                     result: list[float] | None = None) -> list[float]:
    """The velocity (world frame, m/s) of the body's material point at a world point."""
    body = _body(body, "dBodyGetPointVel")
    linear, angular = body.velocity()
    return _fill(result, linear + cross(angular, _vector(px, py, pz) - body.com()))


def dBodyGetRelPointVel(body: Body, px: float, py: float, pz: float,  # noqa: N802
                        result: list[float] | None = None) -> list[float]:
    """The velocity (world frame, m/s) of a point given in the body frame."""
    body = _body(body, "dBodyGetRelPointVel")
    linear, angular = body.velocity()
    return _fill(result, linear + cross(angular, body.rotation() @ _vector(px, py, pz)))


def dBodyGetWorld(body: Body) -> World:  # noqa: N802
    """The world the body belongs to."""
    _body(body, "dBodyGetWorld")
    return current_plugin().collisions.world


def dBodyIsEnabled(body: Body) -> int:  # noqa: N802
    """1 if the body is awake, 0 if it sleeps (ODE's auto-disable; MuJoCo's sleeping)."""
    body = _body(body, "dBodyIsEnabled")
    return int(body.scene.data.body_awake[body.root] != 0)


def dBodyEnable(body: Body) -> None:  # noqa: N802
    """Wake the body up (it will move again from the next physics step)."""
    body = _body(body, "dBodyEnable")
    if body.scene.data.body_awake[body.root] == 0:
        _add(body, None, np.array([0.0, 0.0, 1e-300]))  # MuJoCo wakes a tree with an applied force


def dBodyDisable(body: Body) -> None:  # noqa: N802
    """ODE's manual disabling: not simulated (MuJoCo puts bodies to sleep itself); ignored."""
    _body(body, "dBodyDisable")


# -- geoms and spaces ---------------------------------------------------------------------------------------------
def dGeomGetBody(geom: Geom) -> Body | None:  # noqa: N802
    """The body the geom moves with (None: static, or a body-less geom such as a ray)."""
    return _geom(geom, "dGeomGetBody").body


def dGeomGetPosition(geom: Geom) -> list[float]:  # noqa: N802
    """The geom's position, world frame (m); for a ray, its start."""
    return _fill(None, _geom(geom, "dGeomGetPosition").world_frame().pos)


def dGeomGetRotation(geom: Geom) -> list[float]:  # noqa: N802
    """The geom's rotation, ODE's 12 numbers; for a ray, its z-axis is the ray's direction."""
    return _matrix12(_geom(geom, "dGeomGetRotation").world_frame().rot)


def dGeomGetQuaternion(geom: Geom, result: list[float] | None = None) -> list[float]:  # noqa: N802
    """The geom's orientation as a quaternion (w, x, y, z)."""
    return _fill(result, _geom(geom, "dGeomGetQuaternion").world_frame().quat)


def dGeomGetClass(geom: Geom) -> int:  # noqa: N802
    """The geom's ODE class (``dBoxClass``, ``dGeomTransformClass``, ``dSimpleSpaceClass``, ...)."""
    return _geom(geom, "dGeomGetClass").geom_class


def dGeomIsSpace(geom: Geom) -> int:  # noqa: N802
    """1 if the geom is a space."""
    return int(_geom(geom, "dGeomIsSpace").is_space())


def dGeomGetSpace(geom: Geom) -> Space | None:  # noqa: N802
    """The space holding the geom (the world space for a top-level geom)."""
    return _geom(geom, "dGeomGetSpace").space


def _space(space: Geom, function: str) -> Space:
    if not isinstance(space, Space):
        raise PluginError(f"{function}(): {space!r} is not a space.")
    return space


def dSpaceGetNumGeoms(space: Space) -> int:  # noqa: N802
    """How many geoms the space holds."""
    return len(_space(space, "dSpaceGetNumGeoms").children)


def dSpaceGetGeom(space: Space, i: int) -> Geom | None:  # noqa: N802
    """The ``i``-th geom of the space (None out of range)."""
    children = _space(space, "dSpaceGetGeom").children
    i = _int(i, "dSpaceGetGeom")
    return children[i] if 0 <= i < len(children) else None


def dSpaceQuery(space: Space, geom: Geom) -> int:  # noqa: N802
    """1 if ``geom`` is directly in ``space``."""
    if not isinstance(space, Space):
        return 0
    return int(any(child is geom for child in space.children))


def dSpaceAdd(space: Space, geom: Geom) -> None:  # noqa: N802
    """Put a geom the plugin created (a ray) in a space."""
    geom = _geom(geom, "dSpaceAdd")
    if geom.space is not None:
        geom.space.remove(geom)
    _space(space, "dSpaceAdd").add(geom)


def dSpaceRemove(space: Space, geom: Geom) -> None:  # noqa: N802
    """Take a geom out of a space."""
    _space(space, "dSpaceRemove").remove(geom)


def dAreGeomsSame(g1: Geom | None, g2: Geom | None) -> int:  # noqa: N802
    """Webots-ODE's identity test of two geoms: 1 if they are the same object."""
    return int(g1 is not None and g1 is g2)


def dGeomTransformGetGeom(geom: Geom) -> Geom | None:  # noqa: N802
    """The geom a transform holds."""
    return getattr(_geom(geom, "dGeomTransformGetGeom"), "child", None)


def dCreateRay(space: Space | None, length: float) -> Ray:  # noqa: N802
    """A ray of ``length`` m, put in ``space`` (usually the world space, ``dGeomGetSpace(robot_geom)``):
    during collision passes the plugin's collide callback gets (ray, geom) pairs for every geom it crosses."""
    runtime = current_plugin()
    ray = Ray(runtime.scene, length)
    if space is not None:
        _space(space, "dCreateRay").add(ray)
    runtime.collisions.rays.append(ray)
    return ray


def _ray(ray: Geom, function: str) -> Ray:
    if not isinstance(ray, Ray):
        raise PluginError(f"{function}(): {ray!r} is not a ray.")
    return ray


def dGeomRaySet(ray: Ray, px: float, py: float, pz: float, dx: float, dy: float, dz: float) -> None:  # noqa: N802
    """Place the ray: start (world, m) and direction (normalised here)."""
    ray = _ray(ray, "dGeomRaySet")
    direction = _vector(dx, dy, dz)
    norm = float(np.linalg.norm(direction))
    ray.start = _vector(px, py, pz)
    ray.direction = direction / norm if norm > 0 else np.array([0.0, 0.0, 1.0])


def dGeomRayGet(ray: Ray, start: list[float] | None = None,  # noqa: N802
                direction: list[float] | None = None) -> tuple[list[float], list[float]]:
    """The ray's start and (unit) direction (also filled into ``start`` and ``direction`` if given)."""
    ray = _ray(ray, "dGeomRayGet")
    return _fill(start, ray.start), _fill(direction, ray.direction)


def dGeomRaySetLength(ray: Ray, length: float) -> None:  # noqa: N802
    """Set the ray's length (m)."""
    _ray(ray, "dGeomRaySetLength").length = _float(length, "dGeomRaySetLength")


def dGeomRayGetLength(ray: Ray) -> float:  # noqa: N802
    """The ray's length (m)."""
    return _ray(ray, "dGeomRayGetLength").length


def dGeomDestroy(geom: Geom) -> None:  # noqa: N802
    """Destroy a geom the plugin created (a ray); Webots' own geoms must not be destroyed."""
    runtime = current_plugin()
    if isinstance(geom, Ray):
        if geom.space is not None:
            geom.space.remove(geom)
        if geom in runtime.collisions.rays:
            runtime.collisions.rays.remove(geom)
        return
    raise PluginError("dGeomDestroy(): only geoms the plugin created (rays) can be destroyed.")


def dCollide(o1: Geom, o2: Geom, flags: int, contact: Sequence[dContact | dContactGeom] | None = None,
             skip: int | None = None) -> int:  # noqa: N802
    """Contact points between ``o1`` and ``o2`` (at most ``flags & 0xffff``), written into the ``geom`` field
    of the items of ``contact`` (``dContact`` or ``dContactGeom``), as ODE's ``dCollide``; returns their
    number. The normal points from ``o2`` towards ``o1``; for a ray, ``depth`` is the distance along it."""
    runtime = current_plugin()
    _geom(o1, "dCollide")
    _geom(o2, "dCollide")
    limit = int(flags) & 0xFFFF
    if contact is not None:
        limit = min(limit, len(contact))
    found = runtime.collisions.dcollide(o1, o2, limit)
    for item, point in zip(contact or (), found):
        target = item.geom if isinstance(item, dContact) else item
        target.pos, target.normal, target.depth = list(point.pos), list(point.normal), point.depth
        target.g1, target.g2, target.side1, target.side2 = point.g1, point.g2, point.side1, point.side2
    return len(found)


# -- joints -----------------------------------------------------------------------------------------------------
def dJointCreateContact(world: World, group: JointGroup | None, contact: dContact) -> ContactJoint:  # noqa: N802
    """A contact joint from a copy of ``contact`` (attach it with :func:`dJointAttach`). Made in the collision
    pass it acts during the next physics step; made in ``step_end`` or ``step``, during the next two (Webots
    empties the group they go in only after the following collision pass); without a group, until a reset."""
    runtime = current_plugin()
    if not isinstance(contact, dContact):
        raise PluginError("dJointCreateContact(): the contact must be a dContact.")
    return runtime.collisions.create_contact(group, contact, runtime.contact_lifetime())


def dJointAttach(joint: ContactJoint, body1: Body | None, body2: Body | None) -> None:  # noqa: N802
    """Attach a contact joint: ``body1`` is pushed along the contact normal, ``body2`` against it (None: the
    static environment)."""
    current_plugin()
    if not isinstance(joint, ContactJoint):
        raise PluginError("dJointAttach(): only contact joints are supported.")
    for body in (body1, body2):
        if body is not None and not isinstance(body, Body):
            raise PluginError(f"dJointAttach(): invalid body {body!r}.")
    joint.body1, joint.body2 = body1, body2


def dJointGroupEmpty(group: JointGroup) -> None:  # noqa: N802
    """Destroy every joint of a group."""
    current_plugin()
    if not isinstance(group, JointGroup):
        raise PluginError(f"dJointGroupEmpty(): invalid joint group {group!r}.")
    group.joints.clear()


# -- random numbers ---------------------------------------------------------------------------------------------
def dRandInt(n: int) -> int:  # noqa: N802
    """A random integer in [0, n) from the simulation's seeded generator."""
    runtime = current_plugin()
    return int(runtime.sim.rng.integers(0, max(_int(n, "dRandInt"), 1)))


def dRandReal() -> float:  # noqa: N802
    """A random number in [0, 1] from the simulation's seeded generator."""
    return float(current_plugin().sim.rng.random())


def rand() -> int:
    """C's ``rand()`` for ported plugins: an integer in [0, RAND_MAX] from the simulation's seeded generator
    (so runs are reproducible with ``WorldInfo.randomSeed``)."""
    return int(current_plugin().sim.rng.integers(0, RAND_MAX, endpoint=True))

