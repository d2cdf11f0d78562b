"""The belt's share of a contact's surface velocity (Webots' rule, either side of the contact)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wbsim.devices.track.bank import belt_surface_velocity

X, Y, Z = np.eye(3)


def webots_belt(speed: float, outward: np.ndarray, x_axis: np.ndarray, z_axis: np.ndarray,
                up: np.ndarray) -> np.ndarray:
    """Webots' belt surface velocity relative to its Track at a contact of outward normal ``outward``: the
    contact's ``motion1`` along ``fdir1`` (``WbSimulationCluster::fillSurfaceParameters``), as the velocity
    the belt surface has: ``V * sign(n . u) * |acos(n . z) - pi / 2| / (pi / 2) * x``."""
    dot = float(np.clip(outward @ z_axis, -1.0, 1.0))
    scale = abs(math.acos(dot) - math.pi / 2) / (math.pi / 2)
    return speed * math.copysign(1.0, outward @ up) * scale * x_axis


def relative(speed, normal, x_axis=X, z_axis=Z, up_axis=2):
    return belt_surface_velocity(np.array([speed]), np.array([normal], dtype=float), np.array([x_axis]),
                                 np.array([z_axis]), up_axis)[0]


NORMALS = [Z, -Z, np.array([0.0, -math.sin(math.pi / 4), math.cos(math.pi / 4)]),
           np.array([0.0, -math.cos(math.pi / 12), math.sin(math.pi / 12)]), np.array([0.6, 0.0, -0.8])]


@pytest.mark.parametrize("normal", NORMALS)
def test_either_side_of_the_contact_gives_webots_belt_velocity(normal) -> None:
    # MuJoCo's contact surface velocity is that of geom[1] minus that of geom[0]; the normal points 0 -> 1.
    as_second = webots_belt(0.2, -normal, X, Z, Z)  # the Track is geom[1]: its outward normal is -normal
    as_first = webots_belt(0.2, normal, X, Z, Z)  # the Track is geom[0]
    assert relative(0.2, normal) == pytest.approx(as_second, abs=1e-15)
    assert relative(0.2, normal) == pytest.approx(-as_first, abs=1e-15)


def test_belt_runs_backward_underneath_and_forward_on_top() -> None:
    # The floor (geom[0]) below the Track (geom[1]), normal up: the belt's lower side runs back, -V x.
    assert relative(0.2, Z) == pytest.approx(-0.2 * X)
    # A parcel (geom[1]) on a conveyor (geom[0]), normal up: the parcel sees the belt carry it, 0 - (+V x).
    assert relative(0.2, Z) == pytest.approx(-webots_belt(0.2, Z, X, Z, Z))
    assert webots_belt(0.2, Z, X, Z, Z) == pytest.approx(0.2 * X)


def test_belt_flanks_do_not_move_and_slopes_scale_with_the_angle() -> None:
    assert relative(0.2, Y) == pytest.approx(np.zeros(3))
    assert relative(0.2, X) == pytest.approx(np.zeros(3))
    assert relative(0.2, NORMALS[2]) == pytest.approx(-0.1 * X)  # 45 degrees: half speed
    assert relative(0.2, NORMALS[3]) == pytest.approx(-0.2 / 6 * X)  # 15 degrees above the flank


def test_sign_follows_the_world_up_axis_not_the_track_z_axis() -> None:
    # An upside-down Track (z axis down) on the ground still drives along +x, as in Webots.
    assert relative(0.2, Z, z_axis=-Z) == pytest.approx(-0.2 * X)
    # Y-up worlds (NUE): the sign is taken on the y axis.
    assert relative(0.2, Y, z_axis=Y, up_axis=1) == pytest.approx(-0.2 * X)
