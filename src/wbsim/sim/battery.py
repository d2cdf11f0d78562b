"""Robot batteries as Webots computes them (``WbRobot::postPhysicsStep``, ``WbMotor::energyConsumption``).

A Robot whose ``battery`` field has values holds ``[current energy (J), maximum energy (J), recharge speed
(W)]``. After each basic step, while the current energy is above 0, it loses ``consumption * dt`` where the
consumption (W) is the robot's ``cpuConsumption`` plus, for every motor of the robot, ``|force or torque
output| * consumptionFactor`` (the output is the motor's force feedback, read every step whether or not
the controller enabled it); the energy stops at 0 ("Battery is empty."). The battery sensor
(``Robot.batterySensorEnable``) follows Webots' sensor rules: its first value comes one period after
``enable``, then once per period (rounded up to basic steps); before any sample it reads NaN.

Not simulated: recharging at a Charger (Charger nodes are not simulated), and a robot whose battery is empty
keeps running its devices (Webots switches them off).
"""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING

import numpy as np

from wbsim.sim.phases import Phase

if TYPE_CHECKING:
    from wbsim.sim.robot import RobotRuntime
    from wbsim.sim.simulation import Simulation

__all__ = ["Batteries"]


class Batteries:
    """The batteries of every robot that has one in a simulation (vectorised over robots and motors).

    Args:
        sim: the simulation.
        robots: the robots with a non-empty ``battery`` field.

    Attributes:
        energy: current energy of each battery robot (J), (robots,).
        value: the battery sensor's last sample per robot (J; NaN before the first), (robots,).
        period_ms: the battery sensor's requested period per robot (0 = disabled), (robots,).
    """

    def __init__(self, sim: Simulation, robots: list[RobotRuntime]) -> None:
        self._sim = weakref.ref(sim)
        self.robots = robots
        self.row = {id(robot): i for i, robot in enumerate(robots)}
        self._initial = np.array([float(r.node["battery"][0]) for r in robots])  # type: ignore[index]
        self._cpu = np.array([float(r.node["cpuConsumption"]) for r in robots])
        self.energy = self._initial.copy()
        self.value = np.full(len(robots), np.nan)
        self.period_ms = np.zeros(len(robots), dtype=np.int64)
        self._every = np.zeros(len(robots), dtype=np.int64)
        self._due = np.full(len(robots), np.iinfo(np.int64).max)
        motors = sim.banks.get("motor")
        rows: list[int] = []
        owner: list[int] = []
        for i, robot in enumerate(robots):
            for device in robot.devices:
                if device.kind == "motor":
                    rows.append(device.index)  # type: ignore[attr-defined]
                    owner.append(i)
        self._owner = np.array(owner, dtype=np.int64)
        if rows:
            assert motors is not None
            rows_array = np.array(rows, dtype=np.int64)
            self._dynamic = motors.dynamic[rows_array]  # type: ignore[attr-defined]
            self._ref_dof = motors.ref_dof[rows_array][self._dynamic]  # type: ignore[attr-defined]
            self._owner = self._owner[self._dynamic]
            self._factor = np.array([float(motors.bindings[r].node["consumptionFactor"]) for r in rows_array[
                self._dynamic]])
        else:
            self._ref_dof = np.zeros(0, dtype=np.int64)
            self._factor = np.zeros(0)
        self._empty_reported = np.zeros(len(robots), dtype=bool)

    @classmethod
    def attach(cls, sim: Simulation) -> Batteries | None:
        """The batteries of ``sim``'s robots, hooked after the device sampling; None if no robot has one."""
        robots = [r for r in sim.robots if len(r.node["battery"]) > 0]  # type: ignore[arg-type]
        if not robots:
            return None
        batteries = cls(sim, robots)
        sim.add_hook(Phase.DEVICES_SAMPLE, batteries.after_step)
        return batteries

    @classmethod
    def rebuilt(cls, sim: Simulation, old: Batteries | None) -> Batteries | None:
        """The batteries after the world was recompiled at run time (robots imported or removed): the robots
        that stay keep their energy and battery sensor; the hook keeps its place among the phase's hooks."""
        robots = [r for r in sim.robots if len(r.node["battery"]) > 0]  # type: ignore[arg-type]
        hooks = sim._hooks[Phase.DEVICES_SAMPLE]
        place = hooks.index(old.after_step) if old is not None else len(hooks)
        if old is not None:
            del hooks[place]
        if not robots:
            return None
        batteries = cls(sim, robots)
        hooks.insert(place, batteries.after_step)
        if old is not None:
            pairs = [(old.row[id(r)], i) for i, r in enumerate(robots) if id(r) in old.row and old.robots[old.row[id(r)]] is r]
            if pairs:
                o, n = (np.array(x, dtype=np.int64) for x in zip(*pairs))
                for name in ("energy", "value", "period_ms", "_every", "_due", "_empty_reported"):
                    getattr(batteries, name)[n] = getattr(old, name)[o]
        return batteries

    def after_step(self, sim: Simulation) -> None:
        """Drain the batteries for the step just done, then sample the due battery sensors."""
        live = self.energy > 0.0
        if live.any():
            consumption = self._cpu.copy()
            if self._ref_dof.size:
                output = np.abs(sim.data.qfrc_constraint[self._ref_dof]) * self._factor
                consumption += np.bincount(self._owner, weights=output, minlength=len(self.robots))
            dt = sim.basic_time_step_ms * 0.001
            self.energy[live] = np.maximum(self.energy[live] - consumption[live] * dt, 0.0)
            for i in np.flatnonzero(live & (self.energy == 0.0) & ~self._empty_reported):
                self._empty_reported[i] = True
                sim.messages.info(f'Robot "{self.robots[i].name}": Battery is empty.')
        due = self._due <= sim.step_count
        if due.any():
            self.value[due] = self.energy[due]
            self._due[due] += self._every[due]

    def enable(self, robot: RobotRuntime, period_ms: int) -> None:
        """Enable the battery sensor of ``robot`` (0 disables); the first value comes one period later."""
        i = self.row[id(robot)]
        sim = self._sim()
        assert sim is not None
        self.period_ms[i] = period_ms
        every = max(1, math.ceil(period_ms / sim.basic_time_step_ms - 1e-9)) if period_ms > 0 else 0
        self._every[i] = every
        self._due[i] = sim.step_count + every if every else np.iinfo(np.int64).max

    def reset(self, keep_sensors: bool) -> None:
        """Back to the world file's energies; sensors disabled (``Simulation.reset``) or restarted (world reset)."""
        self.energy[:] = self._initial
        self._empty_reported[:] = False
        if keep_sensors:
            on = self._every > 0
            self._due[on] = self._every[on]
        else:
            self.value[:] = np.nan
            self.period_ms[:] = 0
            self._every[:] = 0
            self._due[:] = np.iinfo(np.int64).max
