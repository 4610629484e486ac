// bench_override_lookup: one selection lookup among 10,000 override entries
// (exact entries found by their hashed canonical key), against the reference
// of a linear scan over the same entries. Target: at most 1 microsecond per
// lookup (label of BM_IndexedLookup). BM_LinearScan times a batch of indexed
// lookups in every iteration too, for its counter ratio = scan / lookup.
// Exits non-zero when the index and the scan disagree.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench_failure.hpp"
#include "tunekit/graph/override_index.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using namespace tunekit;
using namespace tunekit::graph;

constexpr int kEntries = 10000;
constexpr int kWildcards = 100;

std::string entries_json() {
  std::string text = R"({"version": 2, "engine_overrides": [)";
  for (int i = 0; i < kEntries; ++i) {
    const bool wildcard = i < kWildcards;
    const int m = 1 + i, k = 64 + i % 7, n = 32 + i % 5;
    char entry[512];
    std::snprintf(entry, sizeof entry,
                  R"(%s{"op": "matmul", "engine_name": "e%d", "tensors": [{"tensor_id": "A", "dim": [%d, %d], "stride": [%d, 1]},)"
                  R"({"tensor_id": "B", "dim": [%d, %d], "stride": [%d, 1]}, {"tensor_id": "C", "dim": [%s, %d], "stride": [%d, 1]}],)"
                  R"("autotune_metadata": {"knobs": [{"knob_id": "tile", "type": "int", "value": %d}]},)"
                  R"("validators": {"device_signature": "cpu:bench"}})",
                  i == 0 ? "" : ",", i % 13, m + 100000, k, k, k, n, n, wildcard ? "-1" : std::to_string(m + 100000).c_str(), n, n,
                  8 * (1 + i % 8));
    text += entry;
  }
  return text + "]}";
}

OverrideQuery query_of(int i) {
  const std::int64_t m = 1 + i + 100000, k = 64 + i % 7, n = 32 + i % 5;
  return OverrideQuery{"matmul", {}, {{"A", {m, k}, {k, 1}}, {"B", {k, n}, {n, 1}}, {"C", {m, n}, {n, 1}}}};
}

bool fits(const std::vector<std::int64_t>& pattern, const std::vector<std::int64_t>& actual) {
  if (pattern.size() != actual.size()) return false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != -1 && pattern[i] != actual[i]) return false;
  }
  return true;
}

// The reference: scan every entry of the file, keep the best by the same rules.
const OverrideEntry* linear_scan(const OverrideFile& file, const OverrideQuery& q, const std::string& device) {
  const OverrideEntry* best = nullptr;
  bool best_exact = false;
  for (const OverrideEntry& e : file.entries) {
    if (e.op != q.op) continue;
    bool match = true;
    for (const OverrideTensor& t : e.tensors) {
      const OverrideQueryTensor* actual = nullptr;
      for (const auto& qt : q.tensors) {
        if (qt.tensor_id == t.tensor_id) actual = &qt;
      }
      if (!actual || !fits(t.dims, actual->dims) || (t.strides && !fits(*t.strides, actual->strides))) {
        match = false;
        break;
      }
    }
    if (!match || (e.validators && e.validators->device_signature != device)) continue;
    const bool exact = !e.is_wildcard();
    if (!best || (exact && !best_exact) || exact == best_exact) {
      best = &e;
      best_exact = exact;
    }
  }
  return best;
}

// The generated file, its index and the queries, built once for every
// benchmark; error is set when the file does not load or the index and the
// scan disagree on any query.
struct Fixture {
  OverrideFile copy;
  std::unique_ptr<OverrideIndex> index;
  OverrideLookupContext context;
  std::vector<OverrideQuery> queries;
  const char* error = nullptr;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture x;
    Result<OverrideFile> file = parse_override_file(entries_json(), "bench.json");
    if (!file.ok() || file->entries.size() != static_cast<std::size_t>(kEntries)) {
      x.error = "the generated override file does not load";
      return x;
    }
    x.copy = *file;
    x.index = std::make_unique<OverrideIndex>(std::vector<OverrideFile>{std::move(file).value()});
    x.context.device_signature = "cpu:bench";
    for (int i = 0; i < 1024; ++i) x.queries.push_back(query_of(kWildcards + (i * 7919) % (kEntries - kWildcards)));
    // Both must find the same entries before anything is timed.
    for (const auto& q : x.queries) {
      auto hit = x.index->lookup(q, x.context);
      const OverrideEntry* scanned = linear_scan(x.copy, q, "cpu:bench");
      if (!hit || !scanned || hit->entry != &x.index->files()[0].entries[hit->entry->index] ||
          hit->entry->index != scanned->index) {
        x.error = "the index and the scan disagree";
        return x;
      }
    }
    return x;
  }();
  return f;
}

constexpr int kBatch = 100;

void BM_IndexedLookup(benchmark::State& state) {
  const Fixture& f = fixture();
  if (f.error) return tunekit::bench::fail(state, f.error);
  std::size_t sink = 0;
  std::size_t next = 0;
  const auto t0 = Clock::now();
  for (auto _ : state) {
    sink += f.index->lookup(f.queries[next], f.context)->entry->index;
    next = (next + 1) % f.queries.size();
  }
  const auto t1 = Clock::now();
  benchmark::DoNotOptimize(sink);
  const double lookup_ns =
      std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(state.iterations());
  state.counters["entries"] = kEntries;
  state.counters["wildcards"] = kWildcards;
  state.counters["checksum"] = static_cast<double>(sink % 1000);
  state.SetLabel(lookup_ns <= 1000.0 ? "target <= 1000 ns: met" : "target <= 1000 ns: NOT met");
}
BENCHMARK(BM_IndexedLookup)->Unit(benchmark::kNanosecond);

// The reference, with a batch of indexed lookups timed in the same iteration.
void BM_LinearScan(benchmark::State& state) {
  const Fixture& f = fixture();
  if (f.error) return tunekit::bench::fail(state, f.error);
  std::size_t sink = 0;
  std::size_t next = 0;
  double scan_ns = 0.0;
  double lookup_ns = 0.0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    sink += linear_scan(f.copy, f.queries[next], "cpu:bench")->index;
    const auto t1 = Clock::now();
    for (int i = 0; i < kBatch; ++i) {
      sink += f.index->lookup(f.queries[(next + static_cast<std::size_t>(i)) % f.queries.size()], f.context)->entry->index;
    }
    const auto t2 = Clock::now();
    next = (next + 1) % f.queries.size();
    scan_ns += std::chrono::duration<double, std::nano>(t1 - t0).count();
    lookup_ns += std::chrono::duration<double, std::nano>(t2 - t1).count() / kBatch;
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
  benchmark::DoNotOptimize(sink);
  state.counters["lookup_ns"] = lookup_ns / static_cast<double>(state.iterations());
  state.counters["ratio"] = scan_ns / lookup_ns;
}
BENCHMARK(BM_LinearScan)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) { return tunekit::bench::run_benchmarks(argc, argv); }
