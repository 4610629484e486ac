// For kernels that learn their element type only from the first input: one
// immutable typed configuration per element type, resolved before that
// type's first run and read-only afterwards. After the first run of a type,
// get() is one acquire load: no lock, lookup or allocation.
#pragma once

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

#include "tunekit/tuning/tuning_session.hpp"

namespace tunekit::tuning {

template <typename Config>
class PerTypeTuning {
 public:
  using KeyForType = std::function<KernelTuningKey(DataType)>;

  // `binding` is kept by reference and must outlive this object (bindings are
  // usually function-local statics of the kernel library).
  PerTypeTuning(TuningSession session, const TuningBinding<Config>& binding, KeyForType key_for_type)
      : session_(std::move(session)), binding_(binding), key_for_type_(std::move(key_for_type)) {}
  PerTypeTuning(const PerTypeTuning&) = delete;
  PerTypeTuning& operator=(const PerTypeTuning&) = delete;

  // Throws TuningError when the resolved values fail validation (which
  // registration already rules out); the hot path after population never does.
  const Config& get(DataType type) {
    const std::size_t slot = static_cast<std::size_t>(type);
    if (const Config* ready = published_[slot].load(std::memory_order_acquire)) return *ready;
    return populate(slot, type);
  }

  bool populated(DataType type) const noexcept {
    return published_[static_cast<std::size_t>(type)].load(std::memory_order_acquire) != nullptr;
  }

 private:
  static constexpr std::size_t kTypes = 9;  // every DataType

  const Config& populate(std::size_t slot, DataType type) {
    std::lock_guard lock(mutex_);
    if (const Config* ready = published_[slot].load(std::memory_order_relaxed)) return *ready;
    owned_[slot] = std::make_unique<const Config>(session_.configure(binding_, key_for_type_(type)));
    published_[slot].store(owned_[slot].get(), std::memory_order_release);
    return *owned_[slot];
  }

  TuningSession session_;
  const TuningBinding<Config>& binding_;
  KeyForType key_for_type_;
  std::mutex mutex_;  // only taken before a type's first run
  std::array<std::unique_ptr<const Config>, kTypes> owned_;
  std::array<std::atomic<const Config*>, kTypes> published_{};
};

}  // namespace tunekit::tuning
