"""wbsim: Webots-format worlds on MuJoCo, headless, with Webots Python controllers.

Main entry points: :func:`load_world` returns a :class:`Simulation`; :mod:`wbsim.transmission` holds
the ros2_control-compatible transmissions; the ``controller`` module is the Webots controller API.
"""

from wbsim._version import __version__
from wbsim.batch import RunRecord, run_many
from wbsim.errors import (
    CompileError,
    ControllerError,
    PluginError,
    RecordingError,
    SimulationError,
    SourceLocation,
    TransmissionError,
    WbsimError,
    WorldError,
    WorldLoadError,
    WorldSchemaError,
    WorldSyntaxError,
)
from wbsim.sim.phases import PHASE_ORDER, Phase
from wbsim.sim.simulation import Simulation, SimulationOptions, WbsimWarning, load_world

__all__ = [
    "__version__",
    "load_world",
    "run_many",
    "RunRecord",
    "Simulation",
    "SimulationOptions",
    "Phase",
    "PHASE_ORDER",
    "WbsimWarning",
    "WbsimError",
    "WorldError",
    "WorldSyntaxError",
    "WorldSchemaError",
    "WorldLoadError",
    "CompileError",
    "ControllerError",
    "PluginError",
    "SimulationError",
    "RecordingError",
    "TransmissionError",
    "SourceLocation",
]
