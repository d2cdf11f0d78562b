"""Recordings: frame times, poses against the simulation, determinism of the file, supervisor start/stop, errors."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from wbsim import recording
from wbsim.cli.main import main
from wbsim.errors import RecordingError, SimulationError
from wbsim.sim.phases import Phase

FALLING = """
WorldInfo { basicTimeStep 16 randomSeed 3 }
DEF FLOOR Solid { name "floor" boundingObject Plane { } }
DEF BOX Solid {
  translation 0.1 -0.2 2 rotation 0 0 1 0.3 name "box"
  physics Physics { } boundingObject Box { size 0.1 0.1 0.1 }
  children [ DEF TAG GPS { translation 0.05 0 0.02 rotation 1 0 0 0.5 } ]
}
DEF SPUN Solid {
  translation 1 0 1 name "spun" angularVelocity 0 2 3
  physics Physics { } boundingObject Sphere { radius 0.1 }
}
"""


def test_frames_follow_webots_animation_rate(project, load, tmp_path):
    """WbAnimationRecorder: the state at start, a frame after the first step, then whenever 1000 / FPS ms have
    passed since the last frame (FPS 60, 16 ms steps: every 2 steps; FPS 25, 10 ms: every 4)."""
    sim = load(project(FALLING))
    sim.run(0.16)  # recording may start at any time
    sim.start_recording(tmp_path / "a.npz")
    sim.run(0.32)
    sim.stop_recording()
    rec = recording.load(tmp_path / "a.npz")
    assert rec.frame_steps == 2 and rec.fps == 60.0
    assert rec.step.tolist() == [10, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29]
    np.testing.assert_allclose(rec.time, rec.step * 0.016)
    sim = load(project(FALLING.replace("basicTimeStep 16", "basicTimeStep 10 FPS 25"), world_name="b.wbt"))
    sim.start_recording(tmp_path / "b.npz")
    sim.run(0.2)
    rec = recording.load(sim.stop_recording())
    assert rec.frame_steps == 4 and rec.step.tolist() == [0, 1, 5, 9, 13, 17]
    assert recording.frame_steps(32, 60) == 1 and recording.frame_steps(1, 60) == 17


def test_a_relative_recording_path_is_the_working_directorys_at_the_start(project, load, tmp_path, monkeypatch):
    """The file is written where the relative name pointed when the recording started, wherever the working
    directory is when it stops (a controller's folder while a run holds it, or a host that moved on)."""
    sim = load(project(FALLING))
    (tmp_path / "here").mkdir()
    (tmp_path / "there").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    sim.start_recording("rec.npz")
    sim.run(0.1)
    monkeypatch.chdir(tmp_path / "there")
    assert sim.stop_recording() == tmp_path / "here" / "rec.npz"
    assert recording.load(tmp_path / "here" / "rec.npz").step[-1] == 7 and not (tmp_path / "there" / "rec.npz").exists()


def test_falling_box_poses_match_the_simulation_and_free_fall(project, load, tmp_path):
    world = project(FALLING)
    sim = load(world)
    sim.start_recording(tmp_path / "fall.npz")
    sim.run(0.5)
    rec = recording.load(sim.stop_recording())
    assert rec.body_defs.tolist() == ["FLOOR", "BOX", "TAG", "SPUN"]
    assert rec.body_paths[1] == 'Solid "box"' and rec.positions.shape == (len(rec), 4, 3)
    # A second run, not recorded, read through the supervisor API at the frames' steps: the same poses, bit for
    # bit (recording does not disturb the run).
    other = load(world)  # no robot: the poses are read with the core supervision functions
    frames = {int(s): i for i, s in enumerate(rec.step)}
    seen = 0
    for step in range(int(rec.step[-1]) + 1):
        if step in frames:
            i = frames[step]
            for column, def_name in enumerate(rec.body_defs):
                frame = other.supervision.world_frame(other.node(def_name))
                np.testing.assert_array_equal(rec.positions[i, column], frame.pos)
                np.testing.assert_allclose(_matrix(rec.quaternions[i, column]), frame.rot, atol=1e-12)
            seen += 1
        other.step()
    assert seen == len(rec) == 17
    # Free fall of the box from rest: z = 2 - g t^2 / 2 (MuJoCo's semi-implicit Euler over 4 physics steps of
    # 4 ms per basic step), x and y and the orientation unchanged.
    box = rec.body("BOX")
    n = rec.step * 4
    h = 0.004
    np.testing.assert_allclose(rec.positions[:, box, 2], 2.0 - 9.81 * h * h * n * (n + 1) / 2, atol=1e-12)
    np.testing.assert_allclose(rec.positions[:, box, :2], [[0.1, -0.2]] * len(rec), atol=1e-12)
    np.testing.assert_allclose(rec.quaternions[:, box], [[np.cos(0.15), 0, 0, np.sin(0.15)]] * len(rec), atol=1e-12)
    # The GPS TAG, a frame-only Solid (a site on the box's body, no body of its own), rides with the box.
    tag = rec.body('Solid "box" > children[0] > DEF TAG GPS')
    assert tag == rec.body("TAG") == 2
    np.testing.assert_allclose(rec.positions[:, tag] - rec.positions[:, box],
                               [_matrix(rec.quaternions[0, box]) @ [0.05, 0, 0.02]] * len(rec), atol=1e-12)
    # The spinning ball: unit quaternions that turn.
    spun = rec.body("SPUN")
    np.testing.assert_allclose(np.linalg.norm(rec.quaternions[:, spun], axis=1), 1.0, atol=1e-12)
    assert abs(rec.quaternions[-1, spun] @ rec.quaternions[0, spun]) < 0.99


def _matrix(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


NOISY = """
WorldInfo { basicTimeStep 8 randomSeed SEED }
Solid { name "floor" boundingObject Plane { } }
DEF BOT Robot {
  translation 0 0 0.05
  controller "wander"
  physics Physics { } boundingObject Box { size 0.2 0.2 0.1 }
  children [
    DistanceSensor { translation 0.1 0 0 name "ds" lookupTable [ 0 0 0, 2 2 0.3 ] }
    LED { name "led" color [ 1 0 0, 0 1 0 ] children [ Shape { appearance Appearance { material Material { } } } ] }
  ]
}
Solid { translation 1 0 0.5 name "wall" boundingObject Box { size 0.1 2 1 } }
"""
WANDER = """
from controller import Robot
robot = Robot()
ds, led = robot.getDevice("ds"), robot.getDevice("led")
ds.enable(8)
while robot.step(8) != -1:
    value = ds.getValue()
    led.set(1 if value == value and value > 0.9 else 2)
"""


def test_the_file_is_the_same_for_the_same_seed(project, load, tmp_path):
    """Same world and seed: the same bytes (the noisy sensor drives the LED, so the seed shows in the file)."""
    files = []
    for i, seed in enumerate((5, 5, 6)):
        world = project(NOISY.replace("SEED", str(seed)), controllers={"wander": WANDER}, world_name=f"w{i}.wbt")
        sim = load(world)
        sim.start_recording(tmp_path / f"run{i}.npz")
        sim.run(1.0)
        files.append(sim.stop_recording())
    data = [f.read_bytes() for f in files]
    runs = [recording.load(f) for f in files]
    assert runs[0].world != runs[1].world  # two world files: compare what they recorded
    for key in ("time", "step", "positions", "quaternions"):
        np.testing.assert_array_equal(getattr(runs[0], key), getattr(runs[1], key))
    np.testing.assert_array_equal(runs[0].devices["led"].values["value"], runs[1].devices["led"].values["value"])
    assert not np.array_equal(runs[0].devices["led"].values["value"], runs[2].devices["led"].values["value"])
    # The same world file recorded twice gives identical bytes (fixed zip timestamps, no pickles).
    sim = load(project(NOISY.replace("SEED", "5"), controllers={"wander": WANDER}, world_name="w0.wbt"))
    sim.start_recording(tmp_path / "again.npz")
    sim.run(1.0)
    assert sim.stop_recording().read_bytes() == data[0]
    with zipfile.ZipFile(files[0]) as archive:
        assert {info.date_time for info in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}


SUPERVISOR = """
from controller import Supervisor
robot = Supervisor()
results = []
while robot.step(16) != -1:
    t = round(robot.getTime(), 6)
    if t == 0.096:
        results.append(robot.animationStartRecording("anim.txt"))   # Webots wants .html
        results.append(robot.animationStartRecording(""))
        results.append(robot.animationStopRecording())             # nothing recorded yet
        results.append(robot.animationStartRecording("anim.html"))
        results.append(robot.animationStartRecording("other.html"))  # one at a time
    if t == 0.192:
        results.append(robot.animationStopRecording())
        robot.setCustomData(repr(results))
    if t == 0.32:
        break
"""
PLAIN = """
from controller import Supervisor
robot = Supervisor()
robot.step(16)
robot.setCustomData(repr(robot.animationStartRecording("x.html")))
"""


def test_supervisor_starts_and_stops_a_recording(project, load, capfd):
    world = """
    WorldInfo { basicTimeStep 16 }
    DEF BALL Solid { translation 0 0 1 physics Physics { } boundingObject Sphere { radius 0.1 } }
    Robot { name "boss" controller "boss" supervisor TRUE }
    Robot { name "plain" controller "plain" }
    """
    path = project(world, controllers={"boss": SUPERVISOR, "plain": PLAIN})
    sim = load(path)
    sim.run()
    boss, plain = sim.robots
    assert boss.custom_data == repr([False, False, False, True, False, True])
    assert plain.custom_data == "False"
    err = capfd.readouterr().err
    assert "Error: the target file given to wb_supervisor_animation_start_recording() should have the '.html' " \
           "extension." in err
    assert "Error: wb_supervisor_animation_start_recording() called with NULL or empty 'filename' argument." in err
    assert "Error: wb_supervisor_animation_stop_recording(): no animation is being recorded." in err
    assert "an animation is already being recorded" in err
    assert "Error: ignoring illegal call to wb_supervisor_animation_start_recording() in a 'Robot' controller." in err
    # Written beside the controller (its working folder), with wbsim's extension.
    target = path.parent.parent / "controllers" / "boss" / "anim.npz"
    rec = recording.load(target)
    # Started in the controller phase of the step from t = 0.096 (a frame of that state), stopped in the one
    # from t = 0.192 before its physics: frames at 0.096, 0.112, then every 2 steps up to 0.192.
    np.testing.assert_allclose(rec.time, [0.096, 0.112, 0.144, 0.176])
    ball = rec.body("BALL")
    assert np.all(np.diff(rec.positions[:, ball, 2]) < 0)
    assert sim.recorder is None and not sim._hooks[Phase.DEVICES_SAMPLE]  # no per-step cost once stopped
    assert not (path.parent.parent / "controllers" / "boss" / "other.npz").exists()


def test_errors_and_close_writes_the_file(project, load, tmp_path):
    sim = load(project(FALLING))
    with pytest.raises(RecordingError, match="Cannot create the recording file"):
        sim.start_recording(tmp_path / "missing" / "x.npz")
    assert sim.recorder is None and sim.stop_recording() is None
    sim.start_recording(tmp_path / "c.npz")
    with pytest.raises(SimulationError, match="already in progress"):
        sim.start_recording(tmp_path / "d.npz")
    sim.run(0.048)
    sim.close()  # writes the recording in progress
    assert len(recording.load(tmp_path / "c.npz")) == 3
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(RecordingError, match="Cannot read the recording"):
        recording.load(tmp_path / "junk.npz")
    np.savez(tmp_path / "other.npz", time=np.zeros(3))
    with pytest.raises(RecordingError, match="not a wbsim recording"):
        recording.load(tmp_path / "other.npz")
    rec = recording.load(tmp_path / "c.npz")
    with pytest.raises(RecordingError, match="No recorded Solid"):
        rec.body("NOPE")
    assert rec.devices == {}


def test_cli_refuses_a_recording_it_cannot_create(project, tmp_path, capfd):
    world = project(FALLING)
    assert main(["run", str(world), "--duration", "0.1", "--no-progress", "--record", str(tmp_path / "no" / "r.npz")]) == 2
    assert "--record: Cannot create the recording file" in capfd.readouterr().err


def test_a_world_reset_keeps_the_cadence_and_time_goes_back(project, load, tmp_path):
    sim = load(project(FALLING))
    sim.start_recording(tmp_path / "r.npz")
    sim.run(0.08)  # frames at steps 0, 1, 3, 5
    sim.request_world_reset()
    sim.run(0.064)
    rec = recording.load(sim.stop_recording())
    # The reset happens at the end of the 6th step, after its frame would be due; that step ends at one basic
    # step with the initial state (Webots' timing). Frames keep coming every 2 steps run.
    np.testing.assert_allclose(rec.time, [0.0, 0.016, 0.048, 0.080, 0.032, 0.064])
    box = rec.body("BOX")
    assert rec.positions[0, box, 2] == 2.0 and rec.positions[4, box, 2] == rec.positions[1, box, 2]


def test_solids_imported_and_removed_while_recording(project, load, tmp_path):
    world = """
    WorldInfo { basicTimeStep 16 FPS 62.5 }
    DEF BOSS Robot { name "boss" controller "<extern>" supervisor TRUE }
    DEF OLD Solid { translation 1 0 0 name "old" children [ LED { name "lamp" } ] }
    """
    sim = load(project(world))
    boss = sim.robot("boss")
    sim.start_recording(tmp_path / "r.npz")
    boss.step(32)  # frames 0 (start), 1, 2
    boss.getFromDef("OLD").remove()
    children = boss.getRoot().getField("children")
    children.importMFNodeFromString(-1, 'DEF NEW Solid { translation 0 2 0 name "new" }')
    boss.step(32)  # frames 3, 4
    children.importMFNodeFromString(-1, 'DEF OLD Solid { translation 1 0 5 name "old" children [ LED { name "lamp" } ] }')
    boss.step(16)  # frame 5
    sim.stop_recording()
    rec = recording.load(tmp_path / "r.npz")
    assert len(rec) == 6
    old, new = rec.body("OLD"), rec.body("NEW")
    assert np.array_equal(rec.positions[:3, old], [[1, 0, 0]] * 3) and np.isnan(rec.positions[3:5, old]).all()
    assert np.array_equal(rec.positions[5, old], [1, 0, 5])  # imported again under the same path: its column
    assert np.isnan(rec.positions[:3, new]).all() and np.array_equal(rec.positions[3:, new], [[0, 2, 0]] * 3)
    led = rec.devices["led"]
    assert led.paths.tolist() == ['Solid "old" > children[0] > LED "lamp"']
    assert led.values["value"][:, 0].tolist() == [0, 0, 0, -1, -1, 0]
    assert np.isnan(led.values["color"][3:5, 0]).all()
