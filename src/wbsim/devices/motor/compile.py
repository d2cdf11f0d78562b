"""Compile RotationalMotor / LinearMotor nodes: Webots' (ODE's) velocity motor realised in MuJoCo.

For each motor on a joint with an endPoint the compiler adds (see ``docs/motors.md``):

1. a *reference* body hanging from the driven joint's parent body, with one hinge (the reference DOF),
   negligible mass and an armature ``10^4 x`` the driven joint's own inertia (computed from the finished
   spec before compilation, checked against MuJoCo's ``dof_M0`` after it);
2. a fixed tendon ``joint - reference`` whose friction loss is ``max(staticFriction, available torque)``,
   with ``solreffriction = (2 dt, 1)`` and a near-hard impedance: the velocity motor;
3. a ``motor`` actuator on the joint for torque control.

The joint's own static friction moves into the tendon (the motor applies it, as Webots' motor does).
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco

from wbsim.compile.bindings import JointBinding
from wbsim.compile.context import CompileContext
from wbsim.compile.inertia import joint_inertia_at_rest
from wbsim.compile.slots import DeviceSlot, JointSlot
from wbsim.devices.kind import DeviceCompiler
from wbsim.devices.motor.coupling import MotorLimits, couple_motors
from wbsim.world.model import WbNode

__all__ = ["MotorBinding", "MotorCompiler"]

# The motor reference DOF must barely yield to the motor's reaction, yet MuJoCo's Newton solver loses
# precision beyond ~1e5 between inertias of one island: 1e4 times the driven joint's inertia tracks the
# target to 1e-4 of the gap per physics step (measured; see docs/motors.md).
REFERENCE_ARMATURE_RATIO = 1.0e4
_MOTOR_SOLIMP = [0.9999, 0.9999, 0.001, 0.5, 2.0]  # near-hard velocity motor, like ODE's
_TINY_MASS = 1.0e-6
# A reference armature computed before compilation is kept if it is this close (relative) to the one MuJoCo's
# compiled dof_M0 gives; otherwise tune() replaces it and asks for mj_setConst. Both are sums of the same
# terms in double precision, so they agree to rounding.
_ARMATURE_TOLERANCE = 1.0e-9


@dataclass(frozen=True, slots=True)
class MotorBinding:
    """A RotationalMotor or LinearMotor and the MuJoCo elements that realise it.

    The motor is Webots' (ODE's) velocity motor: a tendon ``joint - reference`` with friction loss equal
    to the available torque, where ``reference`` is an auxiliary degree of freedom with a huge
    armature whose velocity is set to the commanded velocity. Torque control uses a plain motor actuator.

    Attributes:
        node: the motor node.
        joint: the joint it drives.
        linear: True for a LinearMotor (forces in N, positions in m).
        tendon_id: the velocity-motor tendon (-1 if the joint has no endPoint).
        reference_dof_adr: the auxiliary reference degree of freedom's index in ``qvel`` (-1 if none).
        actuator_id: the torque/force actuator (-1 if none).
        static_friction: the joint's staticFriction (minimum friction force of the motor, as in Webots).
        multiplier, min_position, max_position, max_velocity: the fields, as Webots' load checks leave them
            (a multiplier of 0 becomes 1; coupled motors' limits made consistent, see ``coupling.py``).
        coupling: the coupled-motor group of the motor (``<group>::<member>`` names), -1 if none.
    """

    node: WbNode
    joint: JointBinding
    linear: bool
    tendon_id: int
    reference_dof_adr: int
    actuator_id: int
    static_friction: float
    multiplier: float = 1.0
    min_position: float = 0.0
    max_position: float = 0.0
    max_velocity: float = 10.0
    coupling: int = -1

    def helper_bodies(self, model: mujoco.MjModel) -> tuple[int, ...]:
        """The MuJoCo bodies made for this motor alone (its reference body, whose state a recompilation at run
        time carries over with the motor, :mod:`wbsim.sim.rebuild`)."""
        return (int(model.dof_bodyid[self.reference_dof_adr]),) if self.reference_dof_adr >= 0 else ()


def _robot_key(node: WbNode) -> int:
    """The identity of the nearest Robot above ``node`` (0 if none): coupling stays inside one robot."""
    parent = node.parent
    while parent is not None and not parent.is_a("robot"):
        parent = parent.parent
    return id(parent) if parent is not None else 0


@dataclass(eq=False)
class _Motor:
    node: WbNode
    joint: JointSlot
    tendon: str = ""
    reference_joint: str = ""
    reference_spec: mujoco.MjsJoint | None = None
    actuator: str = ""


class MotorCompiler(DeviceCompiler):
    """Claims the motors of joints (one per joint) and builds their MuJoCo elements."""

    def __init__(self) -> None:
        self._motors: list[_Motor] = []
        self._by_joint: dict[int, _Motor] = {}
        self._bindings: tuple[MotorBinding, ...] = ()

    def add(self, ctx: CompileContext, node: WbNode, slot: DeviceSlot) -> bool:
        """Claim a motor of the joint ``slot``; a second motor on one joint is an error."""
        assert isinstance(slot, JointSlot)
        if id(slot) in self._by_joint:
            ctx.error("A joint can have only one motor.", node)
            return False
        motor = _Motor(node, slot)
        self._motors.append(motor)
        self._by_joint[id(slot)] = motor
        return True

    def contribute(self, ctx: CompileContext) -> None:
        """Reference DOF, friction-loss tendon and torque actuator of every motor whose joint moves."""
        for motor in self._motors:
            slot = motor.joint
            if slot.joint_spec is None or slot.parent_body is None:
                continue  # no endPoint: nothing to drive
            slot.joint_spec.frictionloss = 0.0  # the motor's tendon applies the static friction
            if slot.joint_spec.limited == mujoco.mjtLimited.mjLIMITED_TRUE:
                # A stop as hard as the motor that pushes into it: with the stops' usual 0.999 the motor's
                # 0.9999 row wins and pushes a light link through (tests/physics/test_joint_stops.py).
                slot.joint_spec.solimp_limit = list(_MOTOR_SOLIMP)
            # The reference DOF hangs from the driven joint's parent body: the motor then drives the velocity
            # relative to the parent, as ODE's joint motor does, and the tendon stays inside one kinematic
            # tree (MuJoCo 4.0's sparse solver path diverges with a tendon joining two trees; measured).
            reference = slot.parent_body.add_body(name=ctx.fresh_name("ref"))
            reference.explicitinertial = True
            reference.mass = _TINY_MASS
            reference.fullinertia = [_TINY_MASS] * 3 + [0.0] * 3
            motor.reference_joint = ctx.fresh_name("refj")
            motor.reference_spec = reference.add_joint(name=motor.reference_joint, type=mujoco.mjtJoint.mjJNT_HINGE,
                                                       axis=[0, 0, 1], armature=1.0)
            tendon = ctx.spec.add_tendon(name=ctx.fresh_name("t"))
            tendon.wrap_joint(slot.joint_name, 1.0)
            tendon.wrap_joint(motor.reference_joint, -1.0)
            available = float(motor.node["maxTorque" if motor.node.type_name == "RotationalMotor" else "maxForce"])  # type: ignore[arg-type]
            tendon.frictionloss = max(slot.static_friction, available)
            tendon.solref_friction = [2.0 * ctx.dt_s, 1.0]
            tendon.solimp_friction = _MOTOR_SOLIMP
            actuator = ctx.spec.add_actuator(name=ctx.fresh_name("a"), target=slot.joint_name,
                                             trntype=mujoco.mjtTrn.mjTRN_JOINT)
            motor.tendon, motor.actuator = tendon.name, actuator.name

    def finish_spec(self, ctx: CompileContext) -> None:
        """Size each reference armature from its driven joint's inertia in the finished spec (so that the
        compilation's own constants are final and :meth:`tune` has nothing to change)."""
        for motor in self._motors:
            if motor.reference_spec is None or motor.joint.joint_spec is None:
                continue
            inertia = joint_inertia_at_rest(motor.joint.joint_spec)
            if inertia is not None:
                motor.reference_spec.armature = _reference_armature(inertia)

    def bindings(self, ctx: CompileContext, model: mujoco.MjModel) -> tuple[MotorBinding, ...]:
        """One :class:`MotorBinding` per motor, in scene order."""
        result = []
        limits = [MotorLimits(float(m.node["multiplier"]), float(m.node["minPosition"]),  # type: ignore[arg-type]
                              float(m.node["maxPosition"]), float(m.node["maxVelocity"]))  # type: ignore[arg-type]
                  for m in self._motors]
        groups = couple_motors([str(m.node["name"]) for m in self._motors], [_robot_key(m.node) for m in self._motors],
                               limits, lambda i, text, field: ctx.warn(text, self._motors[i].node, field))
        for motor, limit, group in zip(self._motors, limits, groups):
            reference = ctx.element_id(model, mujoco.mjtObj.mjOBJ_JOINT, motor.reference_joint)
            result.append(MotorBinding(
                node=motor.node,
                joint=ctx.joint_binding(motor.joint),
                linear=motor.node.type_name == "LinearMotor",
                tendon_id=ctx.element_id(model, mujoco.mjtObj.mjOBJ_TENDON, motor.tendon),
                reference_dof_adr=int(model.jnt_dofadr[reference]) if reference >= 0 else -1,
                actuator_id=ctx.element_id(model, mujoco.mjtObj.mjOBJ_ACTUATOR, motor.actuator),
                static_friction=motor.joint.static_friction,
                multiplier=limit.multiplier,
                min_position=limit.min_position,
                max_position=limit.max_position,
                max_velocity=limit.max_velocity,
                coupling=group,
            ))
        self._bindings = tuple(result)
        return self._bindings

    def tune(self, ctx: CompileContext, model: mujoco.MjModel) -> bool:
        """Check each reference armature against its driven joint's compiled inertia (``dof_M0``); one that
        :meth:`finish_spec` could not compute or that differs is set here, and constants are refreshed."""
        refresh = False
        for binding in self._bindings:
            if binding.reference_dof_adr >= 0:
                exact = _reference_armature(float(model.dof_M0[binding.joint.dof_adr]))
                if not abs(float(model.dof_armature[binding.reference_dof_adr]) - exact) <= _ARMATURE_TOLERANCE * exact:
                    model.dof_armature[binding.reference_dof_adr] = exact
                    refresh = True
        return refresh


def _reference_armature(joint_inertia: float) -> float:
    """The armature of a motor's reference DOF for a driven joint of inertia ``joint_inertia`` (kg*m^2 or kg)."""
    return REFERENCE_ARMATURE_RATIO * max(joint_inertia, 1e-9)
