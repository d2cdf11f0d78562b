"""wbsim's ``controller`` module against the member list of Webots' Python API (``webots_members.txt``).

Every member Webots' ``controller`` package has (exported names, and per class its methods, properties,
constants and instance attributes) must exist in wbsim, with Webots' value for the node-type constants and
the other integer constants Webots writes literally. The members wbsim does not have yet are listed in
``KNOWN_MISSING`` (``missing.txt``): a listed member must still be missing (remove it from the list when it
is added), so the coverage printed in the README can only go up; the README's figure is checked too.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

import controller

HERE = Path(__file__).parent
README = HERE.parents[1] / "README.md"


def _members() -> list[tuple[str, str, str, int | None]]:
    rows = []
    for line in (HERE / "webots_members.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        owner, name, kind, *value = line.split()
        rows.append((owner, name, kind, int(value[0]) if value else None))
    return rows


MEMBERS = _members()
KNOWN_MISSING = frozenset(line.strip() for line in (HERE / "missing.txt").read_text().splitlines()
                          if line.strip() and not line.startswith("#"))

WORLD = """
WorldInfo { basicTimeStep 16 }
Robot { name "r" controller "<extern>" supervisor TRUE }
"""


@pytest.fixture(scope="module")
def instances(tmp_path_factory):
    """A Supervisor instance (Robot and Supervisor members may be set per instance, as in Webots)."""
    from wbsim.sim.simulation import load_world

    worlds = tmp_path_factory.mktemp("members") / "worlds"
    worlds.mkdir()
    path = worlds / "members.wbt"
    path.write_text("#VRML_SIM R2023b utf8\n" + WORLD, encoding="utf-8")
    sim = load_world(path)
    yield {"Robot": sim.robot("r"), "Supervisor": sim.robot("r")}
    sim.close()


def _has(owner: str, name: str, instances: dict[str, object]) -> tuple[bool, object]:
    if owner == "controller":
        return hasattr(controller, name), None
    cls = getattr(controller, owner, None)
    if cls is None:
        return False, None
    target = instances.get(owner, cls)
    if hasattr(target, name):
        return True, getattr(target, name)
    if dataclasses.is_dataclass(cls) and name in {f.name for f in dataclasses.fields(cls)}:
        return True, None
    return False, None


def present(owner: str, name: str, value: int | None, instances: dict[str, object]) -> bool:
    """True if wbsim has Webots' member ``owner.name`` (with Webots' value for literal integer constants)."""
    found, actual = _has(owner, name, instances)
    return found and (value is None or actual == value)


@pytest.mark.parametrize(("owner", "name", "kind", "value"), MEMBERS, ids=[f"{o}.{n}" for o, n, _, _ in MEMBERS])
def test_member(owner, name, kind, value, instances):
    if f"{owner} {name}" in KNOWN_MISSING:
        assert not present(owner, name, value, instances), (
            f"{owner}.{name} exists now: remove it from tests/webots_api/missing.txt and update the README figure")
    else:
        assert present(owner, name, value, instances), f"wbsim's controller module lacks Webots' {owner}.{name} ({kind})"


def test_known_missing_are_webots_members():
    assert KNOWN_MISSING <= {f"{o} {n}" for o, n, _, _ in MEMBERS}


def test_readme_prints_the_coverage():
    total = len(MEMBERS)
    have = total - len(KNOWN_MISSING)
    match = re.search(r"Webots Python API coverage: (\d+) / (\d+) members", README.read_text())
    assert match is not None, "README.md must print the coverage"
    assert (int(match[1]), int(match[2])) == (have, total)


def test_webots_exports_import_from_controller():
    exported = [name for owner, name, _, _ in MEMBERS if owner == "controller" and f"controller {name}" not in KNOWN_MISSING]
    namespace: dict[str, object] = {}
    exec(f"from controller import {', '.join(exported)}", namespace)  # Webots' template line, all names at once
    assert all(namespace[name] is getattr(controller, name) for name in exported)


def test_node_type_constants_are_webots_numbers():
    # A few spot values of Webots' WbNodeType enum, independent of the data file.
    assert (controller.Node.NO_NODE, controller.Node.ROBOT, controller.Node.POSITION_SENSOR, controller.Node.RADAR,
            controller.Node.RADIO) == (0, 34, 52, 54, 87)
