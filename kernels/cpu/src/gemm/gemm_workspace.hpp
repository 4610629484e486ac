// The grow-only buffers of the Gemm paths (packing, widening): each thread
// that calls Gemm keeps its own, so a steady run allocates nothing.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdlib>

#include "tunekit/core/error.hpp"

namespace tunekit::cpu::gemm_detail {

// A grow-only, 64-byte aligned buffer of the thread that runs the Gemm call;
// the parallel team gets its parts, so nothing allocates inside the team.
class Workspace {
 public:
  Workspace() = default;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace() { std::free(data_); }
  // At least `bytes` (rounded up to whole pages), or null when that cannot be allocated.
  void* get(std::size_t bytes) noexcept {
    if (bytes > capacity_) {
      std::free(data_);
      capacity_ = (bytes + 4095) / 4096 * 4096;
      data_ = std::aligned_alloc(64, capacity_);
      if (!data_) capacity_ = 0;
    }
    return data_;
  }

 private:
  void* data_ = nullptr;
  std::size_t capacity_ = 0;
};

inline Error out_of_memory(std::size_t bytes) {
  return {ErrorCode::EXECUTION_FAILED, fmt::format("Gemm: cannot allocate {} bytes of working buffer", bytes)};
}

}  // namespace tunekit::cpu::gemm_detail
