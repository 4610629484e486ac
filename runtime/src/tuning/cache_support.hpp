// Internal: what the cache update, load and export share: the path and
// registry an options struct names, the current execution, and which tuning
// ABIs are registered for a key's library, kernel, implementation, element
// type and device (to tell a stale entry from an unregistered one).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "tunekit/tuning/kernel_tuning_cache.hpp"

namespace tunekit::tuning::cache_support {

Result<std::filesystem::path> resolve_path(const KernelTuningCacheOptions& options);
KernelTuningRegistry& registry_of(const KernelTuningCacheOptions& options);
platform::CpuExecutionDescriptor current_execution(const KernelTuningCacheOptions& options);
// The file's bytes (nullopt when it does not exist), read under a shared lock
// unless options.read_only; when the lock cannot be taken the file is read
// without it (writers replace it by rename, so a read sees one version).
Result<std::optional<std::string>> read_cache_file(const std::filesystem::path& path,
                                                   const KernelTuningCacheOptions& options);

class RegisteredSchemas {
 public:
  explicit RegisteredSchemas(std::shared_ptr<const RegistryGeneration> generation);

  // The schema of exactly this key, or nullptr.
  const KernelTuningSchema* schema(const KernelTuningKey& key) const { return generation_->schema(key); }
  // Registered tuning ABIs of the key with its ABI ignored, ascending.
  std::vector<std::uint32_t> abis(const KernelTuningKey& key) const;
  // A schema is registered for the key under another ABI and none under its own.
  bool is_stale(const KernelTuningKey& key) const;
  // "registered tuning ABI 4, the entry has 3"
  std::string stale_reason(const KernelTuningKey& key) const;
  // Registered keys that have a schema, sorted.
  std::vector<KernelTuningKey> keys() const;
  const RegistryGeneration& generation() const { return *generation_; }

 private:
  using BaseKey = std::tuple<std::string, std::string, std::string, DataType, platform::DeviceKind>;
  static BaseKey base(const KernelTuningKey& key);
  std::shared_ptr<const RegistryGeneration> generation_;
  std::map<BaseKey, std::vector<std::uint32_t>> abis_;
};

}  // namespace tunekit::tuning::cache_support
