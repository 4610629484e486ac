// Loading engine plugins with dlopen: each registers into a copy of the
// registry, which replaces the registry only when the whole plugin
// registered, so a refused plugin leaves nothing behind.
#include "tunekit/graph/engine_plugin.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <array>
#include <cstdlib>
#include <string_view>

namespace tunekit::graph {
namespace {

using AbiVersionFunction = int (*)();
using RegisterFunction = int (*)(EngineRegistry*, char*, std::size_t);

EnginePluginLoad load_one(const std::string& path, EngineRegistry& registry) {
  EnginePluginLoad load{path, false, {}, 0};
  dlerror();
  // RTLD_LOCAL: a plugin's symbols never shadow the program's or another plugin's.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    load.reason = fmt::format("cannot be loaded: {}", error ? error : "unknown error");
    return load;
  }
  auto abi = reinterpret_cast<AbiVersionFunction>(dlsym(handle, "tunekit_engine_plugin_abi_version"));
  auto add = reinterpret_cast<RegisterFunction>(dlsym(handle, "tunekit_engine_plugin_register"));
  if (abi == nullptr || add == nullptr) {
    load.reason = fmt::format("does not export {}", abi == nullptr ? "tunekit_engine_plugin_abi_version"
                                                                   : "tunekit_engine_plugin_register");
    dlclose(handle);
    return load;
  }
  if (const int version = abi(); version != kEnginePluginAbiVersion) {
    load.reason = fmt::format("was built for engine plugin ABI {}, this program has ABI {}", version,
                              kEnginePluginAbiVersion);
    dlclose(handle);
    return load;
  }
  EngineRegistry candidate = registry;
  std::array<char, 512> message{};
  if (add(&candidate, message.data(), message.size()) != 0) {
    message.back() = '\0';
    load.reason = fmt::format("failed to register: {}", message[0] ? message.data() : "no reason given");
    // The plugin may have created objects whose code lives in it: keep it loaded.
    return load;
  }
  load.loaded = true;
  load.engines_added = candidate.size() - registry.size();
  registry = std::move(candidate);
  return load;
}

}  // namespace

std::vector<EnginePluginLoad> load_engine_plugins(const std::vector<std::string>& paths, EngineRegistry& registry) {
  std::vector<EnginePluginLoad> loads;
  for (const std::string& path : paths) loads.push_back(load_one(path, registry));
  return loads;
}

std::vector<std::string> engine_plugin_path() {
  std::vector<std::string> paths;
  const char* value = std::getenv(kEnginePluginPathVariable);
  if (value == nullptr) return paths;
  std::string_view rest(value);
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::string_view entry = rest.substr(0, colon);
    if (!entry.empty()) paths.emplace_back(entry);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return paths;
}

}  // namespace tunekit::graph
