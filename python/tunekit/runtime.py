"""The specification's three kernel-tuning operations, and sessions.

Loading never calibrates and calibration never writes the cache:

    loaded = load_kernel_tuning_cache(library="tunekit_cpu")
    calibrated = calibrate_registered_kernels(library="tunekit_cpu", kernels=["Abs", "Gemm"], only_missing=True)
    updated = update_kernel_tuning_cache(calibrated.successful_profiles)

Each returns a Record whose fields are those of the C++ report
(KernelTuningCacheLoadReport, CalibrationBatchReport,
KernelTuningCacheUpdateReport). The calls release the GIL while they work.
"""

from . import _tunekit
from ._record import Record

Session = _tunekit.Session
class CalibrationReport(Record):
    """A CalibrationBatchReport: calibrated, skipped, unsupported and
    not_calibrated keys with their reports, and successful_profiles, the
    calibrated profiles to hand to update_kernel_tuning_cache."""

    __slots__ = ("successful_profiles",)

    def __init__(self, fields):
        profiles = fields.pop("successful_profiles")
        super().__init__(fields)
        object.__setattr__(self, "successful_profiles", list(profiles))


def load_kernel_tuning_cache(library=None, kernels=(), implementations=(), element_types=(), path=None,
                             read_only=False):
    """Reads the cache (default: $TUNEKIT_CACHE_PATH or the user cache folder)
    and publishes its compatible entries of the selected keys; a missing file
    is a normal "not_found". Returns the load report: path, file_status,
    entries (each with its status), missing, published_generation, summary."""
    return Record(_tunekit.load_kernel_tuning_cache(library=library, kernels=list(kernels),
                                                    implementations=list(implementations),
                                                    element_types=list(element_types), path=path,
                                                    read_only=read_only))


def calibrate_registered_kernels(library=None, kernels=(), implementations=(), element_types=(), only_missing=False,
                                 time_budget=10.0, memory_budget_mib=512, threads=0, seed=0x7E5EC0DE,
                                 progress=None):
    """Calibrates the selected registered kernels on this machine and
    publishes the results in one new registry generation; the cache is not
    written. `time_budget` is seconds per key; `progress(key, event)` is
    called as each key starts and ends ("start", "calibrated", "skipped",
    "unsupported", "not_calibrated"). Raises TuningError when a calibration
    callback throws."""
    return CalibrationReport(_tunekit.calibrate_registered_kernels(
        library=library, kernels=list(kernels), implementations=list(implementations),
        element_types=list(element_types), only_missing=only_missing, time_budget=time_budget,
        memory_budget_mib=memory_budget_mib, threads=threads, seed=seed, progress=progress))


def update_kernel_tuning_cache(profiles, path=None, read_only=False, replace_existing=True):
    """Merges calibrated profiles into the cache file under its lock and
    replaces the file atomically; a rejected profile rejects the whole update
    and nothing is written. Returns the update report: path, status, ok,
    written, replaced, kept, pruned, rejected, dropped, summary."""
    return Record(_tunekit.update_kernel_tuning_cache(list(profiles), path=path, read_only=read_only,
                                                      replace_existing=replace_existing))


def registered_keys():
    """Every registered tuning key (library, kernel, implementation,
    element_type, tuning_abi and its name)."""
    return [Record(key) for key in _tunekit.registered_keys()]
