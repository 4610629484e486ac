// The integration-test engines: real float matmuls on host memory, each with
// one behaviour under test (see graph_test_provider.hpp).
#include "graph_test_provider.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>

namespace tunekit::graph::test_provider {
namespace {

struct Shape {
  std::int64_t m = 0, k = 0, n = 0;
};

// The engines apply to one row-major float matmul C = A x B with uids 1, 2, 3.
Result<Shape> matmul_shape(const OperationGraph& graph) {
  if (graph.operations().size() != 1 || graph.operations()[0].kind != OperationKind::MATMUL) {
    return Error(ErrorCode::NOT_SUPPORTED, "only a single matmul is supported");
  }
  const Operation& op = graph.operations()[0];
  for (const char* port : {"A", "B", "C"}) {
    Tensor t = op.input(port) ? op.input(port) : op.output(port);
    if (t->get_dim().size() != 2) return Error(ErrorCode::NOT_SUPPORTED, "only rank-2 matmuls are supported");
    if (t->get_data_type() != DataType::FLOAT) return Error(ErrorCode::NOT_SUPPORTED, "only float is supported");
    if (t->get_stride() != TensorAttributes::packed_strides(t->get_dim())) {
      return Error(ErrorCode::NOT_SUPPORTED, "only packed row-major tensors are supported");
    }
  }
  return Shape{op.input("A")->get_dim()[0], op.input("A")->get_dim()[1], op.input("B")->get_dim()[1]};
}

struct Buffers {
  const float* a;
  const float* b;
  float* c;
};

Result<Buffers> buffers(const OperationGraph& graph, const VariantPack& pack) {
  const Operation& op = graph.operations()[0];
  auto at = [&](const Tensor& t) -> void* {
    auto it = pack.find(t->get_uid());
    return it == pack.end() ? nullptr : it->second;
  };
  void* a = at(op.input("A"));
  void* b = at(op.input("B"));
  void* c = at(op.output("C"));
  if (!a || !b || !c) return Error(ErrorCode::INVALID_VALUE, "variant pack lacks a matmul buffer");
  return Buffers{static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(c)};
}

using Compute = std::function<Error(const Shape&, const Buffers&, const ExecutionArguments&, const KnobValues&)>;

class Kernel final : public ExecutionKernel {
 public:
  Kernel(std::int64_t id, const OperationGraph& graph, Shape shape, KnobValues knobs, std::int64_t workspace,
         Compute compute, std::shared_ptr<Counters> counters)
      : id_(id), graph_(graph), shape_(shape), knobs_(std::move(knobs)), workspace_(workspace),
        compute_(std::move(compute)), counters_(std::move(counters)) {}
  std::int64_t workspace_size() const override { return workspace_; }
  Error execute(const ExecutionArguments& args) override {
    Result<Buffers> io = buffers(graph_, args.variant_pack);
    if (!io.ok()) return io.error();
    counters_->executions[id_ - 100]++;
    if (knobs_.get_int(kBenchmarkingKnob) == 1) counters_->primed_executions++;
    return compute_(shape_, *io, args, knobs_);
  }

 private:
  std::int64_t id_;
  OperationGraph graph_;
  Shape shape_;
  KnobValues knobs_;
  std::int64_t workspace_;
  Compute compute_;
  std::shared_ptr<Counters> counters_;
};

struct Spec {
  EngineDescriptor descriptor;
  std::function<std::int64_t(const Shape&, const KnobValues&)> estimate;
  std::function<std::int64_t(const Shape&, const KnobValues&)> workspace;
  std::function<Error(const KnobValues&)> compile_check;  // optional
  Compute compute;
};

class TestEngine final : public Engine {
 public:
  TestEngine(Spec spec, std::shared_ptr<Counters> counters) : spec_(std::move(spec)), counters_(std::move(counters)) {}
  const EngineDescriptor& descriptor() const override { return spec_.descriptor; }
  Error check_applicable(const OperationGraph& graph, const platform::Device&) const override {
    return matmul_shape(graph).error();
  }
  Result<std::int64_t> estimate_workspace(const OperationGraph& graph, const KnobValues& knobs) const override {
    Result<Shape> shape = matmul_shape(graph);
    if (!shape.ok()) return shape.error();
    return spec_.estimate(*shape, knobs);
  }
  Result<std::unique_ptr<ExecutionKernel>> compile(const OperationGraph& graph, const KnobValues& knobs,
                                                   platform::Device&) const override {
    Result<Shape> shape = matmul_shape(graph);
    if (!shape.ok()) return shape.error();
    if (spec_.compile_check) TUNEKIT_RETURN_IF_ERROR(spec_.compile_check(knobs));
    return std::unique_ptr<ExecutionKernel>(new Kernel(spec_.descriptor.id, graph, *shape, knobs,
                                                       spec_.workspace(*shape, knobs), spec_.compute, counters_));
  }

 private:
  Spec spec_;
  std::shared_ptr<Counters> counters_;
};

Knob knob_int(std::string id, std::int64_t def, std::int64_t lo, std::int64_t hi, std::int64_t step,
              std::vector<KnobValue> allowed, std::string description) {
  Knob k;
  k.id = std::move(id);
  k.type = KnobType::INT;
  k.default_value = def;
  k.min_value = lo;
  k.max_value = hi;
  if (step > 0) k.step = step;
  k.allowed_values = std::move(allowed);
  k.description = std::move(description);
  return k;
}

Knob benchmarking() { return knob_int(std::string(kBenchmarkingKnob), 0, 0, 1, 0, {}, "prime internal caches"); }

std::int64_t zero(const Shape&, const KnobValues&) { return 0; }

// C = A x B with the k loop innermost, accumulating in float.
void naive(const Shape& s, const Buffers& io, std::int64_t unroll) {
  for (std::int64_t i = 0; i < s.m; ++i) {
    for (std::int64_t j = 0; j < s.n; ++j) {
      float partial[4] = {0, 0, 0, 0};
      for (std::int64_t p = 0; p < s.k; ++p) partial[p % unroll] += io.a[i * s.k + p] * io.b[p * s.n + j];
      io.c[i * s.n + j] = partial[0] + partial[1] + partial[2] + partial[3];
    }
  }
}

// Transposes B into dst (n x k) so each dot product reads contiguous memory.
void pack_b(const Shape& s, const float* b, float* dst) {
  for (std::int64_t p = 0; p < s.k; ++p) {
    for (std::int64_t j = 0; j < s.n; ++j) dst[j * s.k + p] = b[p * s.n + j];
  }
}

void with_packed(const Shape& s, const Buffers& io, const float* packed) {
  for (std::int64_t i = 0; i < s.m; ++i) {
    for (std::int64_t j = 0; j < s.n; ++j) {
      float sum = 0.0f;
      for (std::int64_t p = 0; p < s.k; ++p) sum += io.a[i * s.k + p] * packed[j * s.k + p];
      io.c[i * s.n + j] = sum;
    }
  }
}

}  // namespace

TestProvider::TestProvider() : counters_(std::make_shared<Counters>()) {
  auto counters = counters_;
  std::vector<Spec> specs;

  Spec naive_spec;
  naive_spec.descriptor = {kNaive, "naive", {knob_int("unroll", 1, 1, 4, 0, {1, 2, 4}, "independent partial sums")}, 3,
                           "triple loop"};
  naive_spec.estimate = zero;
  naive_spec.workspace = zero;
  naive_spec.compute = [](const Shape& s, const Buffers& io, const ExecutionArguments&, const KnobValues& k) {
    naive(s, io, k.get_int("unroll"));
    return Error::ok();
  };
  specs.push_back(naive_spec);

  Spec tiled;
  Knob accumulate;
  accumulate.id = "accumulate";
  accumulate.type = KnobType::STRING;
  accumulate.default_value = "float";
  accumulate.allowed_values = {"float", "double"};
  accumulate.description = "accumulator type";
  Knob blend;
  blend.id = "prefetch_ratio";
  blend.type = KnobType::DOUBLE;
  blend.default_value = 0.5;
  blend.min_value = 0.0;
  blend.max_value = 1.0;
  blend.description = "fraction of a tile to prefetch (no effect on results)";
  tiled.descriptor = {kTiled, "tiled", {knob_int("tile", 8, 4, 64, 4, {}, "columns of B per packed tile"), accumulate, blend},
                      1, "packs tiles of B into the workspace"};
  tiled.estimate = [](const Shape& s, const KnobValues&) { return s.k * 64 * std::int64_t{sizeof(float)}; };
  tiled.workspace = [](const Shape& s, const KnobValues& k) { return s.k * k.get_int("tile") * std::int64_t{sizeof(float)}; };
  tiled.compute = [](const Shape& s, const Buffers& io, const ExecutionArguments& args, const KnobValues& k) {
    const std::int64_t tile = k.get_int("tile");
    const bool wide = k.get_string("accumulate") == "double";
    auto* packed = static_cast<float*>(args.workspace);
    for (std::int64_t j0 = 0; j0 < s.n; j0 += tile) {
      const std::int64_t width = std::min(tile, s.n - j0);
      for (std::int64_t p = 0; p < s.k; ++p) {
        for (std::int64_t j = 0; j < width; ++j) packed[j * s.k + p] = io.b[p * s.n + j0 + j];
      }
      for (std::int64_t i = 0; i < s.m; ++i) {
        for (std::int64_t j = 0; j < width; ++j) {
          double wide_sum = 0.0;
          float sum = 0.0f;
          for (std::int64_t p = 0; p < s.k; ++p) {
            if (wide) {
              wide_sum += static_cast<double>(io.a[i * s.k + p]) * packed[j * s.k + p];
            } else {
              sum += io.a[i * s.k + p] * packed[j * s.k + p];
            }
          }
          io.c[i * s.n + j0 + j] = wide ? static_cast<float>(wide_sum) : sum;
        }
      }
    }
    return Error::ok();
  };
  specs.push_back(tiled);

  // Priming (global.benchmarking=1) packs B once into a cache keyed by the
  // graph signature; plans compiled afterwards read the cache when B is unchanged.
  struct Cache {
    std::mutex mutex;
    std::map<std::string, std::vector<float>> packed;
  };
  auto cache = std::make_shared<Cache>();
  Spec cached;
  cached.descriptor = {kCached, "cached", {benchmarking()}, 2, "primes a packed copy of B"};
  cached.estimate = zero;
  cached.workspace = [](const Shape& s, const KnobValues& k) {
    return k.get_int(kBenchmarkingKnob) == 1 ? std::int64_t{0} : s.k * s.n * std::int64_t{sizeof(float)};
  };
  cached.compute = [cache, counters](const Shape& s, const Buffers& io, const ExecutionArguments& args,
                                     const KnobValues& k) {
    const std::string key = fmt::format("{}x{}x{}:{}", s.m, s.k, s.n, static_cast<const void*>(io.b));
    std::lock_guard lock(cache->mutex);
    if (k.get_int(kBenchmarkingKnob) == 1) {
      std::vector<float> packed(static_cast<std::size_t>(s.k * s.n));
      pack_b(s, io.b, packed.data());
      if (cache->packed.emplace(key, std::move(packed)).second) counters->cache_entries++;
      with_packed(s, io, cache->packed[key].data());
      return Error::ok();
    }
    auto* scratch = static_cast<float*>(args.workspace);
    pack_b(s, io.b, scratch);  // always current, so results never depend on stale cache contents
    with_packed(s, io, scratch);
    return Error::ok();
  };
  specs.push_back(cached);

  Spec fails;
  fails.descriptor = {kAlwaysFails, "always_fails", {}, 0, "never compiles"};
  fails.estimate = zero;
  fails.workspace = zero;
  fails.compile_check = [](const KnobValues&) { return Error(ErrorCode::COMPILE_FAILED, "this engine never compiles"); };
  fails.compute = [](const Shape&, const Buffers&, const ExecutionArguments&, const KnobValues&) { return Error::ok(); };
  specs.push_back(fails);

  Spec picky;
  picky.descriptor = {kFailsWhenPrimed, "fails_when_primed", {benchmarking()}, 4, "cannot prime"};
  picky.estimate = zero;
  picky.workspace = zero;
  picky.compile_check = [](const KnobValues& k) {
    if (k.get_int(kBenchmarkingKnob) == 1) return Error(ErrorCode::COMPILE_FAILED, "priming is not implemented");
    return Error::ok();
  };
  picky.compute = [](const Shape& s, const Buffers& io, const ExecutionArguments&, const KnobValues&) {
    naive(s, io, 2);
    return Error::ok();
  };
  specs.push_back(picky);

  Spec grows;
  grows.descriptor = {kWorkspaceGrows, "workspace_grows", {}, 5, "needs more workspace than it estimates"};
  grows.estimate = [](const Shape&, const KnobValues&) { return std::int64_t{64}; };
  grows.workspace = [](const Shape&, const KnobValues&) { return std::int64_t{1} << 20; };
  grows.compute = [](const Shape& s, const Buffers& io, const ExecutionArguments& args, const KnobValues&) {
    auto* packed = static_cast<float*>(args.workspace);
    pack_b(s, io.b, packed);
    with_packed(s, io, packed);
    return Error::ok();
  };
  specs.push_back(grows);

  Spec thrower;
  thrower.descriptor = {kThrows, "throws", {}, 6, "throws from execute"};
  thrower.estimate = zero;
  thrower.workspace = zero;
  thrower.compute = [](const Shape&, const Buffers&, const ExecutionArguments&, const KnobValues&) -> Error {
    throw std::runtime_error("engine bug");
  };
  specs.push_back(thrower);

  Spec delayed;
  delayed.descriptor = {kDelayed, "delayed", {knob_int("delay_us", 2000, 0, 100000, 0, {}, "busy-wait per execution")}, 7,
                        "time set by a knob"};
  delayed.estimate = zero;
  delayed.workspace = zero;
  delayed.compute = [](const Shape& s, const Buffers& io, const ExecutionArguments&, const KnobValues& k) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(k.get_int("delay_us"));
    naive(s, io, 1);
    while (std::chrono::steady_clock::now() < until) {
    }
    return Error::ok();
  };
  specs.push_back(delayed);

  Spec dbl;
  dbl.descriptor = {kDoubleAccumulate, "double_accumulate", {}, 8, "accumulates rows in a double workspace"};
  dbl.estimate = [](const Shape& s, const KnobValues&) { return 2 * s.n * std::int64_t{sizeof(double)}; };
  dbl.workspace = [](const Shape& s, const KnobValues&) { return s.n * std::int64_t{sizeof(double)}; };
  dbl.compute = [](const Shape& s, const Buffers& io, const ExecutionArguments& args, const KnobValues&) {
    auto* row = static_cast<double*>(args.workspace);
    for (std::int64_t i = 0; i < s.m; ++i) {
      for (std::int64_t j = 0; j < s.n; ++j) row[j] = 0.0;
      for (std::int64_t p = 0; p < s.k; ++p) {
        const double a = io.a[i * s.k + p];
        for (std::int64_t j = 0; j < s.n; ++j) row[j] += a * io.b[p * s.n + j];
      }
      for (std::int64_t j = 0; j < s.n; ++j) io.c[i * s.n + j] = static_cast<float>(row[j]);
    }
    return Error::ok();
  };
  specs.push_back(dbl);

  for (auto& spec : specs) engines_.push_back(std::make_shared<TestEngine>(std::move(spec), counters_));
}

namespace {

class CoarseTimer final : public platform::Timer {
 public:
  CoarseTimer(std::unique_ptr<platform::Timer> inner, double resolution_ms)
      : inner_(std::move(inner)), resolution_ms_(resolution_ms) {}
  Error start() override { return inner_->start(); }
  Error stop() override { return inner_->stop(); }
  Result<double> elapsed_ms() override {
    Result<double> fine = inner_->elapsed_ms();
    if (!fine.ok()) return fine;
    return std::floor(*fine / resolution_ms_) * resolution_ms_;
  }
  double resolution_ms() const override { return resolution_ms_; }

 private:
  std::unique_ptr<platform::Timer> inner_;
  double resolution_ms_;
};

}  // namespace

Result<std::unique_ptr<platform::Timer>> CoarseTimerDevice::create_timer(platform::Stream& stream) {
  Result<std::unique_ptr<platform::Timer>> inner = inner_.create_timer(stream);
  if (!inner.ok()) return inner;
  return std::unique_ptr<platform::Timer>(new CoarseTimer(std::move(inner).value(), resolution_ms_));
}

MatmulProblem::MatmulProblem(Graph& graph, std::int64_t m_, std::int64_t k_, std::int64_t n_, unsigned seed)
    : m(m_), k(k_), n(n_) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> magnitude(0.25f, 1.0f);
  std::bernoulli_distribution negative(0.5);
  auto fill = [&](std::vector<float>& v, std::int64_t count) {
    v.resize(static_cast<std::size_t>(count));
    for (auto& x : v) x = negative(rng) ? -magnitude(rng) : magnitude(rng);
  };
  fill(a, m * k);
  fill(b, k * n);
  c.assign(static_cast<std::size_t>(m * n), 0.0f);
  reference.assign(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t p = 0; p < k; ++p) sum += static_cast<double>(a[i * k + p]) * b[p * n + j];
      reference[static_cast<std::size_t>(i * n + j)] = sum;
    }
  }
  ta = graph.tensor(TensorAttributes().set_name("A").set_uid(1).set_dim({m, k}).set_data_type(DataType::FLOAT));
  tb = graph.tensor(TensorAttributes().set_name("B").set_uid(2).set_dim({k, n}).set_data_type(DataType::FLOAT));
  tc = graph.matmul(ta, tb, "mm");
  tc->set_output(true).set_name("C").set_uid(3).set_data_type(DataType::FLOAT);
}

void MatmulProblem::poison() { std::fill(c.begin(), c.end(), std::numeric_limits<float>::quiet_NaN()); }

double MatmulProblem::max_relative_error() const {
  double worst = 0.0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double error = std::fabs(static_cast<double>(c[i]) - reference[i]) / std::max(1.0, std::fabs(reference[i]));
    if (std::isnan(error)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, error);
  }
  return worst;
}

}  // namespace tunekit::graph::test_provider
