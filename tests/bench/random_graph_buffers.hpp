// Benchmarks' buffers for a graph: every tensor it reads or writes, filled
// with random floats in [-1, 1) from a fixed seed, each starting on a cache
// line as the CPU device allocates them (tune's buffers): a kernel that
// reads vectors across lines runs at another speed on an offset buffer.
#pragma once

#include <cstdint>
#include <map>
#include <new>
#include <random>
#include <vector>

#include "tunekit/graph/graph.hpp"

namespace tunekit::bench {

template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64})); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t{64}); }
  friend bool operator==(const CacheLineAllocator&, const CacheLineAllocator&) { return true; }
};

struct RandomGraphBuffers {
  std::map<std::int64_t, std::vector<float, CacheLineAllocator<float>>> data;
  graph::VariantPack pack;
  explicit RandomGraphBuffers(const graph::OperationGraph& graph, unsigned seed = 3) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (std::int64_t uid : graph.required_uids()) {
      auto& values = data[uid];
      values.resize(static_cast<std::size_t>(graph.find_tensor(uid)->span_bytes().value()) / sizeof(float));
      for (float& x : values) x = u(rng);
      pack[uid] = values.data();
    }
  }
};

}  // namespace tunekit::bench
