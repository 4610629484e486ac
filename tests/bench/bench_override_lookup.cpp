// bench_override_lookup: one selection lookup among 10,000 override entries
// (exact entries found by their hashed canonical key), against the reference
// of a linear scan over the same entries measured in the same run. Target:
// at most 1 microsecond per lookup.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tunekit/graph/override_index.hpp"
#include "tunekit/measure/statistics.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  long lookups = 200000;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "-n") == 0) lookups = std::strtol(argv[i + 1], nullptr, 10);
  }
  if (lookups < 100) {
    std::fputs("usage: bench_override_lookup [-n N]   (N >= 100)\n", stderr);
    return 2;
  }
  Result<OverrideFile> file = parse_override_file(entries_json(), "bench.json");
  if (!file.ok() || file->entries.size() != static_cast<std::size_t>(kEntries)) {
    std::fputs("bench_override_lookup: the generated file does not load\n", stderr);
    return 1;
  }
  const OverrideFile copy = *file;
  OverrideIndex index({std::move(file).value()});
  OverrideLookupContext context;
  context.device_signature = "cpu:bench";

  std::vector<OverrideQuery> queries;
  for (int i = 0; i < 1024; ++i) queries.push_back(query_of(kWildcards + (i * 7919) % (kEntries - kWildcards)));

  // Both must find the same entries before anything is timed.
  for (const auto& q : queries) {
    auto hit = index.lookup(q, context);
    if (!hit || hit->entry != &index.files()[0].entries[hit->entry->index] ||
        hit->entry->index != linear_scan(copy, q, "cpu:bench")->index) {
      std::fputs("bench_override_lookup: the index and the scan disagree\n", stderr);
      return 1;
    }
  }

  constexpr int kBatch = 100;
  std::vector<double> indexed, scanned;
  std::size_t sink = 0;
  for (long done = 0; done < lookups; done += kBatch) {
    const auto t0 = Clock::now();
    for (int i = 0; i < kBatch; ++i) sink += index.lookup(queries[(done + i) % queries.size()], context)->entry->index;
    const auto t1 = Clock::now();
    indexed.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / kBatch);
  }
  const long scans = std::max(200L, lookups / 200);
  for (long done = 0; done < scans; done += 10) {
    const auto t0 = Clock::now();
    for (int i = 0; i < 10; ++i) sink += linear_scan(copy, queries[(done + i) % queries.size()], "cpu:bench")->index;
    const auto t1 = Clock::now();
    scanned.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / 10);
  }
  const double lookup_ns = measure::median(indexed);
  const double scan_ns = measure::median(scanned);
  std::printf("bench_override_lookup: %d entries (%d wildcards), %ld lookups (checksum %zu)\n", kEntries, kWildcards,
              lookups, sink % 1000);
  std::printf("indexed lookup median:                 %10.1f ns   target <= 1000 ns: %s\n", lookup_ns,
              lookup_ns <= 1000.0 ? "met" : "NOT met");
  std::printf("reference: linear scan median:         %10.1f ns   ratio scan/lookup %.1f\n", scan_ns, scan_ns / lookup_ns);
  return 0;
}
