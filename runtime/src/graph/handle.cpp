// Handle creation: a stream of its own on the device, plus the registry.
#include "tunekit/graph/handle.hpp"

#include <utility>

#include "tunekit/graph/engine_registry.hpp"

namespace tunekit::graph {

Handle::Handle(platform::Device& device, std::shared_ptr<const EngineRegistry> registry,
               std::unique_ptr<platform::Stream> own_stream)
    : device_(&device), registry_(std::move(registry)), own_stream_(std::move(own_stream)) {}

Result<std::unique_ptr<Handle>> Handle::create(platform::Device& device,
                                               std::shared_ptr<const EngineRegistry> registry) {
  if (!registry) return Error(ErrorCode::INVALID_VALUE, "handle: no engine registry was given");
  Result<std::unique_ptr<platform::Stream>> stream = device.create_stream();
  if (!stream.ok()) return stream.error();
  return std::unique_ptr<Handle>(new Handle(device, std::move(registry), std::move(stream).value()));
}

}  // namespace tunekit::graph
