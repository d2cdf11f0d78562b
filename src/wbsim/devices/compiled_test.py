"""numba's cache choices for wbsim's compiled loops: a cache file next to the module when possible, compilation in
memory (no failed import) when numba finds nowhere to store the code; the MjData views the loops read, copied."""

from __future__ import annotations

import copy
import pickle
import sys

import mujoco
import numpy as np
import pytest

from wbsim.devices.compiled import StateViews, cached_njit, motion_kernels, numba_installed

numba = pytest.importorskip("numba")


def test_numba_is_found_without_being_imported_and_kernels_import_it():
    assert numba_installed()
    kernels = motion_kernels()
    assert kernels.__name__ == "wbsim.devices.motion_kernel" and "numba" in sys.modules


def test_functions_in_a_source_file_get_a_disk_cache():
    kernels = motion_kernels()
    assert type(kernels.gyro_values._cache).__name__ == "FunctionCache"


def test_functions_numba_cannot_cache_compile_in_memory():
    # A function without a source file: numba has no place for its cache and refuses cache=True, as it does for a
    # module whose folder and user cache are both read-only.
    namespace: dict[str, object] = {}
    exec(compile("def twice(x):\n    return 2.0 * x\n", "<no file>", "exec"), namespace)
    with pytest.raises(RuntimeError, match="no locator available"):
        numba.njit(cache=True)(namespace["twice"])
    compiled = cached_njit(error_model="numpy", nogil=True)(namespace["twice"])
    assert compiled(1.5) == 3.0
    assert type(compiled._cache).__name__ == "NullCache"


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_state_views_copied_with_their_data_view_the_copied_data(how):
    # Copied as they were, the views would be arrays of their own with the copy's data beside them: StateViews.of
    # would keep them for that data, and the motion kernels would read poses that never move.
    model = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><body><freejoint/><geom size="0.1"/><site name="s" pos="0.1 0 0"/></body>'
        '</worldbody></mujoco>')
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    views = StateViews(data)
    pair = (views, data)
    twin, twin_data = copy.deepcopy(pair) if how == "deepcopy" else pickle.loads(pickle.dumps(pair))
    twin_data.qpos[:3] = [1.0, 2.0, 3.0]
    mujoco.mj_forward(model, twin_data)
    assert twin.data is twin_data and StateViews.of(twin, twin_data) is twin
    for name in ("site_xmat", "site_xpos", "cvel", "subtree_com"):
        assert np.shares_memory(getattr(twin, name), getattr(twin_data, name)), name
        assert not np.shares_memory(getattr(twin, name), getattr(data, name)), name
    np.testing.assert_array_equal(twin.site_xpos, [[1.1, 2.0, 3.0]])
    np.testing.assert_array_equal(views.site_xpos, [[0.1, 0.0, 0.0]])
