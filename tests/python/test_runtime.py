"""The specification's three operations from Python (load, calibrate,
update), sessions, describe(), errors as exceptions, and the GIL released
while C++ works."""
import threading
import time

import numpy as np
import pytest

import tunekit
from tunekit import runtime


def test_version_and_describe():
    assert tunekit.__version__.count(".") == 2
    described = tunekit.describe()
    assert described.processor.vendor
    assert described.processor.logical_cores >= 1
    assert described.execution.effective_threads >= 1
    assert "governor" in described.power or described.power.to_dict() is not None
    as_dict = described.to_dict()
    assert as_dict["processor"]["identity"] == described.processor.identity
    assert tunekit.describe(threads=1).execution.effective_threads == 1
    with pytest.raises(AttributeError, match="not a field"):
        described.processor.no_such_field


def test_load_calibrate_update_and_load_again(tmp_path):
    cache = str(tmp_path / "kernel_tuning.toml")
    loaded = runtime.load_kernel_tuning_cache(library="tunekit_cpu", path=cache)
    assert loaded.file_status == "not_found"
    assert any(key.startswith("tunekit_cpu/Abs/") for key in loaded.missing)

    events = []
    calibrated = runtime.calibrate_registered_kernels(
        library="tunekit_cpu", kernels=["Abs"], element_types=["float"], only_missing=True, time_budget=2,
        progress=lambda key, event: events.append((key, event)))
    assert ("tunekit_cpu/Abs/openmp_simd/float/cpu/abi1", "start") in events
    names = [entry.key for entry in calibrated.calibrated]
    assert names == ["tunekit_cpu/Abs/openmp_simd/float/cpu/abi1"], calibrated.to_dict()
    profile = calibrated.successful_profiles[0]
    assert profile.key == names[0]
    assert "algorithm.simd_min_elements" in profile.values
    assert profile.execution["effective_threads"] >= 1

    updated = runtime.update_kernel_tuning_cache(calibrated.successful_profiles, path=cache)
    assert updated.ok and updated.status == "written", updated.summary
    assert [ref.key for ref in updated.written] == names

    again = runtime.load_kernel_tuning_cache(library="tunekit_cpu", kernels=["Abs"], element_types=["float"],
                                             path=cache)
    assert again.file_status == "read"
    assert [entry.status for entry in again.entries] == ["loaded"]
    explained = tunekit.Session().explain("Abs", "float")
    assert explained["source"] == "calibrated"
    assert explained["values"]["algorithm.simd_min_elements"] == profile.values["algorithm.simd_min_elements"]

    read_only = runtime.update_kernel_tuning_cache(calibrated.successful_profiles, path=cache, read_only=True)
    assert read_only.status == "read_only" and not read_only.ok


def test_a_malformed_cache_is_reported_not_raised_and_loads_nothing(tmp_path):
    cache = tmp_path / "broken.toml"
    cache.write_text("schema_version = [\n")
    loaded = runtime.load_kernel_tuning_cache(library="tunekit_cpu", path=str(cache))
    assert loaded.file_status == "malformed"
    assert loaded.published_generation is None


def test_sessions_portable_defaults_overrides_and_errors():
    portable = tunekit.Session(portable_defaults_only=True).explain("Gemm", "float")
    assert portable["source"] == "portable_default"
    assert portable["values"]["algorithm.tile_m"] > 0
    overridden = tunekit.Session(overrides=[{"kernel": "Abs", "element_type": "float",
                                             "values": {"algorithm.simd_min_elements": 64}}])
    explained = overridden.explain("Abs", "float")
    assert explained["values"]["algorithm.simd_min_elements"] == 64
    assert explained["source"] == "session_override"
    assert "simd_min_elements" in explained["text"]
    with pytest.raises(tunekit.Error, match="algorithm.simd_min_elements") as raised:
        tunekit.Session(overrides=[{"kernel": "Abs", "element_type": "float",
                                    "values": {"algorithm.simd_min_elements": -5}}])
    assert raised.value.code == "INVALID_VALUE"
    with pytest.raises(tunekit.Error, match="unknown data type 'floot'"):
        runtime.calibrate_registered_kernels(kernels=["Abs"], element_types=["floot"])
    with pytest.raises(tunekit.Error, match="no registered key for kernel 'Cosh'"):
        tunekit.Session().explain("Cosh", "float")
    with pytest.raises(tunekit.Error, match="profile"):
        tunekit.Session(profile="no such profile")


def test_a_second_python_thread_runs_while_a_kernel_runs():
    a = np.random.default_rng(5).standard_normal((1024, 1024))
    b = np.random.default_rng(6).standard_normal((1024, 1024))
    out = np.empty((1024, 1024))
    timings = {}

    def work():
        start = time.perf_counter()
        for _ in range(4):
            tunekit.kernels.gemm(a, b, out=out)
        timings["kernel_s"] = time.perf_counter() - start

    worker = threading.Thread(target=work)
    ticks = 0
    worker.start()
    while worker.is_alive():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    # With the GIL held through each product, this thread would run only
    # between the four calls: a handful of ticks, not one per millisecond.
    assert ticks >= 0.25 * timings["kernel_s"] * 1000, (ticks, timings)
    np.testing.assert_allclose(out, a @ b, rtol=1e-10, atol=1e-10)
