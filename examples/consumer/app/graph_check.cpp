// A matmul graph in the application: read from its graph file, planned by
// create_execution_plans() (which puts the engine of a matching override
// entry first, with its stored knobs, else keeps the heuristic order),
// executed on random inputs and checked against a double-precision product.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "checks.hpp"
#include "consumer/engines.hpp"
#include "tunekit/graph/graph_buffers.hpp"
#include "tunekit/graph/graph_file.hpp"
#include "tunekit/graph/handle.hpp"
#include "tunekit/graph/override_policy.hpp"
#include "tunekit/graph/override_query.hpp"
#include "tunekit/platform/cpu_device.hpp"

namespace consumer_app {
namespace {

namespace graph = tunekit::graph;
using tunekit::Error;

constexpr std::int64_t kMemoryBudget = std::int64_t{256} << 20;

// Where the selection came from: the override entry the policy matched for
// this graph (the same lookup create_execution_plans makes), or the heuristic order.
std::string selection_origin(const graph::Graph& g, const graph::EngineRegistry& registry,
                             const tunekit::platform::Device& device, const std::string& selected_engine) {
  std::shared_ptr<const graph::OverrideIndex> index = graph::OverridePolicy::process().refresh_from_environment();
  if (!index) return "heuristic order: no override file or embedded overrides are loaded";
  tunekit::Result<graph::OverrideQuery> query = graph::make_override_query(g.operation_graph());
  if (!query.ok()) return "heuristic order: " + query.error().message();
  graph::OverrideLookupContext context;
  context.registry = &registry;
  context.device_signature = device.signature();
  const std::optional<graph::OverrideMatch> match = index->lookup(*query, context);
  if (!match) return fmt::format("heuristic order: none of the {} override entries matches", index->entry_count());
  if (match->engine_name != selected_engine) {
    return fmt::format("heuristic order: override entry {} of {} names '{}', which did not build here",
                       match->entry->index, match->file, match->engine_name);
  }
  return fmt::format("override entry {} of {}, {}", match->entry->index, match->file,
                     match->exact ? "exact" : "wildcard");
}

struct MatmulTensors {
  graph::Tensor a, b, c;
};

// C[i, j] = sum_p A[i, p] B[p, j] in double; |C - reference| within a
// float accumulation's error bound for k terms.
int compare(const MatmulTensors& t, const float* a, const float* b, const float* c) {
  const std::int64_t m = t.a->get_dim()[0], k = t.a->get_dim()[1], n = t.b->get_dim()[1];
  const double bound = 2.0 * static_cast<double>(k) * 1.2e-7;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double expected = 0.0, magnitude = 0.0;
      for (std::int64_t p = 0; p < k; ++p) {
        expected += static_cast<double>(a[i * k + p]) * b[p * n + j];
        magnitude += std::fabs(static_cast<double>(a[i * k + p]) * b[p * n + j]);
      }
      const double actual = c[i * n + j];
      if (!(std::fabs(actual - expected) <= bound * std::max(1.0, magnitude))) {
        fmt::print(stderr, "matmul: C[{}, {}] = {}, expected {}\n", i, j, actual, expected);
        return 1;
      }
    }
  }
  return 0;
}

int fail(const std::string& step, const Error& e) {
  fmt::print(stderr, "matmul graph: {}: {}\n", step, e.message());
  return 1;
}

}  // namespace

int check_matmul_graph(const std::filesystem::path& graph_file, std::string_view engines_name,
                       RegisterEngines register_engines) {
  tunekit::Result<graph::GraphFile> file = graph::read_graph_file(graph_file);
  if (!file.ok()) return fail("reading", file.error());
  tunekit::Result<graph::Graph> made = graph::make_graph(*file);
  if (!made.ok()) return fail("making the graph", made.error());
  graph::Graph& g = *made;

  auto registry = std::make_shared<graph::EngineRegistry>();
  if (Error e = register_engines(*registry); e.is_bad()) return fail("registering the engines", e);
  tunekit::platform::CpuDevice device;
  tunekit::Result<std::unique_ptr<graph::Handle>> handle = graph::Handle::create(device, registry);
  if (!handle.ok()) return fail("creating the handle", handle.error());
  if (Error e = g.build(handle->get()); e.is_bad()) return fail("building", e);

  // build() compiles in the planned order and runs the first plan that built.
  std::int64_t selected = -1, workspace = 0;
  for (std::int64_t i = 0; i < g.get_execution_plan_count() && selected < 0; ++i) {
    if (g.get_workspace_size_plan_at_index(i, workspace).is_good()) selected = i;
  }
  std::string plan_name;
  if (Error e = g.get_plan_name_at_index(selected, plan_name); e.is_bad()) return fail("naming the plan", e);
  const std::string engine = plan_name.substr(0, plan_name.find('['));
  fmt::print("graph {} with {}: selected engine: {} (from {})\n",
             file->name.empty() ? graph_file.string() : file->name, engines_name, plan_name,
             selection_origin(g, *registry, device, engine));

  tunekit::Result<graph::GraphBuffers> buffers =
      graph::allocate_graph_buffers(g.operation_graph(), device, workspace, kMemoryBudget);
  if (!buffers.ok()) return fail("allocating", buffers.error());
  const graph::Operation& op = g.operation_graph().operations().at(0);
  const MatmulTensors t{op.input("A"), op.input("B"), op.output("C")};
  auto data = [&](const graph::Tensor& tensor) { return static_cast<float*>(buffers->pack.at(tensor->get_uid())); };
  std::mt19937 random(2024);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (const graph::Tensor& input : {t.a, t.b}) {
    const std::int64_t count = input->span_elements().value();
    std::generate(data(input), data(input) + count, [&] { return uniform(random); });
  }
  const std::int64_t outputs = t.c->span_elements().value();
  std::fill(data(t.c), data(t.c) + outputs, std::nanf(""));
  if (Error e = g.execute(handle->get(), buffers->pack, buffers->workspace); e.is_bad()) return fail("executing", e);
  if (compare(t, data(t.a), data(t.b), data(t.c)) != 0) return 1;
  fmt::print("graph {}: C[{}, {}] matches the double-precision reference\n", file->name, t.c->get_dim()[0],
             t.c->get_dim()[1]);
  return 0;
}

}  // namespace consumer_app
