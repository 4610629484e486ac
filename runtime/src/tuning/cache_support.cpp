// Paths, registry and execution of cache options; registered ABIs by key.
#include "cache_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "tunekit/core/log.hpp"
#include "tunekit/store/atomic_file.hpp"
#include "tunekit/store/file_lock.hpp"

namespace tunekit::tuning {

Result<std::filesystem::path> default_cache_path() {
  const auto variable = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value ? std::string(value) : std::string();
  };
  if (std::string path = variable("TUNEKIT_CACHE_PATH"); !path.empty()) return std::filesystem::path(path);
  const std::filesystem::path relative = std::filesystem::path("tunekit") / "kernel_tuning.toml";
  if (std::filesystem::path xdg = variable("XDG_CACHE_HOME"); xdg.is_absolute()) return xdg / relative;
  if (std::filesystem::path home = variable("HOME"); home.is_absolute()) return home / ".cache" / relative;
  return Error(ErrorCode::INVALID_VALUE,
               "no cache path: set TUNEKIT_CACHE_PATH, XDG_CACHE_HOME (absolute) or HOME, or pass a path");
}

namespace cache_support {

Result<std::filesystem::path> resolve_path(const KernelTuningCacheOptions& options) {
  if (options.path) {
    if (options.path->empty()) return Error(ErrorCode::INVALID_VALUE, "the cache path option is empty");
    return *options.path;
  }
  return default_cache_path();
}

KernelTuningRegistry& registry_of(const KernelTuningCacheOptions& options) {
  return options.registry ? *options.registry : KernelTuningRegistry::global();
}

platform::CpuExecutionDescriptor current_execution(const KernelTuningCacheOptions& options) {
  return options.execution ? *options.execution : platform::detect_execution_descriptor();
}

Result<std::optional<std::string>> read_cache_file(const std::filesystem::path& path,
                                                   const KernelTuningCacheOptions& options) {
  std::optional<store::FileLock> lock;
  std::error_code ec;
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (!options.read_only && std::filesystem::is_directory(folder, ec)) {
    Result<store::FileLock> acquired = store::FileLock::acquire(path, options.lock_timeout, store::LockMode::SHARED);
    if (acquired.ok()) {
      lock.emplace(std::move(*acquired));
    } else {
      log::debug("cache: reading {} without the lock: {}", path.string(), acquired.error().message());
    }
  }
  return store::read_file_if_exists(path);
}

RegisteredSchemas::RegisteredSchemas(std::shared_ptr<const RegistryGeneration> generation)
    : generation_(std::move(generation)) {
  for (const KernelTuningKey& key : generation_->keys()) {
    if (!generation_->schema(key)) continue;
    auto& list = abis_[base(key)];
    list.push_back(key.tuning_abi);
    std::sort(list.begin(), list.end());
  }
}

RegisteredSchemas::BaseKey RegisteredSchemas::base(const KernelTuningKey& key) {
  return {key.library, key.kernel, key.implementation, key.element_type, key.device};
}

std::vector<std::uint32_t> RegisteredSchemas::abis(const KernelTuningKey& key) const {
  auto found = abis_.find(base(key));
  return found == abis_.end() ? std::vector<std::uint32_t>{} : found->second;
}

bool RegisteredSchemas::is_stale(const KernelTuningKey& key) const {
  const std::vector<std::uint32_t> registered = abis(key);
  return !registered.empty() &&
         std::find(registered.begin(), registered.end(), key.tuning_abi) == registered.end();
}

std::string RegisteredSchemas::stale_reason(const KernelTuningKey& key) const {
  return fmt::format("registered tuning ABI {}, the entry has {}", fmt::join(abis(key), ","), key.tuning_abi);
}

std::vector<KernelTuningKey> RegisteredSchemas::keys() const {
  std::vector<KernelTuningKey> keys;
  for (const KernelTuningKey& key : generation_->keys()) {
    if (generation_->schema(key)) keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace cache_support
}  // namespace tunekit::tuning
