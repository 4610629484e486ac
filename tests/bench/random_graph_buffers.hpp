// Benchmarks' buffers for a graph: every tensor it reads or writes, filled
// with random values in [-1, 1) from a fixed seed (float, or rounded to the
// tensor's float16 or bfloat16), each starting on a cache
// line as the CPU device allocates them (tune's buffers): a kernel that
// reads vectors across lines runs at another speed on an offset buffer.
#pragma once

#include <cstdint>
#include <map>
#include <new>
#include <random>
#include <vector>

#include "tunekit/core/half_precision.hpp"
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
      const graph::Tensor tensor = graph.find_tensor(uid);
      const auto bytes = static_cast<std::size_t>(tensor->span_bytes().value());
      const core::DataType type = tensor->get_data_type().value_or(core::DataType::FLOAT);
      auto& values = data[uid];
      values.resize((bytes + sizeof(float) - 1) / sizeof(float));
      if (type == core::DataType::FLOAT16 || type == core::DataType::BFLOAT16) {
        auto* halves = reinterpret_cast<std::uint16_t*>(values.data());
        for (std::size_t i = 0; i < bytes / 2; ++i) {
          halves[i] = type == core::DataType::BFLOAT16 ? core::float_to_bfloat16(u(rng)) : core::float_to_float16(u(rng));
        }
      } else {
        for (float& x : values) x = u(rng);
      }
      pack[uid] = values.data();
    }
  }
};

}  // namespace tunekit::bench
