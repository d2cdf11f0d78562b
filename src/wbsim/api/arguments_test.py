"""Arguments converted as Webots' ctypes binding converts them; every API method called with junk (issue 15)."""

from __future__ import annotations

import ctypes
import inspect
import math
import traceback
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from wbsim.api.arguments import ArgumentChecked, as_c_double, as_c_int, as_c_string, c_arguments

_LIBC = ctypes.CDLL(None)

VALUES = [0, 1, -1, 7, 2**31, 2**32 + 5, -(2**31) - 1, 2**63, 2**64 - 1, 2**64, 10**400, True, False, None, 1.0,
          -2.5, math.nan, math.inf, 1e300, "a", b"a", [1], (1,), {}, object()]


def _ctypes_outcome(call):  # noqa: ANN001, ANN202
    try:
        return "ok", call()
    except Exception as error:  # noqa: BLE001 - the outcome is compared
        return type(error).__name__, str(error)


def _id(value: object) -> str:
    """A test id stable across processes (pytest-xdist compares the ids its workers collect)."""
    return "object()" if type(value) is object else repr(value)


@pytest.mark.parametrize("value", VALUES, ids=_id)
def test_doubles_convert_as_c_double(value: object) -> None:
    expected = _ctypes_outcome(lambda: ctypes.c_double(value).value)  # type: ignore[arg-type]
    got = _ctypes_outcome(lambda: as_c_double(value, 2))
    assert got == expected or (math.isnan(got[1]) and math.isnan(expected[1]))  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [v for v in VALUES if not isinstance(v, (str, bytes))], ids=_id)
def test_ints_convert_as_ctypes_passes_them_to_c(value: object) -> None:
    # libc's labs(long) without argtypes: ctypes converts the argument as for any C int parameter, and the
    # callee reads its low 32 bits (abs of the C int) -- compared on |x| as labs sees the sign-extended int.
    expected = _ctypes_outcome(lambda: _LIBC.abs(value))
    got = _ctypes_outcome(lambda: abs(as_c_int(value, 1)))
    if expected[0] == "ok":
        assert got == ("ok", abs(expected[1]))  # abs(INT_MIN) stays INT_MIN in C
    else:
        assert got == expected


def test_strings_for_ints_are_refused_where_ctypes_would_pass_an_address() -> None:
    with pytest.raises(ctypes.ArgumentError, match="argument 3: TypeError: wbsim cannot pass a str as a C int"):
        as_c_int("5", 3)


def test_names_are_checked_as_str_encode_checks_them() -> None:
    assert as_c_string("A", 1) == "A" and as_c_string(None, 1) is None
    with pytest.raises(TypeError, match=r"descriptor 'encode' for 'str' objects doesn't apply to a 'bytes' object"):
        as_c_string(b"A", 1)


class _Base(ArgumentChecked):
    def __init__(self) -> None:
        self.seen: list[object] = []

    def put(self, a: float, b: int, extra: object = None) -> None:
        self.seen.append((a, b, extra))

    def get(self) -> object:
        return self.seen[-1]

    value = property(get, lambda self, v: self.put(v, 0))


_Base = c_arguments(2, put=("double", "int"))(_Base)  # type: ignore[misc]


class _Override(_Base):
    def put(self, a: float, b: int, extra: object = None) -> None:
        self.seen.append(("override", a, b, extra))


def test_tables_convert_positional_and_keyword_arguments_and_reach_overrides() -> None:
    obj = _Base()
    obj.put(1, True, "x")
    obj.put(b=2**32 + 1, a=True)
    assert obj.seen == [(1.0, 1, "x"), (1.0, 1, None)]
    assert type(obj.seen[0][0]) is float
    with pytest.raises(ctypes.ArgumentError, match="argument 3: TypeError: Don't know how to convert parameter 3"):
        obj.put(1.0, 1.5)
    with pytest.raises(TypeError, match="must be real number, not str"):
        obj.put(a="1", b=1)
    over = _Override()
    over.put(2, False)
    assert over.seen == [("override", 2.0, 0, None)]
    with pytest.raises(TypeError, match="must be real number, not list"):
        over.put([2], 0)


# -- every public API method with junk: only the binding's own exceptions come out ---------------------------------

WORLD = """
WorldInfo { basicTimeStep 16 }
Solid { boundingObject Plane { } }
DEF BALL Solid { translation 1 0 0.5 physics Physics { } boundingObject Sphere { radius 0.1 } }
DEF R Robot { name "r" controller "<extern>" supervisor TRUE translation 0 0 0.1 children [
  HingeJoint { jointParameters HingeJointParameters { axis 0 1 0 }
    device [ RotationalMotor { name "m" } PositionSensor { name "p" } ]
    endPoint Solid { translation 0 0.1 0 physics Physics { } boundingObject Sphere { radius 0.02 } } }
  SliderJoint { device [ LinearMotor { name "lin" } ]
    endPoint Solid { translation 0 0 0.1 physics Physics { } boundingObject Box { size 0.02 0.02 0.02 } } }
  TouchSensor { name "t" boundingObject Box { size 0.01 0.01 0.01 } }
  DistanceSensor { name "d" lookupTable [ 0 0 0 1 1000 0 ] }
  GPS { } Accelerometer { } Gyro { } Compass { } InertialUnit { } Altimeter { }
  Emitter { } Receiver { } LED { name "led" } Connector { name "c" }
  Lidar { horizontalResolution 8 fieldOfView 1 numberOfLayers 2 verticalFieldOfView 0.2 }
] physics Physics { } boundingObject Box { size 0.1 0.1 0.1 } }
"""

# Calls that end, reset, reload or save the world or write files; the checks of their arguments are the
# same table entries tested through the other methods.
_SKIPPED = {"step", "simulationQuit", "simulationReset", "worldReload", "worldSave", "worldLoad", "remove",
            "restartController", "animationStartRecording", "animationStopRecording", "exportImage",
            "movieStartRecording", "simulationResetPhysics", "resetPhysics", "setLabel", "loadWorld",
            # step the simulation or wait for simulated time (junk durations would run it for years) or change the
            # scene or state (a replayed example would then see another world)
            "stepBegin", "stepEnd", "waitForUserInputEvent", "saveState", "loadState", "importMFNodeFromString",
            "importSFNodeFromString", "removeMF", "removeSF", "setJointPosition", "batterySensorEnable"}
# Methods Webots' binding implements in Python itself: the same Python errors come out of wbsim's versions.
_PYTHON_IN_WEBOTS = {"getDevice": TypeError, "getSkin": TypeError,  # an unhashable name in the devices dict
                     "convertToDegreesMinutesSeconds": (TypeError, ValueError, OverflowError),
                     "getDeviceByIndex": IndexError}
_ARGUMENTS = Path(__file__).with_name("arguments.py")


def _api_objects(sim):  # noqa: ANN001, ANN202
    robot = sim.robot("r")
    root = robot.getRoot()
    children = root.getField("children")
    ball = robot.getFromDef("BALL")
    return [robot, *robot._ordered, root, children, ball, ball.getField("translation"), ball.getField("physics"),
            robot.getSelf()]


def _methods(obj):  # noqa: ANN001, ANN202
    for name in dir(type(obj)):
        if name.startswith("_") or name in _SKIPPED or isinstance(inspect.getattr_static(obj, name), property):
            continue
        method = getattr(obj, name)
        if not callable(method) or inspect.isclass(method):
            continue
        params = [p for p in inspect.signature(method).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if params:
            yield name, method, len([p for p in params if p.default is p.empty]) or 1


_JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3), st.binary(max_size=3), st.lists(st.floats(-10, 10), max_size=4),
    st.tuples(st.floats(-10, 10), st.floats(-10, 10), st.floats(-10, 10)), st.just(object()), st.just({}),
)


@pytest.fixture(scope="module")
def api(tmp_path_factory):  # noqa: ANN001, ANN201
    from wbsim.compile.builder import compile_world
    from wbsim.sim.simulation import Simulation, SimulationOptions
    from wbsim.world.loader import load_world_model_from_string

    model = load_world_model_from_string("#VRML_SIM R2023b utf8\n" + WORLD, "junk.wbt")
    sim = Simulation(compile_world(model), SimulationOptions(start_controllers=False))
    sim.step()
    calls = [(f"{type(obj).__name__}.{name}", name, method, count)
             for obj in _api_objects(sim) for name, method, count in _methods(obj)]
    yield sim, calls
    sim.close()


def test_the_junk_test_reaches_every_kind_of_api_object(api) -> None:  # noqa: ANN001
    _, calls = api
    owners = {label.split(".")[0] for label, *_ in calls}
    assert {"Supervisor", "Node", "Field", "RotationalMotor", "LinearMotor", "PositionSensor", "TouchSensor",
            "DistanceSensor", "GPS", "Accelerometer", "Gyro", "Compass", "InertialUnit", "Altimeter", "Emitter",
            "Receiver", "LED", "Connector", "Lidar"} <= owners
    assert len(calls) > 80


# Bounded: an example calls every method (about 200 calls and a step, ~0.3 s). No shrinking: each shrink step
# replays a whole example, so a failure used to be shrunk (and "explained") for many minutes before it was
# reported (that was the "hang" of this test); the failing call and its arguments are in the message, and
# print_blob gives the example to replay with @reproduce_failure. Each example starts from the initial state.
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.too_slow], derandomize=True,
          phases=[Phase.explicit, Phase.reuse, Phase.generate], print_blob=True)
@given(data=st.data())
def test_every_api_method_with_junk_raises_only_what_webots_binding_raises(api, data, capsys) -> None:  # noqa: ANN001
    sim, calls = api
    sim.reset()
    for label, name, method, count in calls:
        args = [data.draw(_JUNK, label=label) for _ in range(count)]
        try:
            method(*args)
        except Exception as error:  # noqa: BLE001 - which exceptions come out is what is tested
            innermost = Path(traceback.extract_tb(error.__traceback__)[-1].filename)
            allowed = _PYTHON_IN_WEBOTS.get(name)
            assert innermost == _ARGUMENTS or (allowed is not None and isinstance(error, allowed)), (
                f"{label}{tuple(args)!r} raised {type(error).__name__}: {error} from {innermost}")
        assert not sim.ended, f"{label}{tuple(args)!r} ended the simulation"
    from wbsim.errors import SimulationError

    try:
        sim.step()  # the simulation still steps after whatever was accepted
    except SimulationError as error:
        # Huge but valid values (forces, velocities) may make the physics diverge: a typed error, as it should be;
        # start the next example from the initial state.
        assert "unstable" in str(error)
        sim.reset()
    capsys.readouterr()


# The methods the test above skips because they change the scene or the state, with junk too: each example on
# a fresh simulation (a removal or import is not undone by a reset), the calls in a drawn order.
_CHANGING = ("importMFNodeFromString", "importSFNodeFromString", "removeMF", "removeSF", "setJointPosition",
             "batterySensorEnable", "saveState", "loadState", "remove", "restartController", "resetPhysics",
             "simulationResetPhysics", "setLabel")
_NODE_STRINGS = st.sampled_from([
    "Solid { }", "Robot { name \"x\" }", "DEF X Pose { children [ Shape { } ] }", "Shape { }", "{", "Box { }",
    "Solid { physics Physics { } boundingObject Sphere { radius 0.1 } }", "HingeJoint { endPoint Solid { } }",
    "Solid { translation nan 0 0 }", "GPS { }"])


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate], print_blob=True)
@given(data=st.data())
def test_scene_changing_methods_with_junk_raise_only_binding_errors(data, capsys) -> None:  # noqa: ANN001
    from wbsim.compile.builder import compile_world
    from wbsim.sim.simulation import Simulation, SimulationOptions
    from wbsim.world.loader import load_world_model_from_string

    model = load_world_model_from_string("#VRML_SIM R2023b utf8\n" + WORLD, "junk.wbt")
    sim = Simulation(compile_world(model), SimulationOptions(start_controllers=False))
    try:
        sim.step()
        calls = [(f"{type(obj).__name__}.{name}", name, getattr(obj, name)) for obj in _api_objects(sim)
                 for name in _CHANGING if callable(getattr(obj, name, None))]
        assert {label.split(".")[1] for label, *_ in calls} == set(_CHANGING)
        for label, name, method in data.draw(st.permutations(calls), label="order"):
            count = len([p for p in inspect.signature(method).parameters.values() if p.default is p.empty])
            args = [data.draw(st.one_of(_JUNK, _NODE_STRINGS), label=label) for _ in range(count)]
            try:
                method(*args)
            except Exception as error:  # noqa: BLE001 - which exceptions come out is what is tested
                innermost = Path(traceback.extract_tb(error.__traceback__)[-1].filename)
                assert innermost == _ARGUMENTS, (
                    f"{label}{tuple(args)!r} raised {type(error).__name__}: {error} from {innermost}")
        sim.step()  # whatever was accepted, the simulation still steps
    finally:
        sim.close()
        capsys.readouterr()
