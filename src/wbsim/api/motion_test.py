"""Motion: Webots' .motion format, linear interpolation between poses, play/stop/loop/reverse, errors."""

from __future__ import annotations

import pytest

from wbsim.api.motion import Motion, parse_motion

WORLD = """
WorldInfo { basicTimeStep 10 gravity 0 }
Robot {
  name "r"
  controller "<extern>"
  children [
    HingeJoint {
      jointParameters HingeJointParameters { axis 0 0 1 }
      device [ RotationalMotor { name "a" maxVelocity 100 } ]
      endPoint Solid { translation 0.1 0 0 physics Physics { density -1 mass 0.1 } boundingObject Sphere { radius 0.01 } }
    }
  ]
}
"""

MOTION = "#WEBOTS_MOTION,V1.0,a,ghost\n00:00:000,Pose1,0,1\n00:00:100,Pose2,1,*\n00:01:000,Pose3,2,3\n"


def test_parse_times_and_stars():
    names, times, poses = parse_motion(MOTION, "m.motion")
    assert names == ["a", "ghost"] and times == [0, 100, 1000]
    assert poses == [[0.0, 1.0], [1.0, None], [2.0, 3.0]]
    assert parse_motion("#WEBOTS_MOTION,V1.0,a\n1:02:003,P,0\n", "x")[1] == [62003]


@pytest.mark.parametrize(("text", "message"), [
    ("", "is empty"),
    ("#MOTION,V1.0,a\n0,P,1\n", "invalid motion file header"),
    ("#WEBOTS_MOTION,V2.0,a\n0,P,1\n", "unsupported version"),
    ("#WEBOTS_MOTION,V1.0,a\nx,P,1\n", "expected <time value>"),
    ("#WEBOTS_MOTION,V1.0,a\n10,P,1\n5,Q,2\n", "non-increasing"),
    ("#WEBOTS_MOTION,V1.0,a,b\n0,P,1\n", "missing data"),
    ("#WEBOTS_MOTION,V1.0,a\n0,P,1,2\n", "unexpected extra data"),
])
def test_parse_errors(text, message):
    with pytest.raises(ValueError, match=message):
        parse_motion(text, "m.motion")


def test_playback_interpolates_targets_and_ends(project, load, tmp_path, capfd):
    sim = load(project(WORLD))
    robot = sim.robot("r")
    path = tmp_path / "m.motion"
    path.write_text(MOTION)
    motion = Motion(str(path), robot)
    assert "ignoring joint 'ghost'" in capfd.readouterr().err
    assert motion.isValid() and motion.getDuration() == 1000 and motion.duration == 1000
    motor = robot.getDevice("a")
    robot.step(10)
    assert motor.getTargetPosition() == 0.0  # not playing yet: untouched
    motion.play()
    for _ in range(6):  # targets at elapsed 0, 10, ..., 50 ms: 0.5 at 50 ms
        robot.step(10)
    assert motor.getTargetPosition() == pytest.approx(0.5) and motion.getTime() == 60
    motion.setTime(550)
    robot.step(10)
    assert motor.getTargetPosition() == pytest.approx(1.5)  # halfway between 100 ms (1) and 1000 ms (2)
    robot.step(500)  # one long step: target of 560 ms, then elapsed 1060
    robot.step(10)
    assert motion.isOver() and motor.getTargetPosition() == 2.0
    motion.setReverse(True)
    motion.play()
    robot.step(10)
    assert motion.getTime() == 990 and not motion.isOver()
    motion.stop()
    robot.step(10)
    assert motion.getTime() == 990
    motion.setLoop(True)
    assert not motion.isOver()


def test_invalid_file(capfd):
    motion = Motion("/nonexistent.motion", None)
    assert not motion.isValid() and motion.getDuration() == -1
    assert "could not open" in capfd.readouterr().err


def test_motion_in_a_controller_plays_on_its_robot(project, load, capfd):
    controller = """
    from controller import Motion, Robot
    robot = Robot()
    wave = Motion("wave.motion")
    wave.play()
    while not wave.isOver():
        robot.step(10)
    print("target", robot.getDevice("a").getTargetPosition())
    """
    world = WORLD.replace('controller "<extern>"', 'controller "waver"')
    path = project(world, controllers={"waver": controller}, files={"controllers/waver/wave.motion": MOTION})
    sim = load(path)
    sim.run(1.5)
    # As in Webots, a step sets the targets of the elapsed time, then advances it: the motion is over once
    # 1000 ms have elapsed, and the last target set is the one of 990 ms (1 + 890/900).
    assert not sim.failed and f"target {1 + 890 / 900}" in capfd.readouterr().out
