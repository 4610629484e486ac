// The Handle: what a graph runs on. It carries the device, the stream that
// execution and autotuning use (the analogue of hipdnnSetStream) and the
// engine registry the graph discovers engines in.
#pragma once

#include <memory>

#include "tunekit/core/result.hpp"
#include "tunekit/platform/device.hpp"

namespace tunekit::graph {

class EngineRegistry;

class Handle {
 public:
  // Creates a handle with a stream of its own on device. The device and the
  // registry must outlive the handle.
  static Result<std::unique_ptr<Handle>> create(platform::Device& device,
                                                std::shared_ptr<const EngineRegistry> registry);

  platform::Device& device() const noexcept { return *device_; }
  const EngineRegistry& registry() const noexcept { return *registry_; }
  std::shared_ptr<const EngineRegistry> registry_ptr() const noexcept { return registry_; }

  // The stream work is submitted to: the one set by set_stream, else the
  // handle's own stream.
  platform::Stream& stream() const noexcept { return user_stream_ ? *user_stream_ : *own_stream_; }
  // Uses stream (not owned; must outlive its use) from now on; null restores
  // the handle's own stream.
  void set_stream(platform::Stream* stream) noexcept { user_stream_ = stream; }

 private:
  Handle(platform::Device& device, std::shared_ptr<const EngineRegistry> registry,
         std::unique_ptr<platform::Stream> own_stream);

  platform::Device* device_;
  std::shared_ptr<const EngineRegistry> registry_;
  std::unique_ptr<platform::Stream> own_stream_;
  platform::Stream* user_stream_ = nullptr;
};

}  // namespace tunekit::graph
