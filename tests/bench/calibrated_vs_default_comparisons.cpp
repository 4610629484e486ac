// The comparisons of one calibrated tunekit_cpu key
// (calibrated_vs_default_comparisons.hpp): unary and binary crossovers on
// 1-D sizes between the two thresholds, Gemm tiles on the calibration's
// square, large_k and transposed_a families, the streamed-B depth and the
// skinny-M limit on its wide N = K, the packing, parallel and conversion
// thresholds on products between them.
#include "calibrated_vs_default_comparisons.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>

#include "calibrated_vs_default_plan.hpp"
#include "tunekit/cpu/binary_elementwise.hpp"
#include "tunekit/cpu/gemm.hpp"
#include "tunekit/cpu/gemm_shape_families.hpp"
#include "tunekit/cpu/unary_elementwise.hpp"
#include "tunekit/tuning/random_tensor.hpp"

namespace tunekit::bench {
namespace {

using tuning::Tensor;

constexpr const char* kTiles[] = {"algorithm.tile_m", "algorithm.tile_n", "algorithm.tile_k"};
constexpr const char* kGemmParallel[] = {"parallel.fmas_per_work_unit", "parallel.minimum_tasks"};
constexpr const char* kNoFamily = "not timed: no shape family of the calibration exercises it";

struct Builder {
  std::string key;
  tuning::KernelTuningParameters defaults, merged;
  std::vector<Comparison> rows;

  bool differs(const std::string& name) const { return defaults.values.at(name) != merged.values.at(name); }
  std::string default_text(const std::string& name) const { return defaults.values.at(name).to_text(); }
  std::string calibrated_text(const std::string& name) const { return merged.values.at(name).to_text(); }

  void untimed(const std::string& name, std::string why) {
    rows.push_back({key, name, default_text(name), calibrated_text(name), "", std::move(why), {}});
  }
  void kept(const std::string& name) { untimed(name, "kept (default)"); }
  void timed(std::string parameter, std::string default_value, std::string calibrated_value, std::string shape,
             std::function<Result<ComparisonRuns>()> prepare) {
    rows.push_back({key, std::move(parameter), std::move(default_value), std::move(calibrated_value),
                    std::move(shape), "", std::move(prepare)});
  }
};

// ---- unary and binary elementwise -------------------------------------------------------------

template <typename Config>
std::vector<std::pair<std::int64_t, bool>> elementwise_sizes(const std::string& name, const Config& d,
                                                             const Config& c) {
  std::vector<std::pair<std::int64_t, bool>> out;  // size, whether both take the same path
  auto between = [&](std::int64_t a, std::int64_t b) {
    for (std::int64_t n : sizes_between(a, b)) out.emplace_back(n, false);
    if (std::int64_t same = agreeing_size(a, b); same > 0) out.emplace_back(same, true);
  };
  if (name == "algorithm.simd_min_elements") between(d.simd_min_elements, c.simd_min_elements);
  if (name == "parallel.minimum_elements") between(d.parallel_minimum_elements, c.parallel_minimum_elements);
  if (name == "parallel.maximum_threads") {
    // The team size matters where both run in parallel; below both
    // crossovers both run serially. Both maxima may give the same team
    // (each is capped at OpenMP's thread limit).
    const bool same_team = cpu::elementwise_team(d.maximum_threads) == cpu::elementwise_team(c.maximum_threads);
    const std::int64_t both = std::max(d.parallel_minimum_elements, c.parallel_minimum_elements);
    out.emplace_back(both, same_team);
    out.emplace_back(4 * both, same_team);
    const std::int64_t serial = std::min(d.parallel_minimum_elements, c.parallel_minimum_elements) - 1;
    if (serial > 0) out.emplace_back(serial, true);
  }
  return out;
}

std::string size_text(std::int64_t n, bool same) { return fmt::format("n={}{}", n, same ? " (same path)" : ""); }

// The rows of a unary or binary key: `prepare(d, c, n)` gives the comparison
// of the default configuration d and the calibrated one c at n elements.
template <typename Config, typename Prepare>
void add_elementwise(Builder& b, const tuning::TuningBinding<Config>& binding,
                     const tuning::KernelTuningParameters& calibrated, Prepare prepare) {
  Config d, c;
  if (Error e = binding.try_validate_and_apply(c, calibrated); e.is_bad()) {
    for (const auto& [name, value] : b.defaults.values) b.untimed(name, "not timed: " + e.message());
    return;
  }
  for (const auto& [name, value] : b.defaults.values) {
    if (!b.differs(name)) {
      b.kept(name);
      continue;
    }
    const auto sizes = elementwise_sizes(name, d, c);
    if (sizes.empty()) b.untimed(name, kNoFamily);
    for (const auto& [n, same] : sizes) {
      b.timed(name, b.default_text(name), b.calibrated_text(name), size_text(n, same), prepare(d, c, n));
    }
  }
}

using Runs = std::vector<std::function<Error()>>;

struct UnaryOperands {
  Tensor input, output;
};

// One run per configuration of `op`, all on the same random operands of n elements.
Result<Runs> unary_runs(cpu::UnaryOp op, DataType type, const std::vector<cpu::UnaryElementwiseTuning>& configs,
                        std::int64_t n, std::uint64_t seed) {
  auto input = tuning::RandnTensor(type, {n}, seed);
  auto output = tuning::EmptyTensor(type, {n});
  if (!input.ok()) return input.error();
  if (!output.ok()) return output.error();
  auto x = std::make_shared<UnaryOperands>(UnaryOperands{std::move(input).value(), std::move(output).value()});
  Runs runs;
  for (const cpu::UnaryElementwiseTuning& c : configs) {
    const cpu::UnaryElementwiseKernel kernel(op, c);
    runs.push_back([x, kernel] { return kernel.run(x->input, x->output); });
  }
  return runs;
}

void add_unary(Builder& b, cpu::UnaryOp op, const tuning::KernelTuningParameters& calibrated, std::uint64_t seed) {
  const DataType type = calibrated.key.element_type;
  add_elementwise(b, cpu::unary_elementwise_binding(), calibrated,
                  [op, type, seed](const cpu::UnaryElementwiseTuning& d, const cpu::UnaryElementwiseTuning& c,
                                   std::int64_t n) -> std::function<Result<ComparisonRuns>()> {
                    return [op, d, c, type, n, seed]() -> Result<ComparisonRuns> {
                      Result<Runs> runs = unary_runs(op, type, {d, c}, n, seed);
                      if (!runs.ok()) return runs.error();
                      return ComparisonRuns{(*runs)[0], (*runs)[1]};
                    };
                  });
}

struct BinaryOperands {
  Tensor a, b, output;
};

Result<Runs> binary_runs(cpu::BinaryOp op, DataType type, const std::vector<cpu::BinaryElementwiseTuning>& configs,
                         std::int64_t n, std::uint64_t seed) {
  auto x = tuning::RandnTensor(type, {n}, seed);
  auto y = tuning::RandnTensor(type, {n}, seed + 1);
  auto output = tuning::EmptyTensor(cpu::output_type(op, type), {n});
  if (!x.ok()) return x.error();
  if (!y.ok()) return y.error();
  if (!output.ok()) return output.error();
  auto ops = std::make_shared<BinaryOperands>(
      BinaryOperands{std::move(x).value(), std::move(y).value(), std::move(output).value()});
  Runs runs;
  for (const cpu::BinaryElementwiseTuning& c : configs) {
    const cpu::BinaryElementwiseKernel kernel(op, c);
    runs.push_back([ops, kernel] { return kernel.run(ops->a, ops->b, ops->output); });
  }
  return runs;
}

void add_binary(Builder& b, cpu::BinaryOp op, const tuning::KernelTuningParameters& calibrated, std::uint64_t seed) {
  const DataType type = calibrated.key.element_type;
  add_elementwise(b, cpu::binary_elementwise_binding(), calibrated,
                  [op, type, seed](const cpu::BinaryElementwiseTuning& d, const cpu::BinaryElementwiseTuning& c,
                                   std::int64_t n) -> std::function<Result<ComparisonRuns>()> {
                    return [op, d, c, type, n, seed]() -> Result<ComparisonRuns> {
                      Result<Runs> runs = binary_runs(op, type, {d, c}, n, seed);
                      if (!runs.ok()) return runs.error();
                      return ComparisonRuns{(*runs)[0], (*runs)[1]};
                    };
                  });
}

// ---- Gemm -------------------------------------------------------------------------------------

struct GemmOperands {
  cpu::GemmShapeFamily shape;
  Tensor a, b, c;
};

std::string shape_text(const cpu::GemmShapeFamily& s, bool same) {
  return fmt::format("{}{}x{}x{}{}{}", s.name.empty() ? "" : std::string(s.name) + " ", s.m, s.n, s.k,
                     s.trans_a == cpu::Transpose::YES ? " A^T" : "", same ? " (same path)" : "");
}

template <typename T>
std::function<Result<ComparisonRuns>()> gemm_prepare(const cpu::GemmShapeFamily& s, const cpu::GemmPackedTuning& d,
                                                     const cpu::GemmPackedTuning& c, DataType type,
                                                     std::uint64_t seed) {
  return [s, d, c, type, seed]() -> Result<ComparisonRuns> {
    const bool transposed = s.trans_a == cpu::Transpose::YES;
    const tuning::Shape a_shape = transposed ? tuning::Shape{s.k, s.m} : tuning::Shape{s.m, s.k};
    auto a = tuning::RandnTensor(type, a_shape, seed);
    auto b = tuning::RandnTensor(type, {s.k, s.n}, seed + 1);
    auto out = tuning::EmptyTensor(type, {s.m, s.n});
    if (!a.ok()) return a.error();
    if (!b.ok()) return b.error();
    if (!out.ok()) return out.error();
    auto x = std::make_shared<GemmOperands>(GemmOperands{s, std::move(a).value(), std::move(b).value(),
                                                         std::move(out).value()});
    // The real call: the path and the team chosen by the configuration.
    auto run = [x](const cpu::GemmKernel& kernel) {
      const cpu::GemmShapeFamily& g = x->shape;
      return kernel.run(g.trans_a, cpu::Transpose::NO, g.m, g.n, g.k, T(1), x->a.template as<T>(),
                        g.trans_a == cpu::Transpose::YES ? g.m : g.k, x->b.template as<T>(), g.n, T(0), x->c.template as<T>(), g.n);
    };
    const cpu::GemmKernel kd(d), kc(c);
    return ComparisonRuns{[run, kd] { return run(kd); }, [run, kc] { return run(kc); }};
  };
}

template <typename T>
void add_gemm(Builder& b, const tuning::KernelTuningParameters& calibrated, const ComparisonOptions& options) {
  cpu::GemmPackedTuning d, c;
  if (Error e = cpu::gemm_packed_binding().try_validate_and_apply(c, calibrated); e.is_bad()) {
    for (const auto& [name, value] : b.defaults.values) b.untimed(name, "not timed: " + e.message());
    return;
  }
  const DataType type = calibrated.key.element_type;
  const std::uint64_t seed = options.seed;
  std::set<std::string> handled;
  // Parameters chosen together are compared together: one row per shape.
  auto group = [&](std::span<const char* const> names, auto&& shapes) {
    std::vector<std::string> changed;
    std::string dv, cv;
    for (const char* name : names) {
      handled.insert(name);
      if (!b.defaults.values.count(name)) continue;
      dv += (dv.empty() ? "" : "/") + b.default_text(name);
      cv += (cv.empty() ? "" : "/") + b.calibrated_text(name);
      if (b.differs(name)) {
        changed.push_back(name);
      } else {
        b.kept(name);
      }
    }
    if (changed.empty()) return;
    const std::string parameter = fmt::format("{}", fmt::join(changed, ","));
    const std::vector<std::pair<cpu::GemmShapeFamily, bool>> list = shapes();
    if (list.empty()) {
      b.rows.push_back({b.key, parameter, dv, cv, "", "not timed: no product lies between the two thresholds", {}});
    }
    for (const auto& [s, same] : list) b.timed(parameter, dv, cv, shape_text(s, same), gemm_prepare<T>(s, d, c, type, seed));
  };
  group(kTiles, [&] {
    std::vector<std::pair<cpu::GemmShapeFamily, bool>> out;
    for (const cpu::GemmShapeFamily& s : cpu::gemm_tile_families(options.memory_budget_bytes, sizeof(T))) {
      out.emplace_back(s, false);
    }
    return out;
  });
  group(kGemmParallel, [&] {
    // Serial below fmas_per_work_unit * max(minimum_tasks, 2) multiply-adds.
    const std::int64_t td = d.parallel_fmas_per_work_unit * std::max<std::int64_t>(d.parallel_minimum_tasks, 2);
    const std::int64_t tc = c.parallel_fmas_per_work_unit * std::max<std::int64_t>(c.parallel_minimum_tasks, 2);
    std::vector<std::pair<cpu::GemmShapeFamily, bool>> out;
    for (std::int64_t e : edges_between(td, tc, 3)) out.emplace_back(cpu::GemmShapeFamily{"square", e, e, e, cpu::Transpose::NO}, false);
    if (std::int64_t e = agreeing_edge(td, tc, 3); e > 0 && !out.empty()) {
      out.emplace_back(cpu::GemmShapeFamily{"square", e, e, e, cpu::Transpose::NO}, true);
    }
    return out;
  });
  const char* skinny[] = {"algorithm.skinny_m_limit"};
  group(skinny, [&] {
    // M <= limit streams B: M in (lower, higher] differ, at the calibration's N = K.
    const std::int64_t wide = cpu::gemm_skinny_limit_wide(options.memory_budget_bytes, sizeof(T));
    const std::int64_t a = d.algorithm_skinny_m_limit + 1, z = c.algorithm_skinny_m_limit + 1;
    std::vector<std::pair<cpu::GemmShapeFamily, bool>> out;
    for (std::int64_t m : sizes_between(a, z)) out.emplace_back(cpu::GemmShapeFamily{"skinny_m", m, wide, wide, cpu::Transpose::NO}, false);
    if (std::int64_t m = agreeing_size(a, z); m > 0) out.emplace_back(cpu::GemmShapeFamily{"skinny_m", m, wide, wide, cpu::Transpose::NO}, true);
    return out;
  });
  const char* depth[] = {"algorithm.streamed_tile_k"};
  group(depth, [&] {
    // The calibration's families; M <= both skinny limits streams B in both.
    std::vector<std::pair<cpu::GemmShapeFamily, bool>> out;
    for (cpu::GemmShapeFamily s : cpu::gemm_streamed_depth_families(options.memory_budget_bytes, sizeof(T))) {
      s.m = std::min({s.m, d.algorithm_skinny_m_limit, c.algorithm_skinny_m_limit});
      if (s.m > 0) out.emplace_back(s, false);
    }
    return out;
  });
  const char* pack_b[] = {"algorithm.pack_b_minimum_elements"};
  group(pack_b, [&] {
    // B of K * N elements below the threshold is streamed; M above both
    // skinny limits so that the packing threshold alone decides.
    const std::int64_t rows = std::max(d.algorithm_skinny_m_limit, c.algorithm_skinny_m_limit) + 1;
    const std::int64_t td = d.algorithm_pack_b_minimum_elements, tc = c.algorithm_pack_b_minimum_elements;
    std::vector<std::pair<cpu::GemmShapeFamily, bool>> out;
    for (std::int64_t e : edges_between(td, tc, 2)) out.emplace_back(cpu::GemmShapeFamily{"", std::max(e, rows), e, e, cpu::Transpose::NO}, false);
    if (std::int64_t e = agreeing_edge(td, tc, 2); e > 0 && !out.empty()) {
      out.emplace_back(cpu::GemmShapeFamily{"", std::max(e, rows), e, e, cpu::Transpose::NO}, true);
    }
    return out;
  });
  for (const auto& [name, value] : b.defaults.values) {
    if (handled.count(name)) continue;
    if (b.differs(name)) {
      b.untimed(name, kNoFamily);
    } else {
      b.kept(name);
    }
  }
}

// FLOAT16/BFLOAT16: the conversions' crossover on square products whose
// matrices (e x e elements each) lie between the two thresholds; the FLOAT
// product inside runs with the portable default in both.
void add_gemm_widening(Builder& b, const tuning::KernelTuningParameters& calibrated, std::uint64_t seed) {
  cpu::GemmWideningTuning d, c;
  if (Error e = cpu::gemm_widening_binding().try_validate_and_apply(c, calibrated); e.is_bad()) {
    for (const auto& [name, value] : b.defaults.values) b.untimed(name, "not timed: " + e.message());
    return;
  }
  const DataType type = calibrated.key.element_type;
  const std::string name = "conversion.parallel_minimum_elements";
  if (!b.differs(name)) {
    b.kept(name);
    return;
  }
  const std::int64_t td = d.conversion_parallel_minimum_elements, tc = c.conversion_parallel_minimum_elements;
  std::vector<std::pair<std::int64_t, bool>> edges;
  for (std::int64_t e : edges_between(td, tc, 2)) edges.emplace_back(e, false);
  if (std::int64_t e = agreeing_edge(td, tc, 2); e > 0 && !edges.empty()) edges.emplace_back(e, true);
  if (edges.empty()) b.untimed(name, "not timed: no matrix size lies between the two thresholds");
  for (const auto& [edge, same] : edges) {
    const cpu::GemmShapeFamily shape{"square", edge, edge, edge, cpu::Transpose::NO};
    b.timed(name, b.default_text(name), b.calibrated_text(name), shape_text(shape, same),
            [d, c, type, e = edge, seed]() -> Result<ComparisonRuns> {
              auto a = tuning::RandnTensor(type, {e, e}, seed);
              auto bm = tuning::RandnTensor(type, {e, e}, seed + 1);
              auto out = tuning::EmptyTensor(type, {e, e});
              if (!a.ok()) return a.error();
              if (!bm.ok()) return bm.error();
              if (!out.ok()) return out.error();
              auto x = std::make_shared<GemmOperands>(GemmOperands{{"square", e, e, e, cpu::Transpose::NO},
                                                                   std::move(a).value(), std::move(bm).value(),
                                                                   std::move(out).value()});
              auto run = [x, type, e](const cpu::GemmKernel& kernel) {
                return kernel.run(type, cpu::Transpose::NO, cpu::Transpose::NO, e, e, e, 1.0f,
                                  x->a.as<std::uint16_t>(), e, x->b.as<std::uint16_t>(), e, 0.0f,
                                  x->c.as<std::uint16_t>(), e);
              };
              const cpu::GemmKernel kd(cpu::GemmPackedTuning{}, d), kc(cpu::GemmPackedTuning{}, c);
              return ComparisonRuns{[run, kd] { return run(kd); }, [run, kc] { return run(kc); }};
            });
  }
}

// The typed configurations of parameter sets (the defaults where a set
// gives no value).
template <typename Config>
Result<std::vector<Config>> apply_all(const tuning::TuningBinding<Config>& binding,
                                      const std::vector<tuning::KernelTuningParameters>& configurations) {
  std::vector<Config> out;
  for (const tuning::KernelTuningParameters& parameters : configurations) {
    Config c;
    TUNEKIT_RETURN_IF_ERROR(binding.try_validate_and_apply(c, parameters));
    out.push_back(c);
  }
  return out;
}

template <typename Config>
std::vector<std::int64_t> thresholds_sizes(const std::vector<Config>& configs) {
  std::set<std::int64_t> thresholds;
  for (const Config& c : configs) {
    thresholds.insert(c.simd_min_elements);
    thresholds.insert(c.parallel_minimum_elements);
  }
  std::set<std::int64_t> sizes;
  for (auto it = thresholds.begin(); it != thresholds.end() && std::next(it) != thresholds.end(); ++it) {
    for (std::int64_t n : sizes_between(*it, *std::next(it))) sizes.insert(n);
  }
  if (!thresholds.empty()) sizes.insert(4 * *thresholds.rbegin());
  return {sizes.begin(), sizes.end()};
}

std::optional<cpu::UnaryOp> unary_of(const tuning::KernelTuningKey& key) {
  for (cpu::UnaryOp op : cpu::kAllUnaryOps) {
    if (key.kernel == cpu::to_string(op) && cpu::supports(op, key.element_type)) return op;
  }
  return std::nullopt;
}

std::optional<cpu::BinaryOp> binary_of(const tuning::KernelTuningKey& key) {
  const std::optional<cpu::BinaryOp> op = cpu::parse_binary_op(key.kernel);
  if (op && cpu::supports(*op, key.element_type)) return op;
  return std::nullopt;
}

}  // namespace

Result<std::vector<std::function<Error()>>> elementwise_runs(
    const tuning::KernelTuningSchema& schema, const std::vector<tuning::KernelTuningParameters>& configurations,
    std::int64_t n, std::uint64_t seed) {
  const tuning::KernelTuningKey& key = schema.key();
  if (const std::optional<cpu::UnaryOp> op = unary_of(key)) {
    auto configs = apply_all(cpu::unary_elementwise_binding(), configurations);
    if (!configs.ok()) return configs.error();
    return unary_runs(*op, key.element_type, *configs, n, seed);
  }
  if (const std::optional<cpu::BinaryOp> op = binary_of(key)) {
    auto configs = apply_all(cpu::binary_elementwise_binding(), configurations);
    if (!configs.ok()) return configs.error();
    return binary_runs(*op, key.element_type, *configs, n, seed);
  }
  return Error(ErrorCode::NOT_SUPPORTED,
               fmt::format("{}: side by side times only the unary and binary elementwise kernels", key.to_string()));
}

std::vector<std::int64_t> elementwise_side_by_side_sizes(
    const tuning::KernelTuningSchema& schema, const std::vector<tuning::KernelTuningParameters>& configurations) {
  if (unary_of(schema.key())) {
    auto configs = apply_all(cpu::unary_elementwise_binding(), configurations);
    return configs.ok() ? thresholds_sizes(*configs) : std::vector<std::int64_t>{};
  }
  if (binary_of(schema.key())) {
    auto configs = apply_all(cpu::binary_elementwise_binding(), configurations);
    return configs.ok() ? thresholds_sizes(*configs) : std::vector<std::int64_t>{};
  }
  return {};
}

std::vector<Comparison> comparisons_for(const tuning::KernelTuningSchema& schema,
                                        const tuning::KernelTuningParameters& calibrated,
                                        const ComparisonOptions& options) {
  const tuning::KernelTuningKey& key = schema.key();
  Builder b{fmt::format("{}/{}", key.kernel, core::to_string(key.element_type)), schema.defaults(),
            schema.merge(calibrated), {}};
  if (const std::optional<cpu::UnaryOp> unary = unary_of(key)) {
    add_unary(b, *unary, calibrated, options.seed);
  } else if (const std::optional<cpu::BinaryOp> binary = binary_of(key)) {
    add_binary(b, *binary, calibrated, options.seed);
  } else if (key.kernel == "Gemm" && key.element_type == DataType::FLOAT) {
    add_gemm<float>(b, calibrated, options);
  } else if (key.kernel == "Gemm" && key.element_type == DataType::DOUBLE) {
    add_gemm<double>(b, calibrated, options);
  } else if (key.kernel == "Gemm" && key.implementation == "widening") {
    add_gemm_widening(b, calibrated, options.seed);
  } else {
    const std::string why = "not timed: a kernel this benchmark does not know";
    for (const auto& [name, value] : b.defaults.values) {
      if (b.differs(name)) {
        b.untimed(name, why);
      } else {
        b.kept(name);
      }
    }
  }
  return std::move(b.rows);
}

}  // namespace tunekit::bench
