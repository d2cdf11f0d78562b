"""Closed kinematic loops: joints whose ``endPoint`` is a ``SolidReference``.

Webots' rules (``WbSolidReference``, ``WbBasicJoint::setJoint``):

- ``solidName`` names a Solid found by a depth-first search from the *top* Solid above the joint (the
  outermost Solid ancestor), through ``children`` (Groups and Poses looked through) and the Solid
  endPoints of joints, the Solid itself before its children; the joint's closest upper Solid is skipped
  (a joint cannot link a Solid to itself). The first match wins.
- ``"<static environment>"`` links the joint's upper Solid to the static world instead.
- An unknown name, or the closest upper Solid's name, makes Webots warn ``SolidReference has an invalid
  '<name>' name or refers to its closest upper solid, which is prohibited.``; an empty name, or a Solid without
  Physics, leaves the joint detached without a message (wbsim warns). The world loads either way and the loop
  stays open.

How wbsim builds a loop (see ``docs/closed_loops.md``): the closing joint is a real MuJoCo joint on an
auxiliary body of negligible mass (:data:`AUX_MASS`, no geoms) hanging from the joint's parent body at the
anchor; a MuJoCo ``weld`` equality ties a site on that body to a site on the referenced Solid's body placed
at the same pose at load (the anchor, so the weld's lever arm is zero). The joint's devices (motors,
position sensors, brakes, coupled motors) then work unchanged and read the loop's real angle.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

import mujoco
import numpy as np

from wbsim.compile.frames import Frame, quat_to_matrix
from wbsim.compile.slots import JointSlot
from wbsim.world.model import WbNode

__all__ = [
    "STATIC_ENVIRONMENT",
    "AUX_MASS",
    "LOOP_SOLIMP",
    "loop_solref",
    "LoopClosure",
    "Resolution",
    "resolve_reference",
    "body_world_frame",
    "add_loop_weld",
    "WELD_PREFIX",
    "tie_loop_weights",
    "closing_dofs",
    "closing_joint_ids",
]

#: The ``solidName`` that links a joint to the static world (Webots' ``WbSolidReference::STATIC_ENVIRONMENT``).
STATIC_ENVIRONMENT: Final = "<static environment>"

#: Mass (kg) and principal moments (kg*m^2) of the auxiliary body carrying a closing joint: it adds this much
#: to the joint's parent, far below anything a world describes, and has no geoms (so no contacts).
AUX_MASS: Final = 1.0e-6

#: Impedance of the loop welds: near-hard (as the connector welds and the motors), so that the gap is set by the
#: time constant alone (measured in ``tests/physics/test_closed_loops.py``; table in ``docs/closed_loops.md``).
LOOP_SOLIMP: Final = (0.9999, 0.9999, 0.001, 0.5, 2.0)

#: Name prefix of the loop welds in the MuJoCo model (the builder names them ``loopweld<n>``).
WELD_PREFIX: Final = "loopweld"

# The builder names a Solid's body ``b<n>``; the bodies it adds itself (a closing joint's auxiliary body, a
# Hinge2Joint's and a BallJoint's intermediate bodies, a motor's reference body) have other prefixes.
_SOLID_BODY: Final = re.compile(r"b\d+")


def loop_solref(dt_s: float) -> tuple[float, float]:
    """The loop welds' ``solref``: a time constant of two physics steps (MuJoCo's stiffest stable choice), critically
    damped. The gap left by a load therefore shrinks with the square of the physics step."""
    return (2.0 * dt_s, 1.0)


@dataclass(eq=False)
class LoopClosure:
    """One closing joint, recorded during the tree walk and welded once every body exists.

    Attributes:
        joint: the joint node whose endPoint is the SolidReference.
        target: the referenced Solid node, or None for the static environment.
        aux_name: the auxiliary body's MuJoCo name.
        aux_body: the auxiliary body (it carries the joint's last MuJoCo joint).
        upper_body: the MuJoCo body of the joint's parent (for the contact exclusion), "world" if static.
        slots: the joint's slots (one per axis) whose ``end_point`` becomes the target's Solid slot.
    """

    joint: WbNode
    target: WbNode | None
    aux_name: str
    aux_body: mujoco.MjsBody
    upper_body: str
    slots: list[JointSlot] = field(default_factory=list)


def _upper_solid(node: WbNode) -> WbNode | None:
    above = node.parent
    while above is not None and not above.is_a("solid"):
        above = above.parent
    return above


def _top_solid(node: WbNode) -> WbNode | None:
    top = None
    above = node.parent
    while above is not None:
        if above.is_a("solid"):
            top = above
        above = above.parent
    return top


def _solid_children(solid: WbNode) -> Iterator[WbNode]:
    """Webots' ``mSolidChildren`` of a Solid, in order: Solids in ``children`` (through Groups and Poses) and
    the Solid endPoints of joints there (not SolidReferences)."""
    stack = list(reversed(solid.get("children", ()) or ()))  # type: ignore[arg-type]
    while stack:
        node = stack.pop()
        if node.is_a("solid"):
            yield node
        elif node.is_a("joint"):
            end_point = node.get("endPoint")
            if isinstance(end_point, WbNode) and end_point.is_a("solid"):
                yield end_point
        elif node.is_a("group"):
            stack.extend(reversed(node.get("children", ()) or ()))  # type: ignore[arg-type]


def _find_solid(top: WbNode, name: str, exception: WbNode | None) -> WbNode | None:
    """Webots' ``WbSolid::findSolid``: pre-order, a Solid before its Solid children, skipping ``exception``."""
    stack = [top]
    while stack:
        solid = stack.pop()
        if solid.get("name") == name and solid is not exception:
            return solid
        stack.extend(reversed(list(_solid_children(solid))))
    return None


@dataclass(frozen=True)
class Resolution:
    """What a SolidReference resolves to.

    Attributes:
        target: the referenced Solid (None for the static environment or when unresolved).
        static: True for ``"<static environment>"``.
        problem: why the loop stays open ("" when it closes): a message to warn with.
    """

    target: WbNode | None
    static: bool
    problem: str = ""


def resolve_reference(reference: WbNode) -> Resolution:
    """Resolve a SolidReference placed in a joint's ``endPoint`` with Webots' rules (see the module docstring).

    Returns:
        The resolution; ``problem`` is non-empty when the joint stays detached (the caller warns with it).
    """
    name = str(reference["solidName"])
    if name == STATIC_ENVIRONMENT:
        return Resolution(None, True)
    if not name:
        return Resolution(None, False, "SolidReference without solidName: the joint links nothing and the loop stays "
                                       "open (as in Webots).")
    top = _top_solid(reference)
    target = _find_solid(top, name, _upper_solid(reference)) if top is not None else None
    if target is None:
        return Resolution(None, False, f"SolidReference has an invalid '{name}' name or refers to its closest upper "
                                       "solid, which is prohibited.")
    if not isinstance(target.get("physics"), WbNode):
        return Resolution(None, False, f"SolidReference '{name}' refers to a Solid without Physics: Webots attaches no "
                                       "joint to it, so the loop stays open.")
    return Resolution(target, False)


def body_world_frame(body: mujoco.MjsBody) -> Frame:
    """The world pose of a MuJoCo body being built, at the model's reference configuration (``qpos0``).

    The builder places every body with ``pos`` and ``quat`` only, so the pose is the chain of those.
    """
    frame = Frame.identity()
    while body is not None and body.name != "world":
        local = Frame(np.asarray(body.pos, dtype=float), quat_to_matrix(np.asarray(body.quat, dtype=float)))
        frame = local @ frame
        body = body.parent
    return frame


def add_loop_weld(spec: mujoco.MjSpec, closure: LoopClosure, target_body: mujoco.MjsBody, name: str,
                  dt_s: float) -> None:
    """Weld the closure's auxiliary body to ``target_body`` (the world body for the static environment).

    Two sites coincide at load: one at the auxiliary body's origin (the joint's anchor, or a SliderJoint's frame),
    one on the target at the same pose; the weld holds their frames together (no lever arm at the anchor).
    """
    aux_world = body_world_frame(closure.aux_body)
    on_target = body_world_frame(target_body).inverse() @ aux_world
    closure.aux_body.add_site(name=f"{name}a", pos=[0.0, 0.0, 0.0], quat=[1.0, 0.0, 0.0, 0.0])
    target_body.add_site(name=f"{name}b", pos=on_target.pos.tolist(), quat=on_target.quat.tolist())
    spec.add_equality(name=name, type=mujoco.mjtEq.mjEQ_WELD, objtype=mujoco.mjtObj.mjOBJ_SITE,
                      name1=f"{name}a", name2=f"{name}b",
                      data=[0.0] * 6 + [1.0, 0.0, 0.0, 0.0, 1.0, 0.0],  # site welds ignore it; no 1 m default anchor
                      solref=list(loop_solref(dt_s)), solimp=list(LOOP_SOLIMP))


def _is_solid_body(model: mujoco.MjModel, body: int) -> bool:
    """True for the body of a Solid (the builder names them ``b<n>``), False for the bodies it adds itself."""
    return bool(_SOLID_BODY.fullmatch(mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, body) or ""))


def _loop_welds(model: mujoco.MjModel) -> list[int]:
    return [eq for eq in range(model.neq)
            if (mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_EQUALITY, eq) or "").startswith(WELD_PREFIX)]


def _closing_chains(model: mujoco.MjModel) -> Iterator[tuple[list[int], int, int]]:
    """Per loop weld: the bodies carrying the closing joint's MuJoCo joints (the auxiliary body and the
    intermediate bodies above it), the joint's parent Solid's body (0: the world) and the target's body."""
    for eq in _loop_welds(model):
        aux = int(model.site_bodyid[model.eq_obj1id[eq]])
        chain = [aux]
        upper = int(model.body_parentid[aux])
        while upper > 0 and not _is_solid_body(model, upper):
            chain.append(upper)
            upper = int(model.body_parentid[upper])
        yield chain, upper, int(model.site_bodyid[model.eq_obj2id[eq]])


def closing_joint_ids(model: mujoco.MjModel) -> set[int]:
    """The MuJoCo joints of the joints closing loops (a HingeJoint's one, a Hinge2Joint's two, ...)."""
    return {joint for chain, _, _ in _closing_chains(model) for body in chain
            for joint in range(int(model.body_jntadr[body]), int(model.body_jntadr[body] + model.body_jntnum[body]))}


def closing_dofs(model: mujoco.MjModel) -> dict[int, float]:
    """The degrees of freedom of the joints closing loops, with the inertia (kg*m^2 or kg) they stand for.

    A closing joint's MuJoCo joints sit on nearly massless bodies (the auxiliary body, and a Hinge2Joint's or a
    BallJoint's intermediate bodies), so MuJoCo's own estimate of their inertia (``dof_M0``) is that of nothing;
    through the loop they move real links. Each one stands for the largest inertia of a Solid's degree of freedom
    in the kinematic trees the joint links (its parent's and the referenced Solid's): the scale motors, stops and
    friction on the joint must be stiff against. Linear in the model's size.
    """
    chains = list(_closing_chains(model))
    if not chains:
        return {}
    solid_body = np.array([_is_solid_body(model, b) for b in range(model.nbody)], dtype=bool)
    real = solid_body[model.dof_bodyid] & (model.dof_treeid >= 0)
    largest = np.zeros(max(int(model.ntree), 1))
    np.maximum.at(largest, model.dof_treeid[real], model.dof_M0[real])
    result: dict[int, float] = {}
    for chain, upper, target in chains:
        trees = [int(model.body_treeid[b]) for b in (upper, target) if b > 0 and model.body_treeid[b] >= 0]
        inertia = max((float(largest[t]) for t in trees), default=0.0)
        if inertia <= 0.0:
            continue
        for body in chain:
            for joint in range(int(model.body_jntadr[body]), int(model.body_jntadr[body] + model.body_jntnum[body])):
                first = int(model.jnt_dofadr[joint])
                count = {int(mujoco.mjtJoint.mjJNT_BALL): 3}.get(int(model.jnt_type[joint]), 1)
                for dof in range(first, first + count):
                    result[dof] = max(result.get(dof, 0.0), inertia)
    return result


def tie_loop_weights(model: mujoco.MjModel) -> None:
    """Give loop welds and closing joints the softness of the real links they connect.

    MuJoCo scales a constraint's softness by an estimate of the inverse inertia it acts on (``body_invweight0``,
    ``dof_invweight0``, ``tendon_invweight0``, computed by ``mj_setConst`` from the tree alone). The auxiliary
    body is nearly massless and sits at the anchor, away from its parent's centre of mass: its estimate is that
    of a point on a spinning light arm, up to 10^4 times its parent's, and the weld then yields millimetres under
    a few newtons (measured on the coupled-motors gripper). So:

    - the auxiliary body takes its parent Solid's estimate: the weld is as stiff as a MuJoCo weld between the two
      Solids the joint links;
    - the closing joint's degrees of freedom, and the tendons over them (a motor's), take the inertia of
      :func:`closing_dofs`: a motor, a stop or static friction on the closing joint holds it as on any joint.

    Call after every ``mj_setConst`` (which recomputes the estimates).
    """
    for eq in _loop_welds(model):
        aux = int(model.site_bodyid[model.eq_obj1id[eq]])
        upper = int(model.body_parentid[aux])
        while upper > 0 and not _is_solid_body(model, upper):
            upper = int(model.body_parentid[upper])
        model.body_invweight0[aux] = model.body_invweight0[upper]
    dofs = closing_dofs(model)
    if not dofs:
        return
    for dof, inertia in dofs.items():
        model.dof_invweight0[dof] = 1.0 / (inertia + float(model.dof_armature[dof]))
    closing_joints = {int(model.dof_jntid[dof]) for dof in dofs}
    for tendon in range(model.ntendon):
        first, count = int(model.tendon_adr[tendon]), int(model.tendon_num[tendon])
        wraps = range(first, first + count)
        if not all(model.wrap_type[w] == mujoco.mjtWrap.mjWRAP_JOINT for w in wraps):
            continue
        joints = [int(model.wrap_objid[w]) for w in wraps]
        if not closing_joints.intersection(joints):
            continue
        model.tendon_invweight0[tendon] = sum(float(model.wrap_prm[w]) ** 2 *
                                              float(model.dof_invweight0[model.jnt_dofadr[j]])
                                              for w, j in zip(wraps, joints))
