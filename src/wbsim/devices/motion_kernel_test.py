"""The compiled motion-sensor loops against the numpy reference: the same values, step by step, on a tumbling robot
that hits the floor, with every option that changes the arithmetic (tables with noise, resolutions, disabled axes,
InertialUnit noise, GPS noise and speed noise, sensors without a body, two sampling periods, ENU/NUE,
LOCAL/WGS84)."""

from __future__ import annotations

import numpy as np
import pytest

KINDS = ("accelerometer", "gyro", "inertial_unit", "compass", "gps")

DEVICES = """
    Accelerometer { }
    Accelerometer { name "acc2" translation 0.05 0.02 -0.01 rotation 1 1 0 0.7
                    lookupTable [ -100 -90 0.05, 0 0 0, 100 110 0.02 ] resolution 0.01 xAxis FALSE }
    Gyro { }
    Gyro { name "gyro2" rotation 0 1 1 2.1 lookupTable [ -10 -10 0.1, 10 10 0.1 ] zAxis FALSE }
    InertialUnit { }
    InertialUnit { name "imu2" rotation 1 0 0 0.4 noise 0.01 resolution 0.001 }
    InertialUnit { name "imu3" rotation 0 0 1 2.5 yAxis FALSE }
    Compass { }
    Compass { name "compass2" rotation 0 1 0 0.3 lookupTable [ -1 -100 0.05, 1 100 0.05 ] resolution 0.5 xAxis FALSE }
    GPS { translation 0.03 0 0 }
    GPS { name "gps2" accuracy 0.1 noiseCorrelation 0.5 resolution 0.01 speedNoise 0.1 speedResolution 0.01 }
"""
NAMES = ("accelerometer", "acc2", "gyro", "gyro2", "inertial unit", "imu2", "imu3", "compass", "compass2", "gps",
         "gps2")


PLAIN = "".join(f'{node} {{ name "{name}" translation 0.02 0.01 0 rotation 1 1 1 {0.3 * i} }}\n' for i, (node, name)
                in enumerate(zip(["Accelerometer", "Accelerometer", "Gyro", "Gyro", "InertialUnit", "InertialUnit",
                                  "InertialUnit", "Compass", "Compass", "GPS", "GPS"], NAMES)))
"""The same sensors with Webots' defaults (no table, noise, resolution or disabled axis): the banks' plain paths."""


def _world(system: str, gps: str, devices: str = DEVICES) -> str:
    return f"""
WorldInfo {{ basicTimeStep 8 coordinateSystem "{system}" gpsCoordinateSystem "{gps}" gpsReference 46.5 6.6 400 }}
Solid {{ rotation 1 0 0 {1.5707963267948966 if system == "NUE" else 0} boundingObject Plane {{ size 10 10 }} }}
Robot {{
  translation {"0 0.6 0" if system == "NUE" else "0 0 0.6"}
  rotation 1 2 3 0.8
  name "r"
  controller "<extern>"
  supervisor TRUE
  linearVelocity 0.4 -0.3 0.5
  angularVelocity 3 -2 5
  children [ {devices} ]
  boundingObject Box {{ size 0.2 0.1 0.05 }}
  physics Physics {{ }}
}}
Robot {{
  translation {"1 0.2 1" if system == "NUE" else "1 1 0.2"}
  name "fixed"
  controller "<extern>"
  children [ Accelerometer {{ }} GPS {{ }} Gyro {{ }} ]
}}
"""


def _run(sim, compiled: bool, steps: int) -> list[dict[str, np.ndarray]]:
    banks = [sim.banks[kind] for kind in KINDS]
    for bank in banks:
        bank.compiled = compiled
    robot, fixed = sim.robot("r"), sim.robot("fixed")
    for i, name in enumerate(NAMES):
        robot.getDevice(name).enable(8 if i % 2 == 0 else 24)
    for name in ("accelerometer", "gps", "gyro"):
        fixed.getDevice(name).enable(16)
    history = []
    for _ in range(steps):
        robot.step(8)
        _check_lists(sim)
        history.append({
            "accelerometer": sim.banks["accelerometer"].values.copy(),
            "gyro": sim.banks["gyro"].values.copy(),
            "quaternion": sim.banks["inertial_unit"].quaternion.copy(),
            "roll_pitch_yaw": sim.banks["inertial_unit"].roll_pitch_yaw.copy(),
            "compass": sim.banks["compass"].values.copy(),
            "gps": sim.banks["gps"].values.copy(),
            "speed": sim.banks["gps"].speed.copy(),
            "speed_vector": sim.banks["gps"].speed_vector.copy(),
        })
    if compiled:
        assert all(bank._kernels is not None for bank in banks)  # the compiled loops ran
    return history


def _check_lists(sim) -> None:
    """The Python lists the API returns hold the banks' arrays."""
    pairs = [(sim.banks[kind].value_list, sim.banks[kind].values)
             for kind in ("accelerometer", "gyro", "compass", "gps")]
    unit = sim.banks["inertial_unit"]
    pairs += [(unit.fresh_quaternions(), unit.quaternion), (unit.roll_pitch_yaw_list, unit.roll_pitch_yaw),
              (sim.banks["gps"].speed_list, sim.banks["gps"].speed),
              (sim.banks["gps"].fresh_speed_vectors(), sim.banks["gps"].speed_vector)]
    for listed, array in pairs:  # flat lists: row i's values follow row i - 1's
        np.testing.assert_array_equal(np.array(listed), array.reshape(-1))


@pytest.mark.parametrize(("system", "gps", "devices"), [("ENU", "local", DEVICES), ("NUE", "WGS84", DEVICES),
                                                     ("ENU", "local", PLAIN)], ids=["ENU", "NUE", "plain"])
def test_compiled_loops_give_the_numpy_values_on_a_tumbling_robot(project, load, system, gps, devices):
    path = project(_world(system, gps, devices))
    compiled_sim, numpy_sim = load(path), load(path)
    plain = devices is PLAIN  # the banks' shortcuts for sensors without options, or their general paths
    assert compiled_sim.banks["inertial_unit"]._plain == plain and compiled_sim.banks["gps"]._quiet == plain
    compiled = _run(compiled_sim, True, 150)
    reference = _run(numpy_sim, False, 150)
    # The robot tumbled and hit the floor: the sensors saw rotations, impacts and rebounds.
    gyro = np.array([step["gyro"][0] for step in reference])
    assert np.ptp(gyro, axis=0).min() > 0.5
    acceleration = np.array([step["accelerometer"][0] for step in reference])
    assert np.abs(acceleration).max() > 50.0
    for kind in ("accelerometer", "gyro", "compass"):
        plains = [group.cache.plain for group in compiled_sim.banks[kind].schedule.groups]
        assert all(plains) if plain else not all(plains), kind
    for step, (ours, theirs) in enumerate(zip(compiled, reference)):
        for key in ours:
            np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-12, atol=1e-12, equal_nan=True,
                                       err_msg=f"{key} after step {step + 1}")
    # The noisy sensors drew the same numbers in the same order: the generators end in the same state.
    assert compiled_sim._rng.bit_generator.state == numpy_sim._rng.bit_generator.state
    last = compiled[-1]
    assert not np.isnan(last["quaternion"]).any() and not np.isnan(last["speed"][:2]).any()
    # After a world reset the lists follow the arrays too (values kept, then sampled again).
    compiled_sim.robot("r").simulationReset()
    for _ in range(3):
        compiled_sim.robot("r").step(8)
        _check_lists(compiled_sim)
    compiled_sim.reset()  # everything disabled, values NaN
    _check_lists(compiled_sim)
    assert np.isnan(compiled_sim.banks["gps"].speed_list).all()
