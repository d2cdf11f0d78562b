"""Recording a simulation for later viewing or analysis, and reading recordings back.

A recording holds, for every recorded frame, the simulated time, the world pose of every Solid and the
visual state of the devices whose kind records one (LEDs: value, colour, on). Start one with
:meth:`Simulation.start_recording <wbsim.sim.simulation.Simulation.start_recording>`, a supervisor's
``animationStartRecording`` or ``wbsim run --record FILE``; read it with :func:`load`.

**When frames are taken** (Webots' ``WbAnimationRecorder``): one frame of the state when recording starts,
then one at the end of the first basic step, then one each time at least ``1000 / WorldInfo.FPS`` ms of
simulated time have passed since the last frame, i.e. every ``ceil((1000 / FPS) / basicTimeStep)`` basic
steps (60 FPS and 16 ms steps: every 2 steps). Steps are counted as they run, so a world reset
(``simulationReset``) keeps the cadence while the recorded time goes back to the reset step's time.

**File** (``.npz``, a zip of ``.npy`` arrays, readable with :func:`numpy.load` without pickles; written when
the recording stops, with fixed zip timestamps so that the same run gives the same bytes):

============================= ========================= ==================================================
key                           dtype, shape              content
============================= ========================= ==================================================
``format``, ``version``       str, int                  ``"wbsim-recording"``, 1
``world``                     str                       the world file
``basic_time_step``, ``fps``  float                     ``WorldInfo.basicTimeStep`` (ms), ``WorldInfo.FPS``
``frame_steps``               int                       basic steps between frames after the first step
``time``                      float64 (F,)              simulated time of each frame (s)
``step``                      int64 (F,)                basic steps done when the frame was taken
``body_paths``                str (B,)                  scene-tree path of each Solid (scene order)
``body_defs``                 str (B,)                  its DEF name ("" if none)
``body_position``             float64 (F, B, 3)         world position of each Solid's frame (m)
``body_quaternion``           float64 (F, B, 4)         world orientation, unit quaternion (w, x, y, z)
``device/<kind>/paths``       str (N,)                  the recorded devices of a kind
``device/<kind>/defs``        str (N,)                  their DEF names
``device/<kind>/<name>``      (F, N, ...)               a quantity the kind records (LED: ``value``,
                                                        ``color`` RGB in [0, 1], ``on``)
============================= ========================= ==================================================

A device kind records a visual state by overriding ``DeviceBank.recorded_nodes`` and
``DeviceBank.recorded_state``; the recorder knows no kind.

**Solids imported or removed while recording** (supervisor imports, which recompile the world): a Solid or
device is one column for the whole recording, by its scene-tree path (a robot removed and imported again
under the same path keeps its column); frames taken while it was not in the world hold NaN (integer
quantities -1, booleans False). Columns are in order of first appearance.
"""

from __future__ import annotations

import io
import math
import os
import weakref
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from wbsim.errors import RecordingError

if TYPE_CHECKING:
    from wbsim.devices.kind import DeviceBank
    from wbsim.sim.simulation import Simulation

__all__ = ["FORMAT", "VERSION", "Recording", "DeviceTrack", "Recorder", "load", "frame_steps"]

FORMAT = "wbsim-recording"
"""The value of the ``format`` entry of every recording."""

VERSION = 1
"""The version of the file layout described in this module."""

_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed entry timestamps: the same run writes the same bytes


def frame_steps(basic_time_step_ms: float, fps: float) -> int:
    """Basic steps between two frames: Webots' ``basicTimeStep * ceil((1000 / FPS) / basicTimeStep)``."""
    return max(1, math.ceil((1000.0 / fps) / basic_time_step_ms - 1e-9))


@dataclass(frozen=True)
class DeviceTrack:
    """The recorded visual state of the devices of one kind.

    Attributes:
        paths: scene-tree path of each device, (N,).
        defs: DEF name of each device ("" if none), (N,).
        values: each recorded quantity, (F, N, ...) (LEDs: ``value`` int64, ``color`` (F, N, 3), ``on`` bool).
    """

    paths: np.ndarray
    defs: np.ndarray
    values: Mapping[str, np.ndarray]

    def index(self, name: str) -> int:
        """The column of the device with DEF name or scene-tree path ``name``.

        Raises:
            RecordingError: no recorded device has that name.
        """
        return _find(name, self.defs, self.paths, "device")


@dataclass(frozen=True)
class Recording:
    """A recording read back by :func:`load` (F frames, B Solids).

    Attributes:
        world: the world file that was recorded.
        basic_time_step_ms: ``WorldInfo.basicTimeStep`` (ms).
        fps: ``WorldInfo.FPS``.
        frame_steps: basic steps between frames after the first step.
        time: simulated time of each frame (s), (F,).
        step: basic steps done at each frame, (F,).
        body_paths: scene-tree path of each Solid, (B,).
        body_defs: DEF name of each Solid ("" if none), (B,).
        positions: world positions (m), (F, B, 3).
        quaternions: world orientations as unit quaternions (w, x, y, z), (F, B, 4).
        devices: the recorded devices by kind name (e.g. ``"led"``).
    """

    world: str
    basic_time_step_ms: float
    fps: float
    frame_steps: int
    time: np.ndarray
    step: np.ndarray
    body_paths: np.ndarray
    body_defs: np.ndarray
    positions: np.ndarray
    quaternions: np.ndarray
    devices: Mapping[str, DeviceTrack] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.time)

    def body(self, name: str) -> int:
        """The column of the Solid with DEF name or scene-tree path ``name``.

        Raises:
            RecordingError: no recorded Solid has that name.
        """
        return _find(name, self.body_defs, self.body_paths, "Solid")


def _find(name: str, defs: np.ndarray, paths: np.ndarray, what: str) -> int:
    for names in (defs, paths):
        hits = np.flatnonzero(names == name)
        if len(hits):
            return int(hits[0])
    raise RecordingError(f"No recorded {what} has the DEF name or path {name!r}.")


def load(path: str | os.PathLike[str]) -> Recording:
    """Read a recording written by wbsim.

    Raises:
        RecordingError: the file cannot be read or is not a wbsim recording (of a version this wbsim reads).
    """
    try:
        with np.load(path, allow_pickle=False) as archive:
            entries = {name: archive[name] for name in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile) as error:
        raise RecordingError(f"Cannot read the recording {os.fspath(path)!r}: {error}") from None
    if entries.get("format") is None or str(entries["format"]) != FORMAT:
        raise RecordingError(f"{os.fspath(path)!r} is not a wbsim recording (no format entry {FORMAT!r}).")
    if "version" not in entries or int(entries["version"]) != VERSION:
        raise RecordingError(f"{os.fspath(path)!r} is a recording of another version; this wbsim reads version "
                             f"{VERSION}.")
    kinds: dict[str, dict[str, np.ndarray]] = {}
    for key, value in entries.items():
        if key.startswith("device/"):
            _, kind, name = key.split("/", 2)
            kinds.setdefault(kind, {})[name] = value
    devices = {kind: DeviceTrack(paths=items.pop("paths"), defs=items.pop("defs"), values=items)
               for kind, items in kinds.items()}
    return Recording(
        world=str(entries["world"]), basic_time_step_ms=float(entries["basic_time_step"]),
        fps=float(entries["fps"]), frame_steps=int(entries["frame_steps"]), time=entries["time"],
        step=entries["step"], body_paths=entries["body_paths"], body_defs=entries["body_defs"],
        positions=entries["body_position"], quaternions=entries["body_quaternion"], devices=devices)


def _quat_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton products ``a * b`` of quaternions (w, x, y, z), (k, 4) each."""
    aw, ax, ay, az = a.T
    bw, bx, by, bz = b.T
    return np.stack([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw], axis=1)


def _strings(values: list[str]) -> np.ndarray:
    """A unicode array (never an object array: recordings load without pickles)."""
    return np.array(values, dtype=str) if values else np.zeros(0, dtype="<U1")


class _Track:
    """Frames of one quantity in a preallocated array that doubles when full (no allocation per frame)."""

    __slots__ = ("data", "count")

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype) -> None:
        self.data = np.zeros((16, *shape), dtype=dtype)
        self.count = 0

    def _reserve(self) -> int:
        if self.count == len(self.data):
            grown = np.zeros((2 * len(self.data), *self.data.shape[1:]), dtype=self.data.dtype)
            grown[: self.count] = self.data
            self.data = grown
        self.count += 1
        return self.count - 1

    def next_row(self) -> np.ndarray:
        """The row of the next frame, to be filled in place (tracks of arrays)."""
        row = self._reserve()  # first: it may replace the array
        return self.data[row]

    def push(self, value: object) -> None:
        """Append the next frame's value (tracks of scalars)."""
        row = self._reserve()
        self.data[row] = value

    def frames(self) -> np.ndarray:
        """The frames so far, (F, ...)."""
        return self.data[: self.count]


_ABSENT = {"f": np.nan, "c": np.nan, "i": -1, "u": 0, "b": False}
"""What a frame holds for a Solid or device that was not in the world then, by numpy dtype kind."""


class _Segment:
    """The frames taken while the world kept the same Solids and devices (a run-time import or removal, which
    recompiles the world, starts a new segment): their ids, resolved once, and their tracks."""

    def __init__(self, sim: Simulation, first_frame: int) -> None:
        self.first_frame = first_frame
        solids = sim.bindings.solids
        self.paths = [b.node.path for b in solids]
        self.defs = [b.node.def_name or "" for b in solids]
        # For a frame-only Solid (no body of its own: a site on its enclosing body, whose id it holds) the frame
        # keeps the enclosing body's pose, the site's position and the site's pose in its body; poses() composes.
        self.bodies = np.array([b.body_id for b in solids], dtype=np.int64)
        self.site_rows = np.array([i for i, b in enumerate(solids) if b.site_id >= 0], dtype=np.int64)
        self.sites = np.array([solids[i].site_id for i in self.site_rows.tolist()], dtype=np.int64)
        count, sites = len(solids), len(self.sites)
        self.positions = _Track((count, 3), np.dtype(np.float64))
        self.quaternions = _Track((count, 4), np.dtype(np.float64))
        self.site_positions = _Track((sites, 3), np.dtype(np.float64))
        self.site_quaternions = _Track((sites, 4), np.dtype(np.float64))
        self.banks: list[tuple[str, DeviceBank, list[str], list[str]]] = []
        for kind, bank in sim.banks.items():
            nodes = bank.recorded_nodes() if bank.n else ()
            if nodes:
                self.banks.append((kind, bank, [n.path for n in nodes], [n.def_name or "" for n in nodes]))
        self.device_tracks: dict[tuple[str, str], _Track] = {}

    def take(self, sim: Simulation) -> None:
        """Append the poses and device states of one frame (MuJoCo's poses already refreshed)."""
        data = sim.data
        np.take(data.xpos, self.bodies, axis=0, out=self.positions.next_row())
        np.take(data.xquat, self.bodies, axis=0, out=self.quaternions.next_row())
        if len(self.sites):
            np.take(data.site_xpos, self.sites, axis=0, out=self.site_positions.next_row())
            np.take(sim.model.site_quat, self.sites, axis=0, out=self.site_quaternions.next_row())
        for kind, bank, _, _ in self.banks:
            for name, values in bank.recorded_state().items():
                track = self.device_tracks.get((kind, name))
                if track is None:
                    track = self.device_tracks[(kind, name)] = _Track(values.shape, values.dtype)
                track.next_row()[...] = values

    def poses(self) -> tuple[np.ndarray, np.ndarray]:
        """World positions (F, B, 3) and quaternions (F, B, 4) of the segment's Solids, frame-only ones composed."""
        positions, quaternions = self.positions.frames().copy(), self.quaternions.frames().copy()
        if len(self.sites):
            frames, sites = len(positions), len(self.sites)
            positions[:, self.site_rows] = self.site_positions.frames()
            quaternions[:, self.site_rows] = _quat_product(
                quaternions[:, self.site_rows].reshape(-1, 4),
                self.site_quaternions.frames().reshape(-1, 4)).reshape(frames, sites, 4)
        return positions, quaternions


def _columns(keys: list[tuple[str, str]]) -> dict[str, tuple[int, str]]:
    """Column of each path in first-appearance order, with the DEF name it first had."""
    columns: dict[str, tuple[int, str]] = {}
    for path, def_name in keys:
        columns.setdefault(path, (len(columns), def_name))
    return columns


class Recorder:
    """Takes frames of a running simulation and writes them to a recording file when stopped.

    Made by :meth:`Simulation.start_recording`; while it records, one ``DEVICES_SAMPLE`` hook takes the frames
    (no hook, so no cost, when nothing records). Names, body ids and the recorded device kinds are resolved
    here, once per segment (:meth:`rebind` after a run-time import or removal); a frame is a few gathers into
    preallocated arrays. In the file, a Solid or device is one column, by scene-tree path, for the whole
    recording; frames taken while it was not in the world hold NaN (integers -1, booleans False).

    Args:
        sim: the simulation.
        path: the file to write (``.npz``); it is created now, so that a bad path fails at once.

    Raises:
        RecordingError: the file cannot be created.
    """

    def __init__(self, sim: Simulation, path: str | os.PathLike[str]) -> None:
        self.path = Path(os.path.abspath(path))  # written at the stop, whatever the working directory is then
        try:
            self.path.open("wb").close()
        except OSError as error:
            raise RecordingError(f"Cannot create the recording file {os.fspath(path)!r}: {error.strerror}.") from None
        self._sim_ref = weakref.ref(sim)
        info = sim.world.world_info
        self._world = str(sim.world.file)
        self._basic_ms = float(sim.basic_time_step_ms)
        self.fps = float(info["FPS"])  # type: ignore[arg-type]
        self.frame_steps = frame_steps(sim.basic_time_step_ms, self.fps)
        self._time = _Track((), np.dtype(np.float64))
        self._step = _Track((), np.dtype(np.int64))
        self._segments = [_Segment(sim, 0)]
        self._since_frame = -1  # steps since the last frame; -1: the next step takes a frame (the first after start)
        self.recording = False

    @property
    def frames(self) -> int:
        """The number of frames taken so far."""
        return self._time.count

    def start(self) -> None:
        """Take the frame of the current state and record every step from now on."""
        from wbsim.sim.phases import Phase

        sim = self._sim()
        self._take(sim)
        sim.add_hook(Phase.DEVICES_SAMPLE, self._after_step)
        self.recording = True

    def rebind(self, sim: Simulation) -> None:
        """The world was recompiled (Solids imported or removed at run time): the next frames follow its Solids
        and devices."""
        self._segments.append(_Segment(sim, self._time.count))

    def _sim(self) -> Simulation:
        sim = self._sim_ref()
        if sim is None:
            raise RecordingError("The simulation of this recording no longer exists.")
        return sim

    def _after_step(self, sim: Simulation) -> None:
        since = self._since_frame + 1
        if self._since_frame < 0 or since >= self.frame_steps:
            self._take(sim)
            since = 0
        self._since_frame = since

    def _take(self, sim: Simulation) -> None:
        """Append one frame: time, Solid poses (after a step MuJoCo's poses lag one integration: refreshed),
        device states."""
        sim.supervision.refresh()
        self._segments[-1].take(sim)
        self._time.push(sim.time_s)
        self._step.push(sim.step_count)

    def _merged(self) -> dict[str, np.ndarray]:
        """The body and device entries of the file, every segment in its frames and columns."""
        frames = self._time.count
        segments = [s for s in self._segments if s.positions.count]
        columns = _columns([key for s in segments for key in zip(s.paths, s.defs)])
        positions = np.full((frames, len(columns), 3), np.nan)
        quaternions = np.full((frames, len(columns), 4), np.nan)
        kinds: dict[str, list[tuple[str, str]]] = {}
        for segment in segments:
            rows = slice(segment.first_frame, segment.first_frame + segment.positions.count)
            cols = np.array([columns[p][0] for p in segment.paths], dtype=np.int64)
            segment_positions, segment_quaternions = segment.poses()
            positions[rows, cols] = segment_positions
            quaternions[rows, cols] = segment_quaternions
            for kind, _, paths, defs in segment.banks:
                kinds.setdefault(kind, []).extend(zip(paths, defs))
        entries: dict[str, np.ndarray] = {
            "body_paths": _strings(list(columns)), "body_defs": _strings([d for _, d in columns.values()]),
            "body_position": positions, "body_quaternion": quaternions,
        }
        device_columns = {kind: _columns(keys) for kind, keys in kinds.items()}
        for kind, kind_columns in device_columns.items():
            entries[f"device/{kind}/paths"] = _strings(list(kind_columns))
            entries[f"device/{kind}/defs"] = _strings([d for _, d in kind_columns.values()])
        for segment in segments:
            rows = slice(segment.first_frame, segment.first_frame + segment.positions.count)
            paths_of = {kind: paths for kind, _, paths, _ in segment.banks}
            for (kind, name), track in segment.device_tracks.items():
                values = track.frames()
                key = f"device/{kind}/{name}"
                if key not in entries:
                    shape = (frames, len(device_columns[kind]), *values.shape[2:])
                    entries[key] = np.full(shape, _ABSENT.get(values.dtype.kind, 0), dtype=values.dtype)
                cols = np.array([device_columns[kind][p][0] for p in paths_of[kind]], dtype=np.int64)
                entries[key][rows, cols] = values
        return entries

    def stop(self) -> Path:
        """Stop recording and write the file; returns its path.

        Raises:
            RecordingError: the file cannot be written.
        """
        from wbsim.sim.phases import Phase

        sim = self._sim_ref()
        if self.recording and sim is not None:
            sim.remove_hook(Phase.DEVICES_SAMPLE, self._after_step)
        self.recording = False
        entries: dict[str, np.ndarray] = {
            "format": np.array(FORMAT), "version": np.array(VERSION), "world": np.array(self._world),
            "basic_time_step": np.array(self._basic_ms), "fps": np.array(self.fps),
            "frame_steps": np.array(self.frame_steps), "time": self._time.frames(), "step": self._step.frames(),
            **self._merged(),
        }
        try:
            _write_npz(self.path, entries)
        except OSError as error:
            raise RecordingError(f"Cannot write the recording file {os.fspath(self.path)!r}: {error.strerror}.") from None
        return self.path


def _write_npz(path: Path, entries: dict[str, np.ndarray]) -> None:
    """``numpy.savez_compressed`` with fixed entry timestamps (numpy stamps the current time)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, array in entries.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.asanyarray(array), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, buffer.getvalue())
