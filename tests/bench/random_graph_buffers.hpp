// Benchmarks' buffers for a graph: every tensor it reads or writes, filled
// with random floats in [-1, 1) from a fixed seed.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "tunekit/graph/graph.hpp"

namespace tunekit::bench {

struct RandomGraphBuffers {
  std::map<std::int64_t, std::vector<float>> data;
  graph::VariantPack pack;
  explicit RandomGraphBuffers(const graph::OperationGraph& graph, unsigned seed = 3) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (std::int64_t uid : graph.required_uids()) {
      std::vector<float>& values = data[uid];
      values.resize(static_cast<std::size_t>(graph.find_tensor(uid)->span_bytes().value()) / sizeof(float));
      for (float& x : values) x = u(rng);
      pack[uid] = values.data();
    }
  }
};

}  // namespace tunekit::bench
