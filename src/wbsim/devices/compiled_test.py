"""numba's cache choices for wbsim's compiled loops: a cache file next to the module when possible, compilation in
memory (no failed import) when numba finds nowhere to store the code."""

from __future__ import annotations

import sys

import pytest

from wbsim.devices.compiled import cached_njit, motion_kernels, numba_installed

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
