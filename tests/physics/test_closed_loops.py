"""Closed kinematic loops (a joint's ``endPoint SolidReference``) against analytic kinematics and dynamics.

The main mechanism is a crank-rocker four-bar in the vertical x-z plane (Grashof: the crank turns fully): ground
pivots A = (0, 0) and B = (G, 0) on a static base, crank A-C, coupler C-E, rocker B-E; the coupler's last hinge
at E closes the loop onto the rocker with a SolidReference. Every hinge axis is -y, so a positive angle turns x
towards z. For a crank angle theta the loop-closure equations give E (intersection of the circles about C and B),
hence the rocker angle psi and the coupler angle phi: the position sensors must read those, and the two sites
of the loop weld must stay together (the gap).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import mujoco
import numpy as np
import pytest

from wbsim.compile.builder import compile_world
from wbsim.compile.loops import WELD_PREFIX
from wbsim.errors import WorldLoadError
from wbsim.world.loader import load_world_model_from_string

G, CRANK, COUPLER, ROCKER = 0.10, 0.03, 0.10, 0.06  # m: ground, crank, coupler, rocker lengths
THETA0 = math.radians(60.0)  # the crank's angle in the file
SIDE = 0.01  # m: square section of the bars
DENSITY = 2700.0  # kg/m^3
FINGER = Path(__file__).resolve().parents[2] / "examples" / "worlds" / "four_bar_finger.wbt"


def closure(theta: float) -> tuple[float, float]:
    """(phi, psi): the coupler's and rocker's absolute angles (rad) closing the loop at crank angle theta."""
    c = np.array([CRANK * math.cos(theta), CRANK * math.sin(theta)])
    b = np.array([G, 0.0])
    d = float(np.linalg.norm(b - c))
    a = (COUPLER**2 - ROCKER**2 + d**2) / (2.0 * d)
    h = math.sqrt(COUPLER**2 - a**2)
    u = (b - c) / d
    e = c + a * u + h * np.array([-u[1], u[0]])  # the branch with E above the line C-B
    return math.atan2(e[1] - c[1], e[0] - c[0]), math.atan2(e[1], e[0] - G)


def four_bar(crank_devices: str = "", closing_devices: str = "", damping: float = 0.0, info: str = "",
             closing_params: str = "") -> str:
    """The crank-rocker world; devices are inserted in the crank's and the closing joint's ``device`` fields."""
    phi0, psi0 = closure(THETA0)
    params = f"axis 0 -1 0 dampingConstant {damping}"
    # No damping on the closing joint: see docs/closed_loops.md (MuJoCo's implicit damping lags it).
    closing = f"axis 0 -1 0 {closing_params}".strip()

    def bar(length: float) -> str:
        box = f"Box {{ size {length} {SIDE} {SIDE} }}"
        return f"Pose {{ translation {length / 2} 0 0 children [ Shape {{ geometry {box} }} ] }}"

    return f"""
WorldInfo {{ basicTimeStep 8 {info} }}
Robot {{
  translation 0 0 1
  name "robot"
  children [
    HingeJoint {{
      jointParameters HingeJointParameters {{ {params} }}
      device [ {crank_devices} PositionSensor {{ name "crank sensor" }} ]
      endPoint Solid {{
        rotation 0 -1 0 {THETA0}
        name "crank"
        children [
          HingeJoint {{
            jointParameters HingeJointParameters {{ {params} anchor {CRANK} 0 0 }}
            device [ PositionSensor {{ name "coupler sensor" }} ]
            endPoint Solid {{
              translation {CRANK} 0 0
              rotation 0 -1 0 {phi0 - THETA0}
              name "coupler"
              children [
                HingeJoint {{
                  jointParameters HingeJointParameters {{ {closing} anchor {COUPLER} 0 0 }}
                  device [ {closing_devices} PositionSensor {{ name "closing sensor" }} ]
                  endPoint SolidReference {{ solidName "rocker" }}
                }}
              ]
              boundingObject {bar(COUPLER)}
              physics Physics {{ density {DENSITY} }}
            }}
          }}
        ]
        boundingObject {bar(CRANK)}
        physics Physics {{ density {DENSITY} }}
      }}
    }}
    HingeJoint {{
      jointParameters HingeJointParameters {{ {params} anchor {G} 0 0 }}
      device [ PositionSensor {{ name "rocker sensor" }} ]
      endPoint Solid {{
        translation {G} 0 0
        rotation 0 -1 0 {psi0}
        name "rocker"
        boundingObject {bar(ROCKER)}
        physics Physics {{ density {DENSITY} }}
      }}
    }}
  ]
  controller "<extern>"
}}
"""


def weld_gaps(sim) -> np.ndarray:
    """Distance (m) between the two sites of every loop weld."""
    m, d = sim.model, sim.data
    welds = [e for e in range(m.neq) if (mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_EQUALITY, e) or "").startswith(
        WELD_PREFIX)]
    return np.array([np.linalg.norm(d.site_xpos[m.eq_obj1id[e]] - d.site_xpos[m.eq_obj2id[e]]) for e in welds])


def sensors(robot, names=("crank sensor", "coupler sensor", "closing sensor", "rocker sensor")) -> dict:
    devices = {name: robot.getDevice(name) for name in names}
    for device in devices.values():
        device.enable(8)
    return devices


def expected_positions(theta: float) -> dict[str, float]:
    """What the position sensors read at crank angle theta (each joint reads 0 in the file's pose)."""
    phi0, psi0 = closure(THETA0)
    phi, psi = closure(theta)
    return {"crank sensor": theta - THETA0, "coupler sensor": (phi - theta) - (phi0 - THETA0),
            "closing sensor": (psi - phi) - (psi0 - phi0), "rocker sensor": psi - psi0}


def test_the_file_pose_closes_the_loop_and_the_model_adds_one_weld_and_a_negligible_mass(project, load) -> None:
    sim = load(project(four_bar()))
    assert weld_gaps(sim).tolist() == pytest.approx([0.0], abs=1e-12)
    aux = [b for b in range(sim.model.nbody) if sim.model.body(b).name.startswith("loop")]
    assert len(aux) == 1 and sim.model.body_mass[aux[0]] == 1e-6
    assert not any(sim.model.body_geomadr[b] >= 0 and sim.model.body_geomnum[b] for b in aux)  # no contacts


def test_a_passive_four_bar_swings_under_gravity_with_the_loop_closed_and_rests_closed(project, load) -> None:
    sim = load(project(four_bar(damping=0.002)))
    robot = sim.robot("robot")
    devices = sensors(robot)
    worst_gap = worst_kinematics = 0.0
    cranks = []
    for step in range(1000):  # 8 s
        robot.step(8)
        if step == 0:
            continue
        theta = THETA0 + devices["crank sensor"].getValue()
        cranks.append(theta)
        expected = expected_positions(theta)
        worst_kinematics = max(worst_kinematics, max(abs(devices[n].getValue() - v) for n, v in expected.items()))
        worst_gap = max(worst_gap, float(weld_gaps(sim).max()))
    assert np.ptp(cranks[:200]) > 1.0  # it really swung (the crank falls through more than a radian)
    assert worst_gap < 1e-4  # under 0.1 mm throughout (measured 5.7e-5 m at 4 ms, in the first step)
    assert worst_kinematics < 2e-3  # every joint where the loop-closure equations put it (measured 6.0e-4 rad)
    for _ in range(500):  # 4 s more: at rest
        robot.step(8)
    assert abs(float(np.ptp(sim.data.qvel))) < 1e-3
    assert float(weld_gaps(sim).max()) < 1e-6  # at rest, asleep (measured 2.8e-8 m)


def driven_run(project, load, step_ms: float, seconds: float = 1.0, name: str = "test.wbt"):
    """The crank driven at 2 rev/s (velocity control); returns the simulation, the max gap, the worst kinematic
    error and the crank's travel."""
    sim = load(project(four_bar(crank_devices='RotationalMotor { name "crank motor" maxTorque 20 maxVelocity 20 }'),
                       world_name=name), max_physics_step_ms=step_ms)
    robot = sim.robot("robot")
    devices = sensors(robot)
    motor = robot.getDevice("crank motor")
    motor.setPosition(math.inf)
    motor.setVelocity(4.0 * math.pi)
    worst_gap = worst_kinematics = 0.0
    robot.step(8)
    for _ in range(round(seconds * 125)):
        robot.step(8)
        expected = expected_positions(THETA0 + devices["crank sensor"].getValue())
        worst_kinematics = max(worst_kinematics, max(abs(devices[n].getValue() - v) for n, v in expected.items()))
        worst_gap = max(worst_gap, float(weld_gaps(sim).max()))
    return sim, worst_gap, worst_kinematics, devices["crank sensor"].getValue()


def test_a_four_bar_driven_at_two_revolutions_per_second_stays_closed(project, load) -> None:
    _, gap, kinematics, travel = driven_run(project, load, 4.0, seconds=2.0)
    assert travel == pytest.approx(2.0 * 4.0 * math.pi, rel=0.02)  # 4 revolutions in 2 s
    assert gap < 5e-4  # under 0.5 mm through the motion (measured 2.4e-4 m at 4 ms)
    assert kinematics < 1e-2  # the gap over the 6 cm rocker (measured 4.6e-3 rad)


def test_the_gap_shrinks_with_the_square_of_the_physics_step(project, load) -> None:
    gaps = [driven_run(project, load, step, name=f"s{i}.wbt")[1] for i, step in enumerate((4.0, 2.0, 1.0))]
    # A weld time constant of two physics steps: the gap under the same loads scales as dt^2 (measured ratios 4).
    assert gaps[1] / gaps[0] == pytest.approx(0.25, rel=0.3)
    assert gaps[2] / gaps[1] == pytest.approx(0.25, rel=0.3)


def test_a_motor_on_the_closing_joint_moves_the_whole_loop(project, load) -> None:
    sim = load(project(four_bar(closing_devices='RotationalMotor { name "closing motor" maxTorque 20 }')))
    robot = sim.robot("robot")
    devices = sensors(robot)
    motor = robot.getDevice("closing motor")
    assert motor.getPositionSensor() is devices["closing sensor"]
    motor.setPosition(0.3)
    for _ in range(250):  # 2 s
        robot.step(8)
    assert devices["closing sensor"].getValue() == pytest.approx(0.3, abs=1e-4)
    theta = THETA0 + devices["crank sensor"].getValue()
    assert abs(theta - THETA0) > 0.1  # the crank followed
    for name, value in expected_positions(theta).items():
        assert devices[name].getValue() == pytest.approx(value, abs=2e-5), name
    assert float(weld_gaps(sim).max()) < 1e-6


def test_stops_on_the_closing_joint_hold_the_loop(project, load) -> None:
    sim = load(project(four_bar(closing_params="minStop -0.05 maxStop 0.05")))
    robot = sim.robot("robot")
    devices = sensors(robot)
    closing = []
    for _ in range(250):
        robot.step(8)
        closing.append(devices["closing sensor"].getValue())
    # Free, the passive swing turns the closing joint by 0.77 rad within 2 s; the stops hold it at +-0.05 rad up to
    # MuJoCo's soft joint limit (measured 0.064 rad; the same stops on the rocker, a tree joint: 0.077 rad).
    assert 0.05 < max(np.abs(closing[1:])) < 0.07
    assert float(weld_gaps(sim).max()) < 1e-4


def test_runs_are_bit_identical_also_after_reset(project, load) -> None:
    first, *_ = driven_run(project, load, 4.0, seconds=0.5, name="a.wbt")
    second, *_ = driven_run(project, load, 4.0, seconds=0.5, name="b.wbt")
    assert np.array_equal(first.data.qpos, second.data.qpos) and np.array_equal(first.data.qvel, second.data.qvel)
    qpos = first.data.qpos.copy()
    first.reset()
    robot = first.robot("robot")
    sensors(robot)
    robot.getDevice("crank motor").setPosition(math.inf)
    robot.getDevice("crank motor").setVelocity(4.0 * math.pi)
    for _ in range(1 + round(0.5 * 125)):
        robot.step(8)
    assert np.array_equal(first.data.qpos, qpos)


PENDULUM_INFO = "WorldInfo { basicTimeStep 4 }"
PENDULUM = """
DEF BOB Solid {{
  translation 0 0 1
  children [
    {joint} {{
      jointParameters {params}
      device [ PositionSensor {{ name "sensor" }} ]
      endPoint SolidReference {{ solidName "<static environment>" }}
    }}
  ]
  boundingObject Box {{ size 0.02 0.02 0.2 }}
  physics Physics {{ density -1 mass 0.5 }}
}}
"""


def test_a_hinge_to_the_static_environment_makes_a_physical_pendulum(make_sim) -> None:
    # A 0.2 m bar (0.5 kg) hinged to the world at its top end, released at 0.2 rad: small-angle period
    # 2 pi sqrt(I / (m g d)), I = m (L^2 + w^2) / 12 + m d^2 about the pivot, d = 0.1 m.
    sim = make_sim(PENDULUM.format(joint="HingeJoint",
                                   params="HingeJointParameters { axis 0 1 0 anchor 0 0 0.1 position 0 }"),
                   PENDULUM_INFO)
    bob = sim.bindings.solid(sim.node("BOB")).body_id
    # Tilt it by 0.2 rad about the anchor (its free joint and the closing hinge together).
    m, d = sim.model, sim.data
    free = sim.bindings.solid(sim.node("BOB")).free_joint_id
    adr = m.jnt_qposadr[free]
    tilt = 0.2
    pivot = np.array([0.0, 0.0, 1.1])
    rot = np.array([[math.cos(tilt), 0, math.sin(tilt)], [0, 1, 0], [-math.sin(tilt), 0, math.cos(tilt)]])
    d.qpos[adr:adr + 3] = pivot + rot @ np.array([0.0, 0.0, -0.1])
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, rot.flatten())
    d.qpos[adr + 3:adr + 7] = q
    hinge = next(j for j in sim.bindings.joints if j.node.type_name == "HingeJoint")
    d.qpos[hinge.qpos_adr] = -tilt  # the hinge turns the bob relative to its auxiliary body, which the weld holds
    mujoco.mj_forward(m, d)
    assert float(weld_gaps(sim).max()) < 1e-9
    angles, times = [], []
    for _ in range(1000):  # 4 s
        sim.step()
        r = d.xmat[bob].reshape(3, 3)
        angles.append(math.atan2(r[0, 2], r[2, 2]))
        times.append(sim.time_s)
        assert np.linalg.norm(d.xpos[bob] - pivot) == pytest.approx(0.1, abs=1e-5)  # it turns about the anchor
    crossings = [times[i] for i in range(1, len(angles)) if angles[i - 1] > 0 >= angles[i]]
    period = float(np.mean(np.diff(crossings)))
    inertia = 0.5 * (0.2**2 + 0.02**2) / 12 + 0.5 * 0.1**2
    small = 2 * math.pi * math.sqrt(inertia / (0.5 * 9.81 * 0.1))
    assert period == pytest.approx(small * (1 + tilt**2 / 16), rel=2e-3)


def test_a_slider_to_the_static_environment_lets_the_body_fall_along_its_axis_only(make_sim) -> None:
    sim = make_sim(PENDULUM.format(joint="SliderJoint", params="JointParameters { axis 0.6 0 0.8 }"), PENDULUM_INFO)
    bob = sim.bindings.solid(sim.node("BOB")).body_id
    for _ in range(125):  # 0.5 s
        sim.step()
    t = sim.time_s
    axis = np.array([0.6, 0.0, 0.8])
    moved = sim.data.xpos[bob] - np.array([0.0, 0.0, 1.0])
    # Along the axis gravity's component a = g * 0.8 acts: s = a t^2 / 2, within the integrator's one step (a t dt).
    a = 9.81 * 0.8
    assert -moved @ axis == pytest.approx(a * t**2 / 2, abs=a * t * 0.004)
    # Off the axis it stays within the weld's softness: the weld holds the bob's turn about the anchor it has left
    # behind, under gravity's torque about that anchor (measured 0.67 mm after sliding 0.97 m).
    assert np.linalg.norm(moved - (moved @ axis) * axis) < 1e-3


@pytest.mark.parametrize(("joint", "params"), [
    ("BallJoint", "BallJointParameters { anchor 0.05 0 0.1 }"),  # with a device: three hinges (Webots' Euler axes)
    ("BallJoint", "BallJointParameters { anchor 0.05 0 0.1 } device [ ]"),  # no device, no stops: a MuJoCo ball
    ("Hinge2Joint", "HingeJointParameters { axis 0 1 0 anchor 0.05 0 0.1 } jointParameters2 JointParameters { "
                    "axis 1 0 0 }"),  # a universal joint
])
def test_ball_and_hinge2_joints_to_the_static_environment_keep_the_anchor_fixed(make_sim, joint, params) -> None:
    text = PENDULUM.format(joint=joint, params=params)
    if "device [ ]" in params:
        text = text.replace('device [ PositionSensor { name "sensor" } ]', "")
    sim = make_sim(text, PENDULUM_INFO)
    assert sim.model.neq == 1
    bob = sim.bindings.solid(sim.node("BOB")).body_id
    pivot = np.array([0.05, 0.0, 1.1])
    xs = []
    for _ in range(500):
        sim.step()
        xs.append(sim.data.xpos[bob][0])
        # The anchor stays put within the weld's softness (under 0.1 mm; measured 5.3e-5 m while swinging).
        assert np.linalg.norm(sim.data.xpos[bob] - pivot) == pytest.approx(math.hypot(0.05, 0.1), abs=1e-4)
    assert max(xs) > 0.099  # it swung through below the anchor (x = 0.05) to the mirror of its start (x = 0.1)


def compile_text(body: str):
    model = load_world_model_from_string("#VRML_SIM R2023b utf8\nWorldInfo { }\n" + body, "loops.wbt")
    return compile_world(model)


@pytest.mark.parametrize(("name", "message"), [
    ("nowhere", "SolidReference has an invalid 'nowhere' name or refers to its closest upper solid, which is "
                "prohibited."),
    ("arm", "SolidReference has an invalid 'arm' name or refers to its closest upper solid, which is prohibited."),
    ("", "SolidReference without solidName: the joint links nothing and the loop stays open (as in Webots)."),
    ("plate", "SolidReference 'plate' refers to a Solid without Physics: Webots attaches no joint to it, so the loop "
              "stays open."),
])
def test_a_reference_that_closes_nothing_is_a_located_warning_and_the_joint_stays_detached(name, message) -> None:
    body = f"""Robot {{
  children [
    HingeJoint {{
      endPoint Solid {{
        name "arm"
        children [
          Solid {{ name "plate" }}
          HingeJoint {{ endPoint SolidReference {{ solidName "{name}" }} }}
        ]
        physics Physics {{ }}
        boundingObject Sphere {{ radius 0.1 }}
      }}
    }}
  ]
}}"""
    compiled = compile_text(body)
    found = [w for w in compiled.warnings if "SolidReference" in w.message]
    assert [w.message for w in found] == [message]
    line = next(i for i, text in enumerate(body.splitlines(), start=3) if "SolidReference {" in text)
    assert found[0].location.line == line
    assert found[0].node_path.endswith('HingeJoint > endPoint > Solid "arm" > children[1] > HingeJoint > endPoint > '
                                       "SolidReference > solidName")
    assert compiled.model.neq == 0  # no weld
    assert [j.joint_id for j in compiled.bindings.joints] == [0, -1]  # the closing joint has no MuJoCo joint


def test_a_solid_reference_outside_an_end_point_is_an_error() -> None:
    with pytest.raises(WorldLoadError) as raised:
        compile_text('Solid { children [ SolidReference { solidName "x" } ] }')
    assert "A SolidReference node cannot be placed in field 'children'" in str(raised.value)


def test_a_reference_to_a_higher_ancestor_closes_a_loop(make_sim) -> None:
    # Webots forbids only the joint's closest upper Solid: a joint two levels down may link back to the top Solid.
    # Here the triangle top-a-b is closed at the top Solid: a rigid truss that falls as one body.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sim = make_sim("""Robot {
  name "top"
  translation 0 0 1
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 1 0 }
      endPoint Solid {
        name "a"
        children [
          HingeJoint {
            jointParameters HingeJointParameters { axis 0 1 0 anchor 0.1 0 0 }
            endPoint Solid {
              translation 0.1 0 0
              name "b"
              children [
                HingeJoint {
                  jointParameters HingeJointParameters { axis 0 1 0 anchor 0 0 -0.1 }
                  endPoint SolidReference { solidName "top" }
                }
              ]
              physics Physics { density -1 mass 0.1 }
              boundingObject Sphere { radius 0.01 }
            }
          }
        ]
        physics Physics { density -1 mass 0.1 }
        boundingObject Sphere { radius 0.01 }
      }
    }
  ]
  physics Physics { density -1 mass 0.5 }
  boundingObject Sphere { radius 0.01 }
}""")
    assert sim.model.neq == 1
    hinges = [j.qpos_adr for j in sim.bindings.joints]
    for _ in range(100):
        sim.step()
        assert float(np.abs(sim.data.qpos[hinges]).max()) < 1e-4
    assert sim.data.qvel[2] == pytest.approx(-9.81 * sim.time_s, rel=1e-3)  # free fall of the whole truss
    assert float(weld_gaps(sim).max()) < 1e-6


def test_urdf_export_skips_the_closing_joint_and_a_supervisor_position_write_moves_nothing(project, load) -> None:
    text = four_bar().replace('controller "<extern>"', 'controller "<extern>"\n  supervisor TRUE').replace(
        f"jointParameters HingeJointParameters {{ axis 0 -1 0 anchor {COUPLER} 0 0 }}",
        f"jointParameters DEF CLOSING HingeJointParameters {{ axis 0 -1 0 anchor {COUPLER} 0 0 }}")
    sim = load(project(text))
    robot = sim.robot("robot")
    urdf = robot.getUrdf()
    assert urdf.count("<joint ") == 3 and urdf.count('<link name="rocker">') == 1  # a tree: the loop stays cut
    devices = sensors(robot)
    robot.step(8)
    # Webots' WbHingeJoint::updatePosition ignores a joint whose endPoint is a SolidReference: the loop keeps
    # swinging from where it is (a jump of the closing joint to 0.5 rad would tear the weld open).
    robot.getFromDef("CLOSING").getField("position").setSFFloat(0.5)
    robot.step(8)
    assert abs(devices["closing sensor"].getValue()) < 0.05
    assert float(weld_gaps(sim).max()) < 1e-4


def test_coupled_motors_on_a_tree_joint_and_on_the_closing_joint_move_together(project, load) -> None:
    # In the four-bar finger (a parallelogram) the closing joint turns exactly as the distal joint: two coupled
    # motors, one on each, drive the distal link together; motor 1 holds the proximal link and the crank is free.
    text = FINGER.read_text(encoding="utf-8")
    text = text.replace('RotationalMotor { name "motor 2" maxTorque 5 controlPID 50 0 0 }', "").replace(
        'device [ PositionSensor { name "distal joint" } ]',
        'device [ RotationalMotor { name "pair::distal" maxTorque 5 } PositionSensor { name "distal joint" } ]'
    ).replace(
        'device [ PositionSensor { name "closing joint" } ]',
        'device [ RotationalMotor { name "pair::closing" maxTorque 5 } PositionSensor { name "closing joint" } ]'
    ).replace('controller "four_bar_finger"', 'controller "<extern>"')
    assert text.count("pair::") == 2 and '"motor 2"' not in text
    robot = load(project(text)).robot("four bar finger")
    names = ("motor 1 sensor", "distal joint", "motor 2 sensor", "closing joint")
    devices = {name: robot.getDevice(name) for name in names}
    for device in devices.values():
        device.enable(8)
    robot.getDevice("motor 1").setPosition(0.0)
    robot.getDevice("pair::distal").setPosition(0.4)  # reaches pair::closing too (multiplier 1)
    for _ in range(250):
        robot.step(8)
    assert robot.getDevice("pair::closing").getTargetPosition() == 0.4
    assert devices["motor 1 sensor"].getValue() == pytest.approx(0.0, abs=1e-4)
    for name in ("distal joint", "closing joint", "motor 2 sensor"):  # the crank follows: a1 = j2 + a0
        assert devices[name].getValue() == pytest.approx(0.4, abs=1e-4), name
