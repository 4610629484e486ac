"""tunekit from Python: kernel threshold tuning and tunekit_cpu's kernels.

    import tunekit
    tunekit.describe().processor.uarch           # what this machine is
    loaded = tunekit.runtime.load_kernel_tuning_cache(library="tunekit_cpu")
    calibrated = tunekit.runtime.calibrate_registered_kernels(library="tunekit_cpu", kernels=["Abs"],
                                                             only_missing=True)
    updated = tunekit.runtime.update_kernel_tuning_cache(calibrated.successful_profiles)
    y = tunekit.kernels.unary("Exp", x)          # on a NumPy array, without a copy
    tuned = tunekit.tune(["graph.toml"], output="overrides.json")

Importing tunekit registers tunekit_cpu's kernels, as the tunekit tool does.
"""

from . import _tunekit
from ._record import Record
from . import graph, kernels, runtime
from .graph import lookup_override, report, tune
from .runtime import Session

__all__ = ["Error", "Record", "Session", "TuningError", "describe", "graph", "kernels", "lookup_override", "report",
           "runtime", "tune", "__version__"]

__version__ = _tunekit.version

# A tunekit::Error raised by a call (bad input, a wrong argument); its
# `code` attribute names the ErrorCode ("INVALID_VALUE").
Error = _tunekit.Error
# An error the specification says propagates (a calibration callback that
# threw, a rejected registration).
TuningError = _tunekit.TuningError


def describe(threads=None):
    """The processor, execution and power descriptors of this machine, as
    `tunekit describe --json` gives them: a Record with `processor`,
    `execution`, `power` and `hip` (the GPUs, or the reason there are none;
    each also a dict through to_dict()). `threads`
    is the thread count asked for (the execution's effective threads are at
    most the CPUs this process may run on)."""
    return Record(_tunekit.describe(threads))
