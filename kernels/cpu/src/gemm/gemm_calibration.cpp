// Calibration of Gemm through the shared calibration API. Tile candidates are
// derived from this processor's cache sizes and the micro-kernel's register
// block (B micro-panel in or around L1, A block in L2, B panel in a share of
// L3), not taken from a grid; each is timed on the shape families square,
// large K, transposed A and large C against the portable default, every
// output checked against the serial portable path, and must win on one
// family without losing on another. Then the streamed-B path's depth block on a
// skinny product whose B comes from memory, the skinny-M limit (the
// streamed-B path against the packed path for growing M on a wide N) and the
// row-streamed limit (the row-streamed path against the streamed-B one, from
// M = 1).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "paired_timing.hpp"
#include "team_crossover.hpp"
#include "tunekit/cpu/gemm.hpp"
#include "tunekit/cpu/gemm_shape_families.hpp"
#include "tunekit/cpu/isa.hpp"
#include "tunekit/cpu/register.hpp"
#include "tunekit/measure/comparison.hpp"
#include "tunekit/tuning/crossover_search.hpp"
#include "tunekit/tuning/random_tensor.hpp"

namespace tunekit::cpu {
namespace {

using tuning::CalibrationContext;
using tuning::Tensor;

struct Tiles {
  std::int64_t m, n, k;
  bool operator==(const Tiles&) const = default;
};

std::string describe(const Tiles& t) { return fmt::format("tile_m={} tile_n={} tile_k={}", t.m, t.n, t.k); }

std::int64_t round_down_clamped(double value, std::int64_t multiple, std::int64_t low, std::int64_t high) {
  const auto v = static_cast<std::int64_t>(value) / multiple * multiple;
  return std::clamp(v, low, high);
}

// kc: the B micro-panel (kc x NR) takes half, three quarters, one and a half
// or twice L1 (a panel larger than L1 streams from L2 under the
// micro-kernel's prefetch, and a deeper block passes over C fewer times:
// on a C too large for the caches those passes cost more than the panel's
// residence in L1 saves); mc: the A block (mc x kc) half or a quarter of L2
// (only a quarter with the deeper panels, which stream through L2 beside
// it); nc: the B panel (kc x nc) a quarter of the shared L3 (of at most 32 L2s).
// Limits and multiples are the spec's.
std::vector<Tiles> tile_candidates(const platform::CpuDescriptor& cpu, GemmRegisterBlock block, std::size_t element,
                                   const Tiles& portable) {
  const double l1 = static_cast<double>(cpu.l1_data_bytes.value_or(32 << 10));
  const double l2 = static_cast<double>(cpu.l2_bytes.value_or(1 << 20));
  // The share of L3 one B panel may take: a quarter of it, at most 8 L2s
  // (a VM may report the host's whole L3 for a few cores).
  const double l3 = std::min(static_cast<double>(cpu.l3_bytes.value_or(8 << 20)), 32 * l2);
  const auto s = static_cast<double>(element);
  std::vector<Tiles> out;
  for (double l1_share : {0.5, 0.75, 1.5, 2.0}) {
    const std::int64_t kc = round_down_clamped(l1 * l1_share / (static_cast<double>(block.nr) * s), 8, 16, 4096);
    const std::int64_t nc = round_down_clamped(l3 / 4 / (static_cast<double>(kc) * s), 32, 32, 65536);
    for (double l2_share : {0.5, 0.25}) {
      if (l1_share > 1.0 && l2_share > 0.25) continue;
      const std::int64_t mc = round_down_clamped(l2 * l2_share / (static_cast<double>(kc) * s), 12, 12, 4096);
      const Tiles t{mc, nc, kc};
      if (!(t == portable) && std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    }
  }
  return out;
}


template <typename T>
struct Operands {
  GemmShapeFamily shape;
  Tensor a, b, c, expected;
};

template <typename T>
Error run(const GemmKernel& kernel, Operands<T>& x, GemmPath path, int threads) {
  const GemmShapeFamily& s = x.shape;
  const std::int64_t lda = s.trans_a == Transpose::NO ? s.k : s.m;
  return kernel.run(s.trans_a, Transpose::NO, s.m, s.n, s.k, T(1), x.a.template as<T>(), lda, x.b.template as<T>(), s.n,
                    T(0), x.c.template as<T>(), s.n, path, threads);
}


// Operands from the shared random tensors and the expected C from the
// portable path (packed, default tiles) on the calibration's threads: the
// team splits C, not the sums, so every element is the serial one, and the
// large families take a fraction of the time.
template <typename T>
Result<Operands<T>> make_operands(CalibrationContext& context, const GemmShapeFamily& s, DataType type) {
  const std::uint64_t seed = context.options.seed ^ static_cast<std::uint64_t>(s.m * 131 + s.n * 7 + s.k);
  Operands<T> x{s, {}, {}, {}, {}};
  const tuning::Shape a_shape = s.trans_a == Transpose::NO ? tuning::Shape{s.m, s.k} : tuning::Shape{s.k, s.m};
  auto a = tuning::RandnTensor(type, a_shape, seed);
  auto b = tuning::RandnTensor(type, {s.k, s.n}, seed + 1);
  auto c = tuning::EmptyTensor(type, {s.m, s.n});
  auto expected = tuning::EmptyTensor(type, {s.m, s.n});
  if (!a.ok()) return a.error();
  if (!b.ok()) return b.error();
  if (!c.ok()) return c.error();
  if (!expected.ok()) return expected.error();
  x.a = std::move(a).value();
  x.b = std::move(b).value();
  x.c = std::move(c).value();
  x.expected = std::move(expected).value();
  auto portable = ScopedIsa::force(CpuIsa::PORTABLE);
  if (!portable.ok()) return portable.error();
  std::swap(x.c, x.expected);
  Error e = run<T>(GemmKernel(), x, GemmPath::PACKED, static_cast<int>(std::max<std::uint32_t>(context.budget.threads(), 1)));
  std::swap(x.c, x.expected);
  if (e.is_bad()) return e;
  return x;
}

// Relative to max(1, |expected|): a K-term dot product of normal inputs
// differs between summation orders by a few K * eps of its magnitude.
template <typename T>
double tolerance(std::int64_t k) {
  return 8.0 * static_cast<double>(k + 2) * std::numeric_limits<T>::epsilon();
}

// Runs a configuration once on one shape and checks its output: false
// after a wrong result or a kernel error (recorded under `what`).
template <typename T>
bool check_one(CalibrationContext& context, const std::string& parameter, const std::string& what,
               const GemmKernel& kernel, Operands<T>& x, GemmPath path, int threads) {
  tuning::poison(x.c);
  if (Error e = run<T>(kernel, x, path, threads); e.is_bad()) {
    context.reporter.record_rejected(parameter, what, e.message());
    return false;
  }
  if (Error same = tuning::compare_tensors(x.expected, x.c, tolerance<T>(x.shape.k)); same.is_bad()) {
    context.reporter.record_rejected(parameter, what, "wrong result: " + same.message());
    return false;
  }
  return true;
}

// One way of running a product in a two-way comparison.
struct GemmRun {
  std::string what;  // its name in the report, shape included
  GemmKernel kernel;
  GemmPath path;
  int threads;
};

// Checks both runs' outputs on one shape, then judges the second against the
// first at `margin` (gemm_detail::judge_pair): nothing after a rejection
// (recorded).
template <typename T>
std::optional<tuning::CrossoverProbe> judge_pair_checked(CalibrationContext& context, const std::string& parameter,
                                                         double margin, const GemmRun& baseline,
                                                         const GemmRun& candidate, Operands<T>& x) {
  for (const GemmRun* r : {&baseline, &candidate}) {
    if (!check_one<T>(context, parameter, r->what, r->kernel, x, r->path, r->threads)) return std::nullopt;
  }
  return gemm_detail::judge_pair(
      context, parameter, margin, baseline.what,
      [&] { return run<T>(baseline.kernel, x, baseline.path, baseline.threads); }, candidate.what,
      [&] { return run<T>(candidate.kernel, x, candidate.path, candidate.threads); });
}

// Checks a configuration's output on every family: false after a wrong
// result or a kernel error (recorded).
template <typename T>
bool check_all(CalibrationContext& context, const std::string& parameter, const std::string& name,
               const GemmKernel& kernel, std::vector<Operands<T>>& families, GemmPath path, int threads) {
  for (Operands<T>& x : families) {
    const std::string what = fmt::format("{} {} {}x{}x{}", name, x.shape.name, x.shape.m, x.shape.n, x.shape.k);
    if (!check_one<T>(context, parameter, what, kernel, x, path, threads)) return false;
  }
  return true;
}

// One configuration of an interleaved comparison: its name in the report,
// its kernel and its size for the tie rule (the smaller wins a tie).
struct NamedKernel {
  std::string name;
  GemmKernel kernel;
  std::int64_t size = 0;
};

// Samples of every configuration on every family: [configuration][family].
using FamilySamples = std::vector<std::vector<std::vector<double>>>;

// Times every configuration on every family, all taking turns
// (measure_interleaved), and records the samples: configurations timed one
// after the other met different phases of a shared machine, and whichever
// had the quiet phase won. nullopt when the timing failed (noted).
template <typename T>
std::optional<FamilySamples> time_on_families(CalibrationContext& context, const std::string& parameter,
                                              const std::vector<NamedKernel>& configs,
                                              std::vector<Operands<T>>& families, GemmPath path, int threads,
                                              int rounds) {
  std::vector<std::function<Error()>> runs;
  for (const NamedKernel& config : configs) {
    for (Operands<T>& x : families) {
      runs.push_back([&config, &x, path, threads] { return run<T>(config.kernel, x, path, threads); });
    }
  }
  auto samples = tuning::measure_interleaved(runs, rounds, [&] { return context.budget.time_left(); });
  if (!samples.ok()) {
    context.reporter.note(parameter + " timing stopped: " + samples.error().message());
    return std::nullopt;
  }
  const std::size_t f_count = families.size();
  FamilySamples out(configs.size(), std::vector<std::vector<double>>(f_count));
  for (std::size_t c = 0; c < configs.size(); ++c) {
    for (std::size_t f = 0; f < f_count; ++f) {
      out[c][f] = std::move((*samples)[c * f_count + f]);
      const GemmShapeFamily& shape = families[f].shape;
      context.reporter.record_candidate(
          parameter, fmt::format("{} {} {}x{}x{}", configs[c].name, shape.name, shape.m, shape.n, shape.k), out[c][f]);
    }
  }
  return out;
}

// Configuration a's comparison with b on each family (a's times over b's).
std::vector<measure::Comparison> compare_on_families(const FamilySamples& samples, std::size_t a, std::size_t b,
                                                     const measure::ComparisonConfig& comparison) {
  std::vector<measure::Comparison> out;
  for (std::size_t f = 0; f < samples[a].size(); ++f) {
    out.push_back(measure::compare_times(samples[a][f], samples[b][f], comparison));
  }
  return out;
}

// Whether the comparison decides between a and b on some family.
bool told_apart(const std::vector<measure::Comparison>& comparisons) {
  return std::any_of(comparisons.begin(), comparisons.end(), [](const measure::Comparison& c) {
    return c.verdict == measure::Verdict::FASTER || c.verdict == measure::Verdict::SLOWER;
  });
}

// The outcome of choosing among configurations on shape families.
struct FamilyChoice {
  enum class Outcome { DEFAULT_FAILED, TIMING_FAILED, NO_WINNER, NOT_AGAIN, CHOSEN };
  Outcome outcome = Outcome::DEFAULT_FAILED;
  std::size_t index = 0;  // the winner among the configurations given (NOT_AGAIN, CHOSEN)
  double score = 1.0;     // its geometric mean ratio to the default (gemm_tiles_beat)
  double again = 1.0;     // the same when timed again (CHOSEN)
  std::size_t tied = 0;   // configurations that beat the default and tied with the fastest of them
};

// configs[0] is the default. Every configuration is checked on every family
// (a wrong one is dropped, a wrong default ends the choice) and all are
// timed interleaved (time_on_families). Among those that beat the default
// (gemm_tiles_beat, with the margin as the comparison's band) the
// calibration tie rule picks one (gemm_pick_by_tie_rule: the lowest score
// leads, and the smallest NamedKernel::size wins among the leader and those
// the comparison cannot tell from it on any family). That one is timed again
// against the default alone, in twice the rounds (two configurations cost
// little), and must beat it again.
template <typename T>
FamilyChoice choose_on_families(CalibrationContext& context, const std::string& parameter,
                                const std::vector<NamedKernel>& configs, std::vector<Operands<T>>& families,
                                GemmPath path, int threads) {
  using Outcome = FamilyChoice::Outcome;
  std::vector<std::size_t> right;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    if (check_all<T>(context, parameter, configs[i].name, configs[i].kernel, families, path, threads)) {
      right.push_back(i);
    } else if (i == 0) {
      return {Outcome::DEFAULT_FAILED};
    }
  }
  std::vector<NamedKernel> checked;
  for (std::size_t i : right) checked.push_back(configs[i]);
  const int rounds = std::max(context.options.repetitions, 5);
  const measure::ComparisonConfig comparison = tuning::margin_comparison(context.options.required_margin);
  const std::optional<FamilySamples> samples =
      time_on_families<T>(context, parameter, checked, families, path, threads, rounds);
  if (!samples) return {Outcome::TIMING_FAILED};
  std::vector<GemmBeater> beaters;  // indices into checked
  for (std::size_t c = 1; c < checked.size(); ++c) {
    const std::optional<double> score =
        gemm_tiles_beat(compare_on_families(*samples, c, 0, comparison), comparison.tie_band);
    if (score) beaters.push_back({c, *score, checked[c].size});
  }
  if (beaters.empty()) return {Outcome::NO_WINNER};
  const GemmTiePick pick = gemm_pick_by_tie_rule(beaters, [&](std::size_t a, std::size_t b) {
    return told_apart(compare_on_families(*samples, a, b, comparison));
  });
  const double score =
      std::find_if(beaters.begin(), beaters.end(), [&](const GemmBeater& b) { return b.index == pick.index; })->score;
  const std::optional<FamilySamples> again =
      time_on_families<T>(context, parameter, {checked[0], checked[pick.index]}, families, path, threads, 2 * rounds);
  const std::optional<double> again_score =
      again ? gemm_tiles_beat(compare_on_families(*again, 1, 0, comparison), comparison.tie_band) : std::nullopt;
  if (!again_score) return {Outcome::NOT_AGAIN, right[pick.index], score, 1.0, pick.tied};
  return {Outcome::CHOSEN, right[pick.index], score, *again_score, pick.tied};
}

// The configuration a calibration starts from and keeps unless a challenger
// beats it: the portable defaults with the committed values (the incumbent)
// applied, when there are any.
GemmPackedTuning starting_point(CalibrationContext& context) {
  GemmPackedTuning config;
  if (context.incumbent == nullptr) return config;
  if (Error e = gemm_packed_binding().try_validate_and_apply(config, *context.incumbent); e.is_bad()) {
    context.reporter.note("the committed values are not applied: " + e.message());
    return GemmPackedTuning{};
  }
  return config;
}

// Whether the starting point's value of `parameter` is a committed one.
bool committed(const CalibrationContext& context, const std::string& parameter) {
  return tuning::kept_label(context, parameter) == "committed value kept";
}

// ", the smallest of 3 that tied with the fastest", or nothing without a tie.
std::string tie_note(const FamilyChoice& choice) {
  if (choice.tied == 0) return {};
  return fmt::format(", the smallest of {} that tied with the fastest", choice.tied + 1);
}

template <typename T>
void calibrate_tiles(CalibrationContext& context, DataType type, int threads, tuning::KernelTuningParameters& values) {
  const GemmPackedTuning defaults = starting_point(context);
  const Tiles incumbent{defaults.algorithm_tile_m, defaults.algorithm_tile_n, defaults.algorithm_tile_k};
  const GemmPackedTuning portable_config;
  const Tiles portable{portable_config.algorithm_tile_m, portable_config.algorithm_tile_n,
                       portable_config.algorithm_tile_k};
  const std::string kept = tuning::kept_label(context, "algorithm.tile_m");
  const std::string against = committed(context, "algorithm.tile_m") ? "committed tiles'" : "default's";
  std::vector<Operands<T>> families;
  for (const GemmShapeFamily& s : gemm_tile_families(context.options.memory_budget_bytes, sizeof(T))) {
    auto x = make_operands<T>(context, s, type);
    if (!x.ok()) {
      context.reporter.note(fmt::format("{}: {}", s.name, x.error().message()));
      continue;
    }
    families.push_back(std::move(x).value());
  }
  std::string family_names;
  for (const Operands<T>& x : families) family_names += (family_names.empty() ? "" : ", ") + std::string(x.shape.name);
  const std::string parameter = "algorithm.tiles";
  const auto kernel_of = [&defaults](const Tiles& t) {
    GemmPackedTuning config = defaults;
    config.algorithm_tile_m = t.m;
    config.algorithm_tile_n = t.n;
    config.algorithm_tile_k = t.k;
    return GemmKernel(config);
  };
  if (families.empty()) {
    context.reporter.select("algorithm.tile_m", defaults.algorithm_tile_m, kept + ": it failed");
    return;
  }
  // The tiles in use first (the incumbent), then the portable ones when they
  // differ, then those derived from this processor's caches.
  std::vector<Tiles> tiles = {incumbent};
  const auto add = [&tiles](const Tiles& t) {
    if (std::find(tiles.begin(), tiles.end(), t) == tiles.end()) tiles.push_back(t);
  };
  add(portable);
  for (const Tiles& t : tile_candidates(context.execution.processor, gemm_register_block(type), sizeof(T), portable)) {
    add(t);
  }
  std::vector<NamedKernel> configs;
  for (const Tiles& t : tiles) configs.push_back({describe(t), kernel_of(t), t.m * t.n * t.k});
  const FamilyChoice choice = choose_on_families<T>(context, parameter, configs, families, GemmPath::PACKED, threads);
  using Outcome = FamilyChoice::Outcome;
  const auto keep = [&](const std::string& why) {
    context.reporter.select("algorithm.tile_m", defaults.algorithm_tile_m, kept + ": " + why);
  };
  switch (choice.outcome) {
    case Outcome::DEFAULT_FAILED: return keep("it failed");
    case Outcome::TIMING_FAILED: return keep("timing failed");
    case Outcome::NO_WINNER:
      return keep(fmt::format("no candidate faster by {:.0f}% on a family ({}) and slower by as much on none, "
                              "at 95% confidence",
                              100 * context.options.required_margin, family_names));
    case Outcome::NOT_AGAIN:
      return keep(fmt::format("{} did not win again on the families", describe(tiles[choice.index])));
    case Outcome::CHOSEN: break;
  }
  const Tiles& best = tiles[choice.index];
  const std::string why =
      fmt::format("{} took {:.3f} of the {} time (geometric mean over {}; {:.3f} when timed again){}",
                  describe(best), choice.score, against, family_names, choice.again, tie_note(choice));
  values.values["algorithm.tile_m"] = best.m;
  values.values["algorithm.tile_n"] = best.n;
  values.values["algorithm.tile_k"] = best.k;
  context.reporter.select("algorithm.tile_m", best.m, why);
  context.reporter.select("algorithm.tile_n", best.n, why);
  context.reporter.select("algorithm.tile_k", best.k, why);
}

// The starting point with what the earlier steps of this calibration chose.
GemmPackedTuning configured(CalibrationContext& context, const tuning::KernelTuningParameters& values) {
  GemmPackedTuning config = starting_point(context);
  if (Error e = gemm_packed_binding().try_validate_and_apply(config, values); e.is_bad()) {
    context.reporter.note("the values chosen so far are not applied: " + e.message());
  }
  return config;
}

// The depth of a streamed-B block: how many B rows the streamed path reads
// side by side. The candidates are stream counts around what hardware
// prefetchers track (8 to 128), timed on the skinny family (M = 8, B from
// memory) against the portable default.
template <typename T>
void calibrate_streamed_depth(CalibrationContext& context, DataType type, int threads,
                              tuning::KernelTuningParameters& values) {
  const std::string parameter = "algorithm.streamed_tile_k";
  const GemmPackedTuning defaults = starting_point(context);
  const std::string kept = tuning::kept_label(context, parameter);
  std::vector<Operands<T>> families;
  std::string shapes;
  for (const GemmShapeFamily& family : gemm_streamed_depth_families(context.options.memory_budget_bytes, sizeof(T))) {
    auto x = make_operands<T>(context, family, type);
    if (!x.ok()) {
      context.reporter.select(parameter, defaults.algorithm_streamed_tile_k, kept + ": " + x.error().message());
      return;
    }
    families.push_back(std::move(x).value());
    shapes += fmt::format("{}{}x{}x{}", shapes.empty() ? "" : ", ", family.m, family.n, family.k);
  }
  const auto kernel_of = [&defaults](std::int64_t depth) {
    GemmPackedTuning config = defaults;
    config.algorithm_streamed_tile_k = depth;
    return GemmKernel(config);
  };
  // A skinny product's time moves with whatever else reads memory: the
  // depths are timed taking turns and chosen as tiles are.
  // The depth in use first (the incumbent), then the portable one.
  std::vector<std::int64_t> depths = {defaults.algorithm_streamed_tile_k};
  for (std::int64_t depth : {GemmPackedTuning{}.algorithm_streamed_tile_k, std::int64_t{8}, std::int64_t{12},
                             std::int64_t{16}, std::int64_t{24}, std::int64_t{48}, std::int64_t{64}, std::int64_t{96},
                             std::int64_t{128}}) {
    if (std::find(depths.begin(), depths.end(), depth) == depths.end()) depths.push_back(depth);
  }
  std::vector<NamedKernel> configs;
  for (std::int64_t depth : depths) {
    configs.push_back({fmt::format("streamed_tile_k={}", depth), kernel_of(depth), depth});
  }
  const FamilyChoice choice =
      choose_on_families<T>(context, parameter, configs, families, GemmPath::STREAMED_B, threads);
  using Outcome = FamilyChoice::Outcome;
  const auto keep = [&](const std::string& why) {
    context.reporter.select(parameter, defaults.algorithm_streamed_tile_k, kept + ": " + why);
  };
  switch (choice.outcome) {
    case Outcome::DEFAULT_FAILED: return keep("it failed");
    case Outcome::TIMING_FAILED: return keep("timing failed");
    case Outcome::NO_WINNER:
      return keep(fmt::format("no depth faster by {:.0f}% on one of {} and slower by as much on the other",
                              100 * context.options.required_margin, shapes));
    case Outcome::NOT_AGAIN:
      return keep(fmt::format("streamed_tile_k={} did not win again on {}", depths[choice.index], shapes));
    case Outcome::CHOSEN: break;
  }
  values.values[parameter] = depths[choice.index];
  context.reporter.select(parameter, depths[choice.index],
                          fmt::format("{:.3f} of the {} time on the streamed path (geometric mean over {}; "
                                      "{:.3f} when timed again){}",
                                      choice.score, committed(context, parameter) ? "committed depth's" : "default's",
                                      shapes, choice.again, tie_note(choice)));
}

// A path for the fewest rows of C and the path it is measured against.
struct RowLimitSearch {
  std::string parameter;                     // the limit's name in the spec
  std::int64_t GemmPackedTuning::*limit;     // its field in the configuration
  std::int64_t first_m;                      // the doubling sequence's start
  GemmPath below, above;                     // the path up to the limit, the one beyond it
  std::string below_name, above_name;
};

// The largest M of a doubling sequence (first_m to 64) up to which `below`
// serves (both paths with the configuration chosen so far, on N = K = wide):
// it is not slower than `above` by the margin up to the configured limit, and
// faster by the margin beyond it. Slower already at first_m: first_m / 2.
template <typename T>
void calibrate_row_limit(CalibrationContext& context, int threads, tuning::KernelTuningParameters& values,
                         DataType type, const RowLimitSearch& search) {
  const GemmPackedTuning config = configured(context, values);
  const std::int64_t configured_limit = config.*search.limit;
  const std::int64_t wide = gemm_skinny_limit_wide(context.options.memory_budget_bytes, sizeof(T));
  std::optional<std::int64_t> limit;
  for (std::int64_t m = search.first_m; m <= 64; m *= 2) {
    if (!context.budget.time_left()) {
      context.reporter.note(fmt::format("time budget spent before {} M={}", search.below_name, m));
      break;
    }
    auto x = make_operands<T>(context, {search.below_name + "_m", m, wide, wide, Transpose::NO}, type);
    if (!x.ok()) {
      context.reporter.note(fmt::format("{} M={}: {}", search.below_name, m, x.error().message()));
      break;
    }
    const std::string shape = fmt::format("{}x{}x{}", m, wide, wide);
    const GemmKernel kernel(config);
    const std::optional<tuning::CrossoverProbe> probe = judge_pair_checked<T>(
        context, search.parameter, context.options.required_margin,
        {search.above_name + " " + shape, kernel, search.above, threads},
        {search.below_name + " " + shape, kernel, search.below, threads}, *x);
    if (!probe) break;
    // The calibration tie rule: where the comparison cannot tell the paths
    // apart (a tie or undecided), the configured limit decides: up to it the
    // path below goes on, beyond it only a win by the margin extends it.
    const bool extends = probe->verdict == tuning::ProbeVerdict::CANDIDATE_WINS ||
                         (m <= configured_limit && probe->verdict != tuning::ProbeVerdict::BASELINE_WINS);
    if (!extends) {
      if (!limit) limit = m / 2;
      break;
    }
    limit = m;
  }
  if (!limit) {
    context.reporter.select(search.parameter, configured_limit,
                            tuning::kept_label(context, search.parameter) + ": nothing decided");
    return;
  }
  values.values[search.parameter] = *limit;
  context.reporter.select(search.parameter, *limit,
                          fmt::format("the {} path up to M={} at N=K={} (not slower than the {} one by {:.0f}% up to "
                                      "the {} M={}, faster by as much beyond it)",
                                      search.below_name, *limit, wide, search.above_name,
                                      100 * context.options.required_margin,
                                      committed(context, search.parameter) ? "committed" : "portable default",
                                      configured_limit));
}

// Where the streamed-B path gives way to the packed one, then where the
// row-streamed path gives way to the streamed-B one (which serves the rows
// between the two limits: a processor whose row-streamed path loses from
// M = 2 runs the streamed-B path from there).
template <typename T>
void calibrate_row_limits(CalibrationContext& context, DataType type, int threads,
                          tuning::KernelTuningParameters& values) {
  calibrate_row_limit<T>(context, threads, values, type,
                         {"algorithm.skinny_m_limit", &GemmPackedTuning::algorithm_skinny_m_limit, 4,
                          GemmPath::STREAMED_B, GemmPath::PACKED, "streamed_b", "packed"});
  calibrate_row_limit<T>(context, threads, values, type,
                         {"algorithm.row_stream_m_limit", &GemmPackedTuning::algorithm_row_stream_m_limit, 1,
                          GemmPath::STREAMED_ROWS, GemmPath::STREAMED_B, "streamed_rows", "streamed_b"});
}

// The parallel crossover: the team against one thread on cubes of growing
// edge (all with the configuration chosen so far). The product runs in
// parallel from the second of two consecutive cubes where the team was
// faster by the margin (TeamCrossover); fmas_per_work_unit is that many
// multiply-adds over minimum_tasks.
template <typename T>
void calibrate_parallel(CalibrationContext& context, DataType type, int threads,
                        tuning::KernelTuningParameters& values) {
  const std::string parameter = "parallel.fmas_per_work_unit";
  const GemmPackedTuning config = configured(context, values);
  const std::string kept = tuning::kept_label(context, parameter);
  if (threads < 2) {
    context.reporter.select(parameter, config.parallel_fmas_per_work_unit, kept + ": one thread in this execution");
    return;
  }
  GemmPackedTuning always_parallel = config;
  always_parallel.parallel_fmas_per_work_unit = 1;
  always_parallel.parallel_minimum_tasks = 1;
  const std::int64_t minimum_tasks = std::max<std::int64_t>(config.parallel_minimum_tasks, 1);
  const double margin = tuning::required_margin_for(context.options, 1, static_cast<std::uint32_t>(threads));
  gemm_detail::TeamCrossover search;
  for (std::int64_t edge : {16, 24, 32, 48, 64, 96, 128, 192, 256, 384}) {
    if (!context.budget.time_left()) {
      context.reporter.note(fmt::format("time budget spent before the parallel cube {}", edge));
      break;
    }
    auto x = make_operands<T>(context, {"cube", edge, edge, edge, Transpose::NO}, type);
    if (!x.ok()) break;
    const std::string shape = fmt::format("{}x{}x{}", edge, edge, edge);
    const std::optional<tuning::CrossoverProbe> team = judge_pair_checked<T>(
        context, parameter, margin, {"1 thread " + shape, GemmKernel(config), GemmPath::AUTO, 1},
        {fmt::format("{} threads {}", threads, shape), GemmKernel(always_parallel), GemmPath::AUTO, threads}, *x);
    if (!team) break;
    if (search.record(static_cast<double>(edge * edge * edge), team->verdict)) break;
  }
  const std::optional<double> found = search.crossover();
  const auto crossover_of = [minimum_tasks](std::int64_t per_unit) { return static_cast<double>(per_unit * minimum_tasks); };
  if (!found) {
    const std::int64_t portable = GemmPackedTuning{}.parallel_fmas_per_work_unit;
    if (committed(context, parameter) && search.contradicts(crossover_of(config.parallel_fmas_per_work_unit)) &&
        !search.contradicts(crossover_of(portable))) {
      // One thread won where the committed value runs the team, and not
      // where the portable default would: the default beat it.
      values.values[parameter] = portable;
      context.reporter.select(parameter, portable,
                              fmt::format("one thread faster by {:.0f}% at or above the committed crossover of {} "
                                          "multiply-adds, and the team never won twice in a row",
                                          100 * margin, crossover_of(config.parallel_fmas_per_work_unit)));
      return;
    }
    context.reporter.select(parameter, config.parallel_fmas_per_work_unit,
                            kept + ": the team never won twice in a row");
    return;
  }
  const double crossover = *found;
  if (search.keeps(crossover_of(config.parallel_fmas_per_work_unit))) {
    context.reporter.select(parameter, config.parallel_fmas_per_work_unit,
                            fmt::format("{}: {} threads win from about {:.0f} multiply-adds, and no cube below it "
                                        "contradicts it",
                                        kept, threads, crossover));
    return;
  }
  const auto per_unit = std::max<std::int64_t>(1, static_cast<std::int64_t>(crossover) / minimum_tasks);
  values.values[parameter] = per_unit;
  context.reporter.select(parameter, per_unit,
                          fmt::format("{} threads faster by {:.0f}% from about {:.0f} multiply-adds ({} work units)",
                                      threads, 100 * margin, crossover, minimum_tasks));
  context.reporter.select("parallel.minimum_tasks", config.parallel_minimum_tasks,
                          tuning::kept_label(context, "parallel.minimum_tasks") +
                              ": fmas_per_work_unit carries the crossover");
}

template <typename T>
void calibrate(CalibrationContext& context, DataType type, tuning::KernelTuningParameters& values) {
  const auto threads = static_cast<int>(std::max<std::uint32_t>(context.budget.threads(), 1));
  context.reporter.note(fmt::format("instruction set {}, register block {}x{}", to_string(active_isa()),
                                    gemm_register_block(type).mr, gemm_register_block(type).nr));
  calibrate_tiles<T>(context, type, threads, values);
  calibrate_streamed_depth<T>(context, type, threads, values);
  calibrate_row_limits<T>(context, type, threads, values);
  calibrate_parallel<T>(context, type, threads, values);
}

}  // namespace

tuning::KernelTuningParameters calibrate_gemm(const tuning::KernelTuningKey& key, CalibrationContext& context) {
  tuning::KernelTuningParameters values{key, {}};
  if (key.element_type == DataType::FLOAT) {
    calibrate<float>(context, key.element_type, values);
  } else if (key.element_type == DataType::DOUBLE) {
    calibrate<double>(context, key.element_type, values);
  } else if (key.element_type == DataType::FLOAT16 || key.element_type == DataType::BFLOAT16) {
    return calibrate_gemm_widening(key, context);
  } else {
    context.reporter.mark_unsupported(fmt::format("Gemm is not implemented for {}", core::to_string(key.element_type)));
  }
  return values;
}

void register_gemm_calibration(tuning::KernelCalibrationRegistry& functions) {
  for (const tuning::KernelTuningKey& key : tunekit_cpu_tuning_keys()) {
    if (key.kernel == "Gemm") functions.register_function(key, calibrate_gemm, kLibraryVersion);
  }
}

}  // namespace tunekit::cpu
