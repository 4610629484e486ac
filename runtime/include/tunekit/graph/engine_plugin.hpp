// Engine providers from shared libraries loaded at run time. A plugin
// exports two C functions:
//
//   extern "C" int tunekit_engine_plugin_abi_version(void);
//       // kEnginePluginAbiVersion of the tunekit headers it was built with
//   extern "C" int tunekit_engine_plugin_register(tunekit::graph::EngineRegistry* registry,
//                                                 char* message, std::size_t message_size);
//       // adds its providers (registry->add_provider); 0 on success, else a
//       // reason written to message (NUL-terminated, at most message_size bytes)
//
// (TUNEKIT_ENGINE_PLUGIN declares both with C linkage and default
// visibility.) The registry crosses the boundary as a C++ object, so a
// plugin must be built with the same tunekit headers and compiler as the
// program; the ABI version says which headers. A loaded plugin stays loaded
// for the life of the process: its engines' code lives in it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tunekit/graph/engine_registry.hpp"

namespace tunekit::graph {

// Raised whenever EngineRegistry, EngineProvider, Engine or the types they
// pass change layout.
inline constexpr int kEnginePluginAbiVersion = 2;
// ':'-separated plugin files that programs load (tunekit tune does).
inline constexpr const char* kEnginePluginPathVariable = "TUNEKIT_ENGINE_PLUGIN_PATH";

#define TUNEKIT_ENGINE_PLUGIN_ABI_VERSION_FUNCTION extern "C" __attribute__((visibility("default"))) int tunekit_engine_plugin_abi_version()
#define TUNEKIT_ENGINE_PLUGIN_REGISTER_FUNCTION                                                       \
  extern "C" __attribute__((visibility("default"))) int tunekit_engine_plugin_register(             \
      tunekit::graph::EngineRegistry* registry, char* message, std::size_t message_size)

struct EnginePluginLoad {
  std::string path;
  bool loaded = false;
  std::string reason;             // why it was refused; empty when loaded
  std::size_t engines_added = 0;  // when loaded
};

// Loads each plugin in order into registry. A plugin that cannot be opened,
// lacks an entry point, was built for another ABI version, reports a failure,
// or whose engines clash with those registered (an id or a name taken) is
// refused with its reason and leaves registry as it was; the others load.
std::vector<EnginePluginLoad> load_engine_plugins(const std::vector<std::string>& paths, EngineRegistry& registry);

// The files named in TUNEKIT_ENGINE_PLUGIN_PATH, in order (empty entries skipped).
std::vector<std::string> engine_plugin_path();

}  // namespace tunekit::graph
