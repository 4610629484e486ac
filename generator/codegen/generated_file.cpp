// Generated files are rewritten only when their contents change.
#include "generated_file.hpp"

#include "tunekit/store/atomic_file.hpp"

namespace tunekit::codegen {

Error write_generated_file(const std::filesystem::path& path, std::string_view contents) {
  Result<std::optional<std::string>> existing = store::read_file_if_exists(path);
  if (existing.ok() && existing->has_value() && **existing == contents) return Error::ok();
  store::AtomicWriteOptions options;
  options.create_parent_folders = true;
  return store::write_file_atomically(path, contents, options);
}

}  // namespace tunekit::codegen
