"""Graph autotuning from Python: what `tunekit tune` does, and the selection
policy's lookup in engine-override files.

    result = tunekit.tune(["examples/graphs/layernorm.toml"], output="overrides.json")
    for shape in result.shapes:
        print(shape.graph, shape.shape_set, shape.winner.engine_name, shape.winner.min_time_ms)
        print(shape.table())
    match = tunekit.lookup_override(["overrides.json"], op="layernorm",
                                    tensors={"X": [16, 4096], "SCALE": [4096], ...})

Candidates are measured in this process (`tunekit tune --isolate` restarts the
program, which here would be the interpreter); the GIL is released while they
run.
"""

from . import _tunekit
from ._record import Record


class TunedShape(Record):
    """One shape of one graph file as `tunekit tune --json` reports it:
    graph, shape_set, candidates (ranked: the winner first, failures last,
    each with engine_name, knobs, min_time_ms, median_time_ms, samples_ms,
    against_fastest (ratio, its interval and verdict; None for the fastest),
    error_message, ...),
    knob_sweeps, and error, stored_winner or not_tuned when they apply."""

    __slots__ = ()

    @property
    def winner(self):
        """The winning candidate, or None when none succeeded."""
        for candidate in self.candidates:
            if candidate.succeeded and candidate.rank == 0:
                return candidate
        return None

    def table(self):
        """The ranked candidates as text, one line each."""
        lines = [f"{self.graph} [{self.shape_set}]"]
        for c in self.candidates:
            knobs = " ".join(f"{k.knob_id}={k.value}" for k in c.knobs) or "defaults"
            if c.succeeded:
                against = c.against_fastest
                ratio = "fastest" if against is None else f"{against.ratio:.3f} {against.verdict}"
                lines.append(f"  {c.rank:>4}  {c.engine_name:<28} {knobs:<20} {c.min_time_ms:>12.6f} ms  {ratio}")
            else:
                lines.append(f"     -  {c.engine_name:<28} {knobs:<20} failed: {c.error_message}")
        return "\n".join(lines)


class TuneResult(Record):
    """exit_code (as `tunekit tune` would exit: 0, or 1 when a shape had no
    successful candidate) and shapes, one TunedShape per shape tuned."""

    __slots__ = ()

    @property
    def shapes(self):
        return [TunedShape(shape) for shape in self._fields["shapes"]]


def tune(graphs, output, shape_sets=(), mode="standard", strategy="run_until_stable", iterations=0,
         tie_band_percent=2.0, confidence_percent=95.0, replace=False, keep_unless_faster=False, check_results=True,
         time_budget=0.0, plugins=(), device="cpu", progress=None):
    """Autotunes every selected shape of the graph files (TOML) with every CPU
    engine of this build (and of `plugins`) and writes the winners to the
    engine-override file `output`, as `tunekit tune` does with the same
    options; `device` is "cpu", "hip" or "hip:N" (the GPU engines come from
    the tunekit-hip plugin). `progress(shape)`
    is called with each TunedShape as it finishes. Raises tunekit.Error when
    nothing could be tuned (a graph file that does not parse, a bad option)."""
    def report(shape):
        progress(TunedShape(shape))

    return TuneResult(_tunekit.tune([str(g) for g in graphs], output=str(output), shape_sets=list(shape_sets),
                                    mode=mode, strategy=strategy, iterations=iterations,
                                    tie_band_percent=tie_band_percent, confidence_percent=confidence_percent,
                                    replace=replace, keep_unless_faster=keep_unless_faster,
                                    check_results=check_results, time_budget=time_budget,
                                    plugins=[str(p) for p in plugins], device=device,
                                    progress=report if progress else None))


def lookup_override(files, op, tensors, strides=None, criteria=None, any_device=False):
    """Which entry of the override files (earlier files first) the selection
    policy picks for an operation `op` ("matmul", "layernorm", ...) with
    `tensors` {tensor id: dims} (packed unless `strides` {id: strides} says
    otherwise) and `criteria` {name: int}: a Record with matched, and when it
    matched engine_name, engine_id, knobs, file, entry_index and exact; misses
    (file, entry_index, reason) and skipped files (file, reason) either way."""
    return Record(_tunekit.lookup_override([str(f) for f in files], op=op, tensors=dict(tensors),
                                           strides=dict(strides or {}), criteria=dict(criteria or {}),
                                           any_device=any_device))


def report(inputs, output, before=(), tie_band_percent=2.0, title="tunekit report"):
    """Writes the page of `tunekit report` to `output`: calibration reports,
    calibration caches, override files and `tune --json` tables (each
    recognised by its content), and with `before` what changed since those
    inputs. Returns the page's model (a Record: calibration, shapes,
    overrides, cache, charts, comparison). Raises tunekit.Error naming an
    input that is none of those."""
    return Record(_tunekit.report([str(i) for i in inputs], output=str(output), before=[str(b) for b in before],
                                  tie_band_percent=tie_band_percent, title=title))
