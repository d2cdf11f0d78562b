"""Coulomb friction over Webots' whole accepted range: 0, 1e-3 ... 100 and -1 (infinite).

A 2 kg box of 0.2 m rests on a plane, and on a plane tilted by 28 degrees (tan 28 = 0.53), for each
coefficient. Expected (Coulomb): at rest the contact carries m g and no tangential force; on the slope the
box slides with ``g (sin a - mu cos a)`` when ``mu < tan a`` and stays put otherwise. In every case it
neither sinks more than a few millimetres (MuJoCo's contacts are soft: m g / stiffness) nor flies.
Before the elliptic cone (MuJoCo's pyramidal default), mu 0 threw the box up, mu 10 sank it below the
floor and mu 100 or -1 let it fall through (issue 14).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

G = 9.81
SLOPE = math.radians(28.0)
COEFFICIENTS = [0.0, 1e-3, 0.1, 0.5, 1.0, 5.0, 10.0, 100.0, -1.0]
SINKING_LIMIT = 0.002
"""Deepest the box's face may go below the surface at rest (m); the soft contact settles at about 0.5 mm."""
CREEP_LIMIT = 2e-4
"""Largest speed (m/s) of a box held by friction: MuJoCo's friction is soft, it creeps at 5e-5 m/s (measured)."""


def box_world(mu: float, tilt: float) -> str:
    """The plane tilted by ``tilt`` about y and a box resting on it (its centre 0.1 m above, 2 mm gap)."""
    normal = (math.sin(tilt), 0.0, math.cos(tilt))
    centre = [0.102 * n for n in normal]
    return f"""Solid {{ rotation 0 1 0 {tilt!r} boundingObject Plane {{ size 100 100 }} }}
        DEF B Solid {{ translation {centre[0]!r} 0 {centre[2]!r} rotation 0 1 0 {tilt!r} contactMaterial "box"
          physics Physics {{ density -1 mass 2 }} boundingObject Box {{ size 0.2 0.2 0.2 }} }}"""


BOUNCES = ["bounce 0", ""]
"""No bounce (the figures are the static ones), and Webots' default bounce 0.5, whose slow contacts the bounce
threshold edits in every physics step (wbsim.sim.bounce: resting normal rows, resting damping on sticking
friction rows)."""


def info(mu: float, bounce: str = "bounce 0") -> str:
    """Awake bodies, and the box's friction with the floor (and its ``bounce`` field, if any)."""
    return (f'WorldInfo {{ basicTimeStep 8 physicsDisableTime 0 contactProperties [ ContactProperties {{ '
            f'material2 "box" coulombFriction {mu!r} {bounce} }} ] }}')


def heights_and_positions(sim, box, tilt: float, duration_s: float) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    """The box centre's height above the plane and its position along the slope, after every basic step."""
    adr = sim.model.jnt_qposadr[box.free_joint_id]
    normal = np.array([math.sin(tilt), 0.0, math.cos(tilt)])
    downhill = np.array([math.cos(tilt), 0.0, -math.sin(tilt)])
    heights, along = [], []
    for _ in range(round(duration_s * 1000 / sim.basic_time_step_ms)):
        sim.step()
        position = sim.data.qpos[adr:adr + 3]
        heights.append(float(position @ normal))
        along.append(float(position @ downhill))
    return np.asarray(heights), np.asarray(along)


@pytest.mark.parametrize("bounce", BOUNCES)
@pytest.mark.parametrize("mu", COEFFICIENTS)
def test_a_resting_box_carries_m_g_without_sinking_or_flying(make_sim, solid_of, contact_normal_force,  # noqa: ANN001
                                                             mu, bounce) -> None:
    sim = make_sim(box_world(mu, 0.0), info(mu, bounce))
    box = solid_of(sim, "B")
    heights, along = heights_and_positions(sim, box, 0.0, 1.5)
    print(f"mu {mu} {bounce or 'bounce 0.5'}: lowest {heights.min():.5f} m, highest {heights.max():.5f} m, "
          f"rest {heights[-1]:.5f} m")
    assert heights.max() < 0.1025  # never rises above where it was put
    assert heights.min() > 0.1 - SINKING_LIMIT
    assert abs(along[-1]) < 1e-6
    assert contact_normal_force(sim, box.body_id) == pytest.approx(2 * G, rel=0.01)


def test_zero_friction_has_no_tangential_force(make_sim, solid_of) -> None:  # noqa: ANN001
    """A box pushed sideways on a frictionless floor keeps its speed: the contacts are normal-only (condim 1)."""
    sim = make_sim(box_world(0.0, 0.0).replace("physics Physics", "linearVelocity 0.5 0 0 physics Physics"), info(0.0))
    box = solid_of(sim, "B")
    sim.run(1.0)
    assert sim.data.ncon > 0
    assert all(sim.data.contact[i].dim == 1 for i in range(sim.data.ncon))
    dof = sim.model.jnt_dofadr[box.free_joint_id]
    assert sim.data.qvel[dof] == pytest.approx(0.5, abs=1e-9)


@pytest.mark.parametrize("bounce", BOUNCES)
@pytest.mark.parametrize("mu", [mu for mu in COEFFICIENTS if 0 <= mu < math.tan(SLOPE)])
def test_a_box_slides_down_a_28_degree_slope_at_the_coulomb_acceleration(make_sim, solid_of,  # noqa: ANN001
                                                                          mu, bounce) -> None:
    sim = make_sim(box_world(mu, SLOPE), info(mu, bounce))
    box = solid_of(sim, "B")
    heights, along = heights_and_positions(sim, box, SLOPE, 1.0)
    expected = G * (math.sin(SLOPE) - mu * math.cos(SLOPE))
    # Acceleration from the last 0.5 s (second difference of the positions, in the sliding regime).
    t = np.arange(1, len(along) + 1) * sim.basic_time_step_ms / 1000
    late = t > 0.5
    acceleration = 2 * np.polyfit(t[late], along[late], 2)[0]
    print(f"mu {mu} {bounce or 'bounce 0.5'}: acceleration {acceleration:.4f} m/s^2, Coulomb {expected:.4f}")
    assert acceleration == pytest.approx(expected, rel=0.02)
    assert heights.min() > 0.1 - SINKING_LIMIT and heights.max() < 0.1025


@pytest.mark.parametrize("bounce", BOUNCES)
@pytest.mark.parametrize("mu", [mu for mu in COEFFICIENTS if mu < 0 or mu > math.tan(SLOPE)])
def test_a_box_holds_on_a_28_degree_slope(make_sim, solid_of, mu, bounce) -> None:  # noqa: ANN001
    sim = make_sim(box_world(mu, SLOPE), info(mu, bounce))
    box = solid_of(sim, "B")
    settle_h, _ = heights_and_positions(sim, box, SLOPE, 0.5)
    heights, along = heights_and_positions(sim, box, SLOPE, 2.0)
    creep = (along[-1] - along[0]) / 2.0
    print(f"mu {mu} {bounce or 'bounce 0.5'}: creep {creep:.2e} m/s, "
          f"lowest {min(settle_h.min(), heights.min()):.5f} m")
    assert 0 <= creep < CREEP_LIMIT
    assert min(settle_h.min(), heights.min()) > 0.1 - SINKING_LIMIT
    assert max(settle_h.max(), heights.max()) < 0.1025

