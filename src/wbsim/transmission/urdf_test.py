"""Tests for load_transmissions: upstream's *_loader_test.cpp scenarios (strict, lenient) and parser rules."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from wbsim.errors import TransmissionError
from wbsim.transmission.differential import DifferentialTransmission
from wbsim.transmission.four_bar import FourBarLinkageTransmission
from wbsim.transmission.handle import ActuatorHandle, JointHandle
from wbsim.transmission.simple import SimpleTransmission
from wbsim.transmission.urdf import (
    DIFFERENTIAL_TRANSMISSION_PLUGIN,
    FOUR_BAR_LINKAGE_TRANSMISSION_PLUGIN,
    ActuatorInfo,
    JointInfo,
    LoadedTransmission,
    _stod,
    load_transmissions,
)

# Like ros2_control_test_assets::urdf_head: note the newline before the XML declaration, which libxml2 alone
# would refuse.
URDF_HEAD = """
<?xml version="1.0" encoding="utf-8"?>
<robot name="MinimalRobot">
  <link name="world"/>
  <link name="base_link"/><link name="link1"/><link name="link2"/><link name="link3"/>
  <joint name="base_joint" type="fixed"><parent link="world"/><child link="base_link"/></joint>
  <joint name="joint1" type="revolute">
    <parent link="base_link"/><child link="link1"/>
    <limit effort="0.1" lower="-3.14159265359" upper="3.14159265359" velocity="0.2"/>
  </joint>
  <joint name="joint2" type="revolute">
    <parent link="link1"/><child link="link2"/>
    <limit effort="0.1" lower="-3.14159265359" upper="3.14159265359" velocity="0.2"/>
  </joint>
  <joint name="joint3" type="revolute">
    <parent link="link2"/><child link="link3"/>
    <limit effort="0.1" lower="-3.14159265359" upper="3.14159265359" velocity="0.2"/>
  </joint>
"""
URDF_TAIL = "</robot>\n"


def robot(*blocks: str) -> str:
    return URDF_HEAD + "".join(blocks) + URDF_TAIL


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based line number of the n-th occurrence of ``needle``."""
    index = -1
    for _ in range(occurrence):
        index = text.index(needle, index + 1)
    return text.count("\n", 0, index) + 1


# --- Assets -------------------------------------------------------------------------------------------------

# The section-5.4 four-bar URDF, verbatim from the reference notes.
FOUR_BAR_URDF = """<?xml version="1.0"?>
<robot name="MinimalRobot">
  <link name="base_link"/><link name="link2"/><link name="link3"/>
  <joint name="joint2" type="revolute">
    <parent link="base_link"/><child link="link2"/>
    <limit effort="0.1" lower="-3.14159265359" upper="3.14159265359" velocity="0.2"/>
  </joint>
  <joint name="joint3" type="revolute">
    <parent link="link2"/><child link="link3"/>
    <limit effort="0.1" lower="-3.14159265359" upper="3.14159265359" velocity="0.2"/>
  </joint>
  <ros2_control name="TestSystemHardware" type="system">
    <hardware>
      <plugin>test_system</plugin>
    </hardware>
    <joint name="joint2">
      <command_interface name="velocity"/>
      <state_interface name="position"/>
      <state_interface name="velocity"/>
    </joint>
    <joint name="joint3">
      <command_interface name="velocity"/>
      <state_interface name="position"/>
      <state_interface name="velocity"/>
    </joint>
    <transmission name="four_bar_transmission">
      <plugin>transmission_interface/FourBarLinkageTransmission</plugin>
      <actuator name="joint2_motor" role="actuator1">
        <mechanical_reduction>50</mechanical_reduction>
      </actuator>
      <actuator name="joint3_motor" role="actuator2">
        <mechanical_reduction>-50</mechanical_reduction>
      </actuator>
      <joint name="joint2" role="joint1">
        <offset>0.5</offset>
        <mechanical_reduction>2.0</mechanical_reduction>
      </joint>
      <joint name="joint3" role="joint2">
        <offset>-0.5</offset>
        <mechanical_reduction>-2.0</mechanical_reduction>
      </joint>
    </transmission>
  </ros2_control>
</robot>
"""

PAIR_BODY = """
      <actuator name="joint2_motor" role="actuator1">
        <mechanical_reduction>50</mechanical_reduction>
      </actuator>
      <actuator name="joint3_motor" role="actuator2">
        <mechanical_reduction>-50</mechanical_reduction>
      </actuator>
      <joint name="joint2" role="joint1">
        <offset>0.5</offset>
        <mechanical_reduction>2.0</mechanical_reduction>
      </joint>
      <joint name="joint3" role="joint2">
        <offset>-0.5</offset>
        <mechanical_reduction>-2.0</mechanical_reduction>
      </joint>
"""

# Like minimal_robot_urdf: an actuator component with a simple transmission, a system component with a
# differential and a four-bar transmission, and a ROS 1 style <transmission> decoy under <robot>.
MINIMAL_ROBOT_URDF = robot(
    """
  <ros2_control name="TestActuatorHardware" type="actuator">
    <hardware><plugin>test_actuator</plugin></hardware>
    <joint name="joint1">
      <command_interface name="velocity"/>
      <state_interface name="position"/>
      <state_interface name="velocity"/>
    </joint>
    <transmission name="ros2_control_transmission1">
      <plugin>transmission_interface/SimpleTransmission</plugin>
      <joint name="joint1" role="joint1">
        <mechanical_reduction>325.949</mechanical_reduction>
      </joint>
    </transmission>
  </ros2_control>
  <ros2_control name="TestSystemHardware" type="system">
    <hardware><plugin>test_system</plugin></hardware>
    <joint name="joint2">
      <command_interface name="velocity"/>
      <state_interface name="position"/>
      <state_interface name="velocity"/>
    </joint>
    <joint name="joint3">
      <command_interface name="velocity"/>
      <state_interface name="position"/>
      <state_interface name="velocity"/>
    </joint>
    <transmission name="differential_transmission">
      <plugin>transmission_interface/DifferentialTransmission</plugin>"""
    + PAIR_BODY
    + """    </transmission>
    <transmission name="four_bar_transmission">
      <plugin>transmission_interface/FourBarLinkageTransmission</plugin>"""
    + PAIR_BODY
    + """    </transmission>
  </ros2_control>
  <transmission name="ros1_decoy">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="joint1"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="motor1"><mechanicalReduction>50</mechanicalReduction></actuator>
  </transmission>
"""
)


def first_of(loaded: list[LoadedTransmission], plugin: str) -> LoadedTransmission:
    return next(t for t in loaded if t.plugin == plugin)


# --- FullSpec -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lenient", [False, True])
def test_full_spec_simple(lenient: bool) -> None:
    loaded = load_transmissions(MINIMAL_ROBOT_URDF, lenient=lenient)
    assert [t.name for t in loaded] == [
        "ros2_control_transmission1",
        "differential_transmission",
        "four_bar_transmission",
    ]
    info = loaded[0]
    assert info.hardware_name == "TestActuatorHardware" and info.hardware_type == "actuator"
    assert info.source == "<string>" and info.line == line_of(
        MINIMAL_ROBOT_URDF, '<transmission name="ros2_control_transmission1"'
    )
    assert isinstance(info.transmission, SimpleTransmission)
    assert info.joints[0].role == "joint1"
    assert info.transmission.get_actuator_reduction() == pytest.approx(325.949)
    assert info.transmission.get_joint_offset() == 0.0
    assert info.joints == (
        JointInfo("joint1", "joint1", 325.949, 0.0, False, ("position", "velocity"), ("velocity",)),
    )
    # Upstream auto-adds one actuator to type="actuator" hardware.
    assert info.actuators == (
        ActuatorInfo("actuator1", "actuator1", 1.0, 0.0, False, ("position", "velocity"), ("velocity",)),
    )
    assert info.joint_names == ("joint1",) and info.actuator_names == ("actuator1",)


@pytest.mark.parametrize("lenient", [False, True])
@pytest.mark.parametrize(
    ("plugin", "cls"),
    [
        (DIFFERENTIAL_TRANSMISSION_PLUGIN, DifferentialTransmission),
        (FOUR_BAR_LINKAGE_TRANSMISSION_PLUGIN, FourBarLinkageTransmission),
    ],
)
def test_full_spec_pair(plugin: str, cls: type, lenient: bool) -> None:
    info = first_of(load_transmissions(MINIMAL_ROBOT_URDF, lenient=lenient), plugin)
    trans = info.transmission
    assert isinstance(trans, cls)
    assert trans.get_actuator_reduction() == [50.0, -50.0]
    assert trans.get_joint_reduction() == [2.0, -2.0]
    assert trans.get_joint_offset() == [0.5, -0.5]
    assert info.joint_names == ("joint2", "joint3")
    assert info.actuator_names == ("joint2_motor", "joint3_motor")
    assert [j.state_interfaces for j in info.joints] == [("position", "velocity")] * 2
    assert [j.command_interfaces for j in info.joints] == [("velocity",)] * 2
    assert [a.state_interfaces for a in info.actuators] == [(), ()]  # actuators are not auto-filled
    # Strict mode binds the role order into the transmission; lenient keeps upstream's sorted-name order.
    assert trans.joint_names == (None if lenient else ("joint2", "joint3"))
    assert trans.actuator_names == (None if lenient else ("joint2_motor", "joint3_motor"))


@pytest.mark.parametrize("lenient", [False, True])
def test_section_5_4_four_bar_urdf(lenient: bool, tmp_path: Path) -> None:
    path = tmp_path / "four_bar.urdf"
    path.write_text(FOUR_BAR_URDF)
    for source in (FOUR_BAR_URDF, str(path), path, FOUR_BAR_URDF.encode()):
        (info,) = load_transmissions(source, lenient=lenient)
        assert info.plugin == "transmission_interface/FourBarLinkageTransmission"
        assert isinstance(info.transmission, FourBarLinkageTransmission)
        assert info.transmission.get_actuator_reduction() == [50.0, -50.0]
        assert info.transmission.get_joint_reduction() == [2.0, -2.0]
        assert info.transmission.get_joint_offset() == [0.5, -0.5]
        assert [j.state_interfaces for j in info.joints] == [("position", "velocity")] * 2
        assert [j.command_interfaces for j in info.joints] == [("velocity",)] * 2
        assert info.parameters == {}
        assert info.source == (str(path) if source in (str(path), path) else "<string>")


# --- Simple loader scenarios --------------------------------------------------------------------------------

SIMPLE_COMPONENT = """
  <ros2_control name="MinimalSpec" type="actuator">
    <hardware><plugin>minimal_actuator</plugin></hardware>
    <joint name="{joint}">
      <command_interface name="velocity">
        <param name="min">-1</param>
        <param name="max">1</param>
      </command_interface>
      <state_interface name="velocity"/>
    </joint>
    <transmission name="{name}">
      <plugin>transmission_interface/SimpleTransmission</plugin>
      <joint name="{joint}" role="joint1">{body}</joint>
    </transmission>
  </ros2_control>
"""


def simple_urdf(name: str, joint: str, body: str) -> str:
    return robot(SIMPLE_COMPONENT.format(name=name, joint=joint, body=body))


@pytest.mark.parametrize("lenient", [False, True])
def test_simple_only_mech_red_specified(lenient: bool) -> None:
    (info,) = load_transmissions(
        simple_urdf("transmission1", "joint1", "<mechanical_reduction>50</mechanical_reduction>"),
        lenient=lenient,
    )
    assert isinstance(info.transmission, SimpleTransmission)
    assert info.transmission.get_actuator_reduction() == 50.0
    assert info.transmission.get_joint_offset() == 0.0
    assert info.joints[0].command_interfaces == ("velocity",) and info.joints[0].state_interfaces == (
        "velocity",
    )


@pytest.mark.parametrize("lenient", [False, True])
def test_simple_offset_and_mech_red_not_specified(lenient: bool) -> None:
    (info,) = load_transmissions(simple_urdf("transmission1", "joint1", ""), lenient=lenient)
    assert info.transmission.get_actuator_reduction() == 1.0  # type: ignore[union-attr]
    assert info.transmission.get_joint_offset() == 0.0  # type: ignore[union-attr]


def test_simple_mechanical_reduction_not_a_number() -> None:
    urdf = simple_urdf("transmission2", "joint2", "<mechanical_reduction>fifty</mechanical_reduction>")
    (info,) = load_transmissions(urdf, lenient=True)
    assert info.transmission.get_actuator_reduction() == 1.0  # type: ignore[union-attr]
    with pytest.raises(TransmissionError) as err:
        load_transmissions(urdf)
    assert str(err.value) == (
        f"<string>:{line_of(urdf, '<mechanical_reduction>fifty')}: transmission 'transmission2': "
        "<mechanical_reduction> of joint 'joint2' is not a finite number: 'fifty'."
    )


def test_simple_offset_ill_defined() -> None:
    urdf = simple_urdf(
        "transmission3", "joint3", "<offset>three</offset><mechanical_reduction>50</mechanical_reduction>"
    )
    (info,) = load_transmissions(urdf, lenient=True)
    assert info.transmission.get_joint_offset() == 0.0  # type: ignore[union-attr]
    assert info.transmission.get_actuator_reduction() == 50.0  # type: ignore[union-attr]
    with pytest.raises(TransmissionError) as err:
        load_transmissions(urdf)
    assert str(err.value) == (
        f"<string>:{line_of(urdf, '<offset>three')}: transmission 'transmission3': "
        "<offset> of joint 'joint3' is not a finite number: 'three'."
    )


def test_simple_mech_red_invalid_value(caplog: pytest.LogCaptureFixture) -> None:
    urdf = simple_urdf("transmission4", "joint3", "<mechanical_reduction>0</mechanical_reduction>")
    with caplog.at_level(logging.WARNING, logger="wbsim.transmission.urdf"):
        (info,) = load_transmissions(urdf, lenient=True)
    assert info.transmission is None
    assert info.joints[0].mechanical_reduction == 0.0
    assert [r.getMessage() for r in caplog.records] == [
        "Failed to construct transmission 'transmission4': Transmission reduction ratio cannot be zero."
    ]
    with pytest.raises(TransmissionError) as err:
        load_transmissions(urdf)
    assert str(err.value) == (
        f"<string>:{line_of(urdf, '<mechanical_reduction>0')}: transmission 'transmission4': "
        "<mechanical_reduction> of joint 'joint3' is zero ('0'); a reduction ratio cannot be zero."
    )


# --- Differential and four-bar loader scenarios -------------------------------------------------------------

PAIR_COMPONENT = """
  <ros2_control name="FullSpec" type="system">
    <hardware><plugin>full_spec_system</plugin></hardware>
    <joint name="joint1">
      <command_interface name="velocity">
        <param name="min">-0.5</param>
        <param name="max">0.5</param>
      </command_interface>
      <state_interface name="velocity"/>
    </joint>
    <joint name="joint2">
      <command_interface name="position">
        <param name="min">-1</param>
        <param name="max">1</param>
      </command_interface>
      <state_interface name="position"/>
    </joint>
    <transmission name="transmission1">
      <plugin>{plugin}</plugin>
      <actuator name="joint1_motor" role="actuator1">{a1}</actuator>
      <actuator name="joint2_motor" role="actuator2">{a2}</actuator>
      <joint name="joint1" role="joint1">{j1}</joint>
      <joint name="joint2" role="joint2">{j2}</joint>
    </transmission>
  </ros2_control>
"""

PAIR_PLUGINS = [DIFFERENTIAL_TRANSMISSION_PLUGIN, FOUR_BAR_LINKAGE_TRANSMISSION_PLUGIN]


def red(text: str) -> str:
    return f"<mechanical_reduction>{text}</mechanical_reduction>"


def pair_urdf(plugin: str, a1: str = "", a2: str = "", j1: str = "", j2: str = "") -> str:
    return robot(PAIR_COMPONENT.format(plugin=plugin, a1=a1, a2=a2, j1=j1, j2=j2))


def params(info: LoadedTransmission) -> tuple[list[float], list[float], list[float]]:
    trans = info.transmission
    assert isinstance(trans, (DifferentialTransmission, FourBarLinkageTransmission))
    return trans.get_actuator_reduction(), trans.get_joint_reduction(), trans.get_joint_offset()


@pytest.mark.parametrize("plugin", PAIR_PLUGINS)
@pytest.mark.parametrize("lenient", [False, True])
def test_pair_full_spec_inline(plugin: str, lenient: bool) -> None:
    urdf = pair_urdf(
        plugin,
        red("50"),
        red("-50"),
        "<offset>0.5</offset>" + red("2.0"),
        red("-2.0") + "<offset>-0.5</offset>",
    )
    (info,) = load_transmissions(urdf, lenient=lenient)
    assert params(info) == ([50.0, -50.0], [2.0, -2.0], [0.5, -0.5])
    assert info.joints[0].command_interfaces == ("velocity",) and info.joints[1].state_interfaces == (
        "position",
    )


@pytest.mark.parametrize("plugin", PAIR_PLUGINS)
@pytest.mark.parametrize("lenient", [False, True])
def test_pair_only_mech_red_specified(plugin: str, lenient: bool) -> None:
    (info,) = load_transmissions(
        pair_urdf(plugin, red("50"), red("-50"), red("1.0"), red("1.0")), lenient=lenient
    )
    assert params(info) == ([50.0, -50.0], [1.0, 1.0], [0.0, 0.0])


@pytest.mark.parametrize("plugin", PAIR_PLUGINS)
@pytest.mark.parametrize("lenient", [False, True])
def test_pair_offset_and_mech_red_not_specified(plugin: str, lenient: bool) -> None:
    (info,) = load_transmissions(pair_urdf(plugin), lenient=lenient)
    assert params(info) == ([1.0, 1.0], [1.0, 1.0], [0.0, 0.0])


@pytest.mark.parametrize("plugin", PAIR_PLUGINS)
def test_pair_mechanical_reduction_not_a_number(plugin: str) -> None:
    urdf = pair_urdf(plugin, red("one"), red("two"), red("three"), red("four"))
    (info,) = load_transmissions(urdf, lenient=True)
    assert params(info) == ([1.0, 1.0], [1.0, 1.0], [0.0, 0.0])
    with pytest.raises(TransmissionError) as err:
        load_transmissions(urdf)
    assert str(err.value) == (
        f"<string>:{line_of(urdf, '>one<')}: transmission 'transmission1': "
        "<mechanical_reduction> of actuator 'joint1_motor' is not a finite number: 'one'."
    )


@pytest.mark.parametrize("plugin", PAIR_PLUGINS)
def test_pair_offset_ill_defined(plugin: str) -> None:
    urdf = pair_urdf(
        plugin,
        red("50"),
        red("-50"),
        "<offset>two</offset>" + red("2.0"),
        "<offset>three</offset>" + red("-2.0"),
    )
    (info,) = load_transmissions(urdf, lenient=True)
    assert params(info) == ([50.0, -50.0], [2.0, -2.0], [0.0, 0.0])
    with pytest.raises(TransmissionError) as err:
        load_transmissions(urdf)
    assert str(err.value) == (
        f"<string>:{line_of(urdf, '<offset>two')}: transmission 'transmission1': "
        "<offset> of joint 'joint1' is not a finite number: 'two'."
    )


@pytest.mark.parametrize("plugin", PAIR_PLUGINS)
def test_pair_mech_red_invalid_value(plugin: str, caplog: pytest.LogCaptureFixture) -> None:
    urdf = pair_urdf(
        plugin, red("0"), red("0"), "<offset>2</offset>" + red("0"), "<offset>3</offset>" + red("0")
    )
    with caplog.at_level(logging.WARNING):
        (info,) = load_transmissions(urdf, lenient=True)
    assert info.transmission is None
    assert caplog.records[0].getMessage() == (
        "Failed to construct transmission 'transmission1': Transmission reduction ratios cannot be zero."
    )
    with pytest.raises(
        TransmissionError, match=r"<mechanical_reduction> of actuator 'joint1_motor' is zero \('0'\)"
    ):
        load_transmissions(urdf)


# --- Role binding (issue #3382) -----------------------------------------------------------------------------

# Joint roles follow document order but not alphabetical order (so configure() must keep the binding);
# actuator roles follow alphabetical order but not document order (so the loader must bind by role).
ROLE_URDF = robot(
    """
  <ros2_control name="Wrist" type="system">
    <hardware><plugin>wrist</plugin></hardware>
    <joint name="roll"><command_interface name="position"/></joint>
    <joint name="pitch"><command_interface name="position"/></joint>
    <transmission name="wrist">
      <plugin>transmission_interface/DifferentialTransmission</plugin>
      <actuator name="motor_b" role="actuator2">"""
    + red("20")
    + """</actuator>
      <actuator name="motor_a" role="actuator1">"""
    + red("10")
    + """</actuator>
      <joint name="roll" role="joint1">"""
    + red("4")
    + """<offset>0.1</offset></joint>
      <joint name="pitch" role="joint2">"""
    + red("3")
    + """<offset>0.2</offset></joint>
    </transmission>
  </ros2_control>
"""
)


def test_strict_binds_by_role() -> None:
    (info,) = load_transmissions(ROLE_URDF)
    assert info.joint_names == ("roll", "pitch")
    assert info.actuator_names == ("motor_a", "motor_b")
    trans = info.transmission
    assert isinstance(trans, DifferentialTransmission)
    assert trans.get_actuator_reduction() == [10.0, 20.0]
    assert trans.get_joint_reduction() == [4.0, 3.0]
    assert trans.get_joint_offset() == [0.1, 0.2]
    # Configure keeps the role binding (roll = joint index 0 although "pitch" sorts first, motor_a =
    # actuator index 0) whatever the handle order; the functional API is the reference.
    pitch, roll = JointHandle("pitch", "position"), JointHandle("roll", "position")
    motors = [ActuatorHandle("motor_b", "position", 5.0), ActuatorHandle("motor_a", "position", 7.0)]
    trans.configure([pitch, roll], motors)
    trans.actuator_to_joint()
    expected = trans.actuator_to_joint_values("position", [7.0, 5.0])
    assert expected[0] != expected[1]
    assert [roll.get_value(), pitch.get_value()] == expected.tolist()


def test_lenient_is_upstream_document_order() -> None:
    (info,) = load_transmissions(ROLE_URDF, lenient=True)
    assert info.joint_names == ("roll", "pitch")  # document order
    trans = info.transmission
    assert isinstance(trans, DifferentialTransmission)
    # Upstream's pitfall: reductions in document order, configure in sorted-name order.
    assert trans.get_actuator_reduction() == [20.0, 10.0]
    assert trans.get_joint_reduction() == [4.0, 3.0]
    assert trans.joint_names is None
    # ... so roll's reduction (4, index 0) is applied to pitch, which sorts first.
    pitch, roll = JointHandle("pitch", "position"), JointHandle("roll", "position")
    motors = [ActuatorHandle("motor_b", "position", 5.0), ActuatorHandle("motor_a", "position", 7.0)]
    trans.configure([roll, pitch], motors)
    trans.actuator_to_joint()
    expected = trans.actuator_to_joint_values("position", [7.0, 5.0])  # motor_a sorts first too
    assert [pitch.get_value(), roll.get_value()] == expected.tolist()


def pair_with_roles(j_roles: tuple[str, ...], a_roles: tuple[str, ...] = ("actuator1", "actuator2")) -> str:
    actuators = "".join(f'<actuator name="m{k}" role="{r}"/>' for k, r in enumerate(a_roles))
    joints = "".join(f'<joint name="joint{k + 1}" role="{r}"/>' for k, r in enumerate(j_roles))
    return robot(
        f"""
  <ros2_control name="Hw" type="system">
    <joint name="joint1"/><joint name="joint2"/><joint name="joint3"/>
    <transmission name="t">
      <plugin>transmission_interface/DifferentialTransmission</plugin>
      {actuators}
      {joints}
    </transmission>
  </ros2_control>
"""
    )


@pytest.mark.parametrize(
    ("j_roles", "a_roles", "message"),
    [
        (("joint1",), ("actuator1", "actuator2"), "transmission 't': no joint with role 'joint2'."),
        (
            ("joint1", "joint1"),
            ("actuator1", "actuator2"),
            "transmission 't': joint role 'joint1' is given to both 'joint1' and 'joint2'.",
        ),
        (
            ("joint1", "joint2", "joint3"),
            ("actuator1", "actuator2"),
            "transmission 't': unknown joint role 'joint3' for joint 'joint3'; "
            "expected 'joint1' or 'joint2'.",
        ),
        (("joint1", "joint2"), ("actuator2",), "transmission 't': no actuator with role 'actuator1'."),
        (
            ("joint1", "joint2"),
            ("actuator1", "motor"),
            "transmission 't': unknown actuator role 'motor' for actuator 'm1'; "
            "expected 'actuator1' or 'actuator2'.",
        ),
    ],
)
def test_strict_role_errors(j_roles: tuple[str, ...], a_roles: tuple[str, ...], message: str) -> None:
    urdf = pair_with_roles(j_roles, a_roles)
    with pytest.raises(TransmissionError) as err:
        load_transmissions(urdf)
    assert str(err.value).endswith(message)
    assert str(err.value).startswith("<string>:")
    if len(j_roles) >= 2 and len(a_roles) == 2:
        (info,) = load_transmissions(urdf, lenient=True)  # upstream ignores roles (and extra joints)
        assert info.transmission is not None
    else:
        (info,) = load_transmissions(urdf, lenient=True)
        assert info.transmission is None  # upstream's .at() out of range -> null


def test_strict_same_joint_for_two_roles() -> None:
    urdf = pair_with_roles(("joint1", "joint2")).replace(
        'name="joint2" role="joint2"', 'name="joint1" role="joint2"'
    )
    with pytest.raises(
        TransmissionError,
        match="Failed to construct transmission 't': joint_names must be a sequence of 2 distinct names",
    ):
        load_transmissions(urdf)


def test_simple_strict_roles() -> None:
    body = '<joint name="joint1" role="joint2"/>'
    urdf = robot(
        f"""<ros2_control name="Hw" type="system"><joint name="joint1"/>
        <transmission name="s"><plugin>transmission_interface/SimpleTransmission</plugin>{body}</transmission>
        </ros2_control>"""
    )
    with pytest.raises(
        TransmissionError, match="unknown joint role 'joint2' for joint 'joint1'; expected 'joint1'"
    ):
        load_transmissions(urdf)
    # System hardware: a simple transmission may declare no actuator at all.
    (info,) = load_transmissions(urdf.replace('role="joint2"', 'role="joint1"'))
    assert info.actuators == ()


@pytest.mark.parametrize("lenient", [False, True])
def test_actuator_hardware_auto_actuator(lenient: bool) -> None:
    urdf = simple_urdf("t", "joint1", "").replace(
        '<joint name="joint1" role="joint1">',
        '<actuator name="motor" role="actuator1"/><joint name="joint1" role="joint1">',
    )
    (info,) = load_transmissions(urdf, lenient=lenient)
    # Upstream appends 'actuator1' even when an actuator is declared; strict mode does not.
    assert info.actuator_names == (("motor", "actuator1") if lenient else ("motor",))


# --- Parser rules shared by both modes (component_parser.cpp) -----------------------------------------------


def one_transmission(
    inner: str,
    component_joints: str = '<joint name="joint1"/><joint name="joint2"/>',
    hw_type: str = "system",
) -> str:
    return robot(f'<ros2_control name="Hw" type="{hw_type}">{component_joints}\n{inner}\n</ros2_control>')


SIMPLE_PLUGIN_TAG = "<plugin>transmission_interface/SimpleTransmission</plugin>"
VALID_PLUGINS = (
    "valid plugins are transmission_interface/SimpleTransmission, "
    "transmission_interface/DifferentialTransmission, transmission_interface/FourBarLinkageTransmission."
)


def simple_t(body: str, plugin_tag: str = SIMPLE_PLUGIN_TAG) -> str:
    return f'<transmission name="t">{plugin_tag}{body}</transmission>'


@pytest.mark.parametrize("lenient", [False, True])
@pytest.mark.parametrize(
    ("inner", "message"),
    [
        (f"<transmission>{SIMPLE_PLUGIN_TAG}</transmission>", "no attribute 'name' in 'transmission' tag"),
        (
            simple_t('<joint name="joint1" role="joint1"/>', plugin_tag=""),
            "Missing <plugin> tag of <transmission> element for 't' in your URDF.",
        ),
        (simple_t('<joint name="joint1"/>'), "no attribute 'role' in 'joint' tag with name 'joint1'"),
        (simple_t('<joint role="joint1"/>'), "no attribute 'name' in 'joint' tag"),
        (simple_t('<actuator name="m"/>'), "no attribute 'role' in 'actuator' tag with name 'm'"),
        (simple_t("<param>1</param>"), "no parameter name attribute set in param tag for 't'"),
        (
            simple_t('<joint name="joint1" role="joint1" read_only="yes"/>'),
            "transmission 't': attribute 'read_only' of joint 'joint1' is 'yes'; expected 'true' or 'false'.",
        ),
        (
            simple_t('<joint name="joint31415" role="joint1"/>'),
            "Error while parsing 'Hw'. Transmission 't' declared joint 'joint31415' is not available in "
            "component 'Hw'.",
        ),
        (
            simple_t(
                '<joint name="joint1" role="joint1"/>',
                plugin_tag="<plugin>transmission_interface/RotationToLinerTansmission</plugin>",
            ),
            "transmission 't': unknown plugin 'transmission_interface/RotationToLinerTansmission'; "
            + VALID_PLUGINS,
        ),
        (
            simple_t('<joint name="joint1" role="joint1"/>', plugin_tag="<plugin>  </plugin>"),
            "unknown plugin ''; " + VALID_PLUGINS,
        ),
    ],
)
def test_parser_errors(inner: str, message: str, lenient: bool) -> None:
    with pytest.raises(TransmissionError) as err:
        load_transmissions(one_transmission(inner), lenient=lenient)
    assert str(err.value).endswith(message)


@pytest.mark.parametrize("lenient", [False, True])
def test_actuator_hardware_needs_exactly_one_joint(lenient: bool) -> None:
    inner = (
        '<transmission name="t"><plugin>transmission_interface/DifferentialTransmission</plugin>'
        '<joint name="joint1" role="joint1"/><joint name="joint2" role="joint2"/></transmission>'
    )
    with pytest.raises(TransmissionError) as err:
        load_transmissions(one_transmission(inner, hw_type="actuator"), lenient=lenient)
    assert str(err.value).endswith(
        "Error while parsing 'Hw'. There should be exactly one joint defined in this component but found 2."
    )


@pytest.mark.parametrize("lenient", [False, True])
def test_read_only_and_params(lenient: bool) -> None:
    # Like test_component_parser's multi-joint transmission and actuator-only assets.
    inner = """<transmission name="t">
      <plugin>transmission_interface/DifferentialTransmission</plugin>
      <actuator name="joint1_motor" role="actuator1" read_only="TRUE"/>
      <actuator name="joint2_motor" role="actuator2"/>
      <joint name="joint1" role="joint1">
        <mechanical_reduction>10</mechanical_reduction><offset>0.5</offset>
      </joint>
      <joint name="joint2" role="joint2" read_only="false">
        <mechanical_reduction>50</mechanical_reduction>
      </joint>
      <param name="additional_special_parameter"> 1337 </param>
    </transmission>"""
    (info,) = load_transmissions(one_transmission(inner), lenient=lenient)
    assert [a.read_only for a in info.actuators] == [True, False]
    assert [j.read_only for j in info.joints] == [False, False]
    assert [j.offset for j in info.joints] == [0.5, 0.0]
    assert info.parameters == {"additional_special_parameter": "1337"}


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ('<ros2_control type="system"/>', "no attribute 'name' in 'ros2_control' tag"),
        ('<ros2_control name="Hw"/>', "no attribute 'type' in 'ros2_control' tag with name 'Hw'"),
        (
            '<ros2_control name="Hw" type="system"><joint><state_interface/></joint></ros2_control>',
            "no attribute 'name' in 'joint' tag",
        ),
        (
            '<ros2_control name="Hw" type="system"><joint name="j"><state_interface/></joint></ros2_control>',
            "no attribute 'name' in 'state_interface' tag",
        ),
    ],
)
def test_component_errors(block: str, message: str) -> None:
    urdf = robot(block)
    with pytest.raises(TransmissionError) as err:
        load_transmissions(urdf)
    assert str(err.value) == f"<string>:{line_of(urdf, '<ros2_control')}: {message}"


def test_only_direct_children_of_ros2_control_are_read() -> None:
    urdf = robot(
        '<ros2_control name="Hw" type="system">'
        '<joint name="joint1"><transmission name="nested"/></joint>'
        "</ros2_control>"
        '<transmission name="ros1"><type>x</type></transmission>'
    )
    assert load_transmissions(urdf) == []
    assert load_transmissions(robot("")) == []


# --- Numbers ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("50", 50.0),
        ("  -2.5e1\n", -25.0),
        ("+3", 3.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("325.949", 325.949),
        ("fifty", None),
        ("", None),
        ("1_0", None),
        ("0x10", None),
        ("inf", None),
        ("nan", None),
        ("1e999", None),
        ("++1", None),
        ("+-1", None),
        ("1,5", None),
        ("1.5 m", None),
        ("١٢", None),  # Arabic-Indic digits: float() would accept them, stod does not
    ],
)
def test_stod(text: str, value: float | None) -> None:
    assert _stod(text) == value


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "<mechanical_reduction></mechanical_reduction>",
            "<mechanical_reduction> of joint 'joint1' is not a finite number: ''.",
        ),
        (
            "<mechanical_reduction>1e999</mechanical_reduction>",
            "<mechanical_reduction> of joint 'joint1' is not a finite number: '1e999'.",
        ),
        ("<offset>inf</offset>", "<offset> of joint 'joint1' is not a finite number: 'inf'."),
        ("<offset>1</offset><offset>2</offset>", "joint 'joint1' has more than one <offset> element."),
        (
            "<mechanical_reduction>-0.0</mechanical_reduction>",
            "<mechanical_reduction> of joint 'joint1' is zero ('-0.0'); a reduction ratio cannot be zero.",
        ),
    ],
)
def test_strict_number_errors(body: str, message: str) -> None:
    with pytest.raises(TransmissionError) as err:
        load_transmissions(simple_urdf("t", "joint1", body))
    assert str(err.value).endswith("transmission 't': " + message)


@pytest.mark.parametrize(
    ("body", "reduction", "offset"),
    [
        (
            "<mechanical_reduction></mechanical_reduction><mechanical_reduction>7</mechanical_reduction>",
            7.0,
            0.0,
        ),
        ("<mechanical_reduction>1e999</mechanical_reduction>", 1.0, 0.0),
        ("<offset>inf</offset><offset>2</offset>", 1.0, 0.0),
        ("<offset>1</offset><offset>2</offset>", 1.0, 1.0),
        ("<mechanical_reduction> +8 </mechanical_reduction>", 8.0, 0.0),
    ],
)
def test_lenient_numbers_follow_upstream(body: str, reduction: float, offset: float) -> None:
    (info,) = load_transmissions(simple_urdf("t", "joint1", body), lenient=True)
    assert (info.joints[0].mechanical_reduction, info.joints[0].offset) == (reduction, offset)


# --- Documents ----------------------------------------------------------------------------------------------


def test_invalid_xml_reports_the_line() -> None:
    urdf = robot('<ros2_control name="Hw" type="system">\n<joint name="j">\n</ros2_control>')
    with pytest.raises(TransmissionError) as err:
        load_transmissions(urdf)
    text = str(err.value)
    # The stripped leading newline is accounted for: the line is that of the bad closing tag.
    assert text.startswith(f"<string>:{line_of(urdf, '</ros2_control>')}:")
    assert "invalid XML: Opening and ending tag mismatch" in text


def test_root_must_be_robot() -> None:
    with pytest.raises(TransmissionError) as err:
        load_transmissions("<ros2_control/>")
    assert str(err.value) == "<string>:1: the robot tag is not root element in URDF"


def test_missing_file_and_bad_types(tmp_path: Path) -> None:
    missing = tmp_path / "nope.urdf"
    with pytest.raises(
        TransmissionError, match=r"Cannot read URDF file '.*nope\.urdf': No such file or directory"
    ):
        load_transmissions(missing)
    with pytest.raises(TransmissionError, match=r"Cannot read URDF file 'robot\.urdf'"):
        load_transmissions("robot.urdf")
    with pytest.raises(TransmissionError, match="urdf must be a file path or an XML string, got int"):
        load_transmissions(3)  # type: ignore[arg-type]
    with pytest.raises(TransmissionError, match="invalid XML"):
        load_transmissions("")


def test_entities_are_not_expanded() -> None:
    urdf = f"""<?xml version="1.0"?>
<!DOCTYPE robot [<!ENTITY x "5">]>
<robot name="r">
  <ros2_control name="Hw" type="system">
    <joint name="j"/>
    <transmission name="t">
      {SIMPLE_PLUGIN_TAG}
      <joint name="j" role="joint1"><mechanical_reduction>&x;</mechanical_reduction></joint>
    </transmission>
  </ros2_control>
</robot>
"""
    with pytest.raises(TransmissionError, match="is not a finite number"):
        load_transmissions(urdf)


def test_loaded_transmissions_are_frozen() -> None:
    (info,) = load_transmissions(FOUR_BAR_URDF)
    with pytest.raises(AttributeError):
        info.name = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        info.joints[0].offset = 1.0  # type: ignore[misc]
