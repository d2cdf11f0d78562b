"""Oscillators against their analytic periods: simple and physical pendulums, a slider spring, a damped hinge.

Periods are measured from the zero crossings of the joint position over several periods.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

G = 9.81


def joint_position(sim) -> float:  # noqa: ANN001
    j = sim.bindings.joints[0]
    return float(sim.data.qpos[j.qpos_adr])


def test_simple_pendulum_period(load_sim, record, period_of, first_joint, solid_of) -> None:  # noqa: ANN001
    """A 1 kg point-like bob on a 1 m massless rod, released at 0.05 rad (tests/data/physics/simple_pendulum.wbt)."""
    sim = load_sim("simple_pendulum.wbt")
    j = first_joint(sim)
    # The file pose is the pose at `position`: the joint starts at 0.05 and swings about 0.
    assert sim.data.qpos[j.qpos_adr] == pytest.approx(0.05)
    np.testing.assert_allclose(sim.data.xanchor[j.joint_id], [0, 0, 2], atol=1e-12)
    np.testing.assert_allclose(sim.data.xpos[solid_of(sim, "BOB").body_id],
                               [-math.sin(0.05), 0, 2 - math.cos(0.05)], atol=1e-12)
    times, values = record(sim, 10.5, joint_position)
    period = period_of(times, values)
    ideal = 2 * math.pi * math.sqrt(1.0 / G)
    assert period == pytest.approx(ideal, rel=0.01)
    # Closer still once the bob's own inertia (0.4 m r^2) and the amplitude (1 + theta0^2 / 16) are included.
    exact = 2 * math.pi * math.sqrt((1.0 + 0.4 * 0.01**2) / G) * (1 + 0.05**2 / 16)
    assert period == pytest.approx(exact, rel=1e-3)
    # The amplitude is kept (no sleeping, no numerical damping to speak of).
    assert np.abs(values[-60:]).max() == pytest.approx(0.05, rel=0.01)


@pytest.mark.parametrize("length", [0.5, 1.2])
def test_physical_pendulum_period(make_sim, record, period_of, length: float) -> None:  # noqa: ANN001
    """A uniform box rod hinged at one end: T = 2 pi sqrt(I / (m g d)) with I about the pivot and d = L / 2."""
    theta0, a, b = 0.04, 0.03, 0.02  # amplitude; rod cross-section along x (a) and y (b); hinge axis x
    # Hinge at the pivot; the rod's centre at (0, 0, -L/2) in the zero pose, rotated by theta0 about x.
    y, z = math.sin(theta0) * length / 2, -math.cos(theta0) * length / 2
    sim = make_sim(f"""Solid {{ translation 0 0 2 children [ HingeJoint {{
        jointParameters HingeJointParameters {{ position {theta0} axis 1 0 0 }}
        endPoint Solid {{ translation 0 {y} {z} rotation 1 0 0 {theta0}
          physics Physics {{ density 700 }} boundingObject Box {{ size {a} {b} {length} }} }} }} ] }}""",
                   "WorldInfo { basicTimeStep 8 physicsDisableTime 0 }")
    mass = 700 * a * b * length
    inertia_pivot = mass * (b * b + length * length) / 12 + mass * (length / 2) ** 2
    expected = 2 * math.pi * math.sqrt(inertia_pivot / (mass * G * length / 2))
    times, values = record(sim, 5 * expected + 0.2, joint_position)
    assert values[0] == pytest.approx(theta0)
    period = period_of(times, values)
    assert period == pytest.approx(expected, rel=0.01)
    assert period == pytest.approx(expected * (1 + theta0**2 / 16), rel=2e-3)


@pytest.mark.parametrize(("k", "m"), [(40.0, 2.0), (250.0, 0.5)])
def test_slider_spring_frequency(make_sim, record, period_of, k: float, m: float) -> None:  # noqa: ANN001
    """A mass on a horizontal SliderJoint spring, started 5 cm off its rest position 0: f = sqrt(k/m) / (2 pi)."""
    sim = make_sim(f"""Solid {{ children [ SliderJoint {{
        jointParameters JointParameters {{ axis 1 0 0 position 0.05 springConstant {k} }}
        endPoint Solid {{ translation 0.05 0 0.5 physics Physics {{ density -1 mass {m} }}
                         boundingObject Sphere {{ radius 0.02 }} }} }} ] }}""",
                   "WorldInfo { basicTimeStep 4 physicsDisableTime 0 }")
    expected = math.sqrt(k / m) / (2 * math.pi)
    times, values = record(sim, 6 / expected, joint_position)
    assert values[0] == pytest.approx(0.05)
    frequency = 1.0 / period_of(times, values)
    assert frequency == pytest.approx(expected, rel=0.01)
    # Oscillation about 0 (Webots' spring rests at the zero position, not at the initial `position`).
    assert values.max() == pytest.approx(0.05, rel=0.02) and values.min() == pytest.approx(-0.05, rel=0.02)


def test_damped_hinge_decay(make_sim, record) -> None:  # noqa: ANN001
    """A hinge with springConstant k and dampingConstant c: peaks decay as exp(-c t / (2 I))."""
    k, c, r, m = 2.0, 0.02, 0.3, 1.0
    inertia = m * r * r + 0.4 * m * 0.02**2
    sim = make_sim(f"""Solid {{ children [ HingeJoint {{
        jointParameters HingeJointParameters {{ axis 0 0 1 position 0.2 springConstant {k} dampingConstant {c} }}
        endPoint Solid {{ rotation 0 0 1 0.2 physics Physics {{ density -1 mass {m} }}
          boundingObject Pose {{ translation {r} 0 0 children [ Shape {{ geometry Sphere {{ radius 0.02 }} }} ] }} }}
      }} ] }}""",
                   "WorldInfo { basicTimeStep 4 gravity 0 physicsDisableTime 0 }")
    times, values = record(sim, 8.0, joint_position)
    peaks = [i for i in range(1, len(values) - 1) if values[i - 1] < values[i] >= values[i + 1] and values[i] > 0]
    assert len(peaks) >= 4
    t_peaks, v_peaks = times[peaks], values[peaks]
    rate = -np.polyfit(t_peaks, np.log(v_peaks), 1)[0]
    assert rate == pytest.approx(c / (2 * inertia), rel=0.02)
    omega_d = math.sqrt(k / inertia - (c / (2 * inertia)) ** 2)
    assert np.diff(t_peaks).mean() == pytest.approx(2 * math.pi / omega_d, rel=0.01)


@pytest.mark.parametrize("system", ["NUE", "EUN"])
def test_pendulum_in_y_up_worlds(make_sim, record, period_of, system: str) -> None:  # noqa: ANN001
    """y-up worlds: a bob hanging along -y from a hinge about x swings with 2 pi sqrt(L / g)."""
    theta0, length = 0.05, 0.8
    # Zero pose: bob at (0, -L, 0); rotating by theta0 about x maps it to (0, -L cos, -L sin).
    sim = make_sim(f"""Solid {{ translation 1 3 -2 children [ HingeJoint {{
        jointParameters HingeJointParameters {{ position {theta0} axis 1 0 0 }}
        endPoint Solid {{ translation 0 {-length * math.cos(theta0)} {-length * math.sin(theta0)} rotation 1 0 0 {theta0}
          physics Physics {{ density -1 mass 0.5 }} boundingObject Sphere {{ radius 0.005 }} }} }} ] }}""",
                   f'WorldInfo {{ coordinateSystem "{system}" basicTimeStep 8 }}')
    times, values = record(sim, 5.5 * 2 * math.pi * math.sqrt(length / G), joint_position)
    assert period_of(times, values) == pytest.approx(2 * math.pi * math.sqrt(length / G), rel=0.01)
    assert values.min() == pytest.approx(-theta0, rel=0.01)
