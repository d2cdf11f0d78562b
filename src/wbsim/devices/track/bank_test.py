"""The belt's surface velocity at a contact (Webots' rule) and the bank's per-step belt law."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wbsim.devices.track.bank import belt_surface_velocity

X, Y, Z = np.eye(3)


def surface(outward, x_axis=X, z_axis=Z, up=Z, speed=0.2):
    return belt_surface_velocity(np.array([speed]), np.array([outward], dtype=float), np.array([x_axis]),
                                 np.array([z_axis]), np.array([up]))[0]


def test_belt_runs_backward_underneath_and_forward_on_top() -> None:
    assert surface(-Z) == pytest.approx(-0.2 * X)  # the ground sees the belt run back: the vehicle goes +x
    assert surface(Z) == pytest.approx(0.2 * X)  # what rests on top is carried +x (a conveyor)


def test_belt_flanks_do_not_move_and_slopes_scale_with_the_angle() -> None:
    assert surface(Y) == pytest.approx(np.zeros(3))
    assert surface(X) == pytest.approx(np.zeros(3))  # the front face: n along x, no tangential motion there
    tilted = np.array([0.0, -math.sin(math.pi / 4), math.cos(math.pi / 4)])  # 45 degrees up: half speed
    assert surface(tilted) == pytest.approx(0.1 * X)
    steep = np.array([0.0, -math.cos(math.pi / 12), math.sin(math.pi / 12)])  # 15 degrees above the flank
    assert surface(steep) == pytest.approx(0.2 / 6 * X)


def test_sign_follows_the_world_up_direction_not_the_track_z_axis() -> None:
    # An upside-down Track on the ground: its z axis points down; the contact below still drives it along +x.
    assert surface(-Z, z_axis=-Z) == pytest.approx(-0.2 * X)
    # Y-up worlds (NUE): the same rule with up = +y and the Track's z axis along +y.
    assert surface(-Y, z_axis=Y, up=Y) == pytest.approx(-0.2 * X)
