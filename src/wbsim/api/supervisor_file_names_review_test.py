"""Review r25d of the supervisor's file names (Webots' WbSupervisorUtilities::makeFilenameAbsolute): a relative
name given to animationStartRecording is relative to the controller's folder, not to a directory it moved to."""

from __future__ import annotations


def test_a_relative_animation_name_is_relative_to_the_controllers_folder_after_a_chdir(
        project, load, tmp_path) -> None:
    """animationStartRecording("anim.html") after os.chdir elsewhere: wbsim's recording (anim.npz) is written in
    the controller's folder (Webots makes the name absolute against the controller's directory), none where it
    moved."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    recorder = f"""
        import os
        from controller import Supervisor
        boss = Supervisor()
        boss.step(8)
        os.chdir({str(elsewhere)!r})
        assert boss.animationStartRecording("anim.html")
        boss.step(8)
        assert boss.animationStopRecording()
        while boss.step(8) != -1:
            pass
    """
    world = """
    WorldInfo { basicTimeStep 8 }
    DEF BOSS Robot { name "boss" controller "recorder" supervisor TRUE }
    """
    sim = load(project(world, controllers={"recorder": recorder}))
    sim.run(0.05)
    assert not sim.failed
    assert (tmp_path / "controllers" / "recorder" / "anim.npz").is_file()
    assert list(elsewhere.iterdir()) == []
