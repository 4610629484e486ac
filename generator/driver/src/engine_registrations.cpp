#include "engine_registrations.hpp"

#include <exception>
#include <string>

namespace tunekit::cli {

Error register_engines(const EngineRegistrations& registrations, graph::EngineRegistry& registry) {
  for (const driver::EngineRegistration& register_one : registrations) {
    if (!register_one) continue;
    try {
      TUNEKIT_RETURN_IF_ERROR(register_one(registry));
    } catch (const std::exception& e) {
      return Error(ErrorCode::INTERNAL, std::string("registering the engines failed: ") + e.what());
    }
  }
  return Error::ok();
}

}  // namespace tunekit::cli
