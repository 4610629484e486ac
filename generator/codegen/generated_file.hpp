// Writing a generated file: an atomic replace that leaves a file with the
// same contents untouched, so regenerating an unchanged input does not make
// everything that includes it rebuild (the build tools treat an unchanged
// output as up to date).
#pragma once

#include <filesystem>
#include <string_view>

#include "tunekit/core/error.hpp"

namespace tunekit::codegen {

// Parent folders are created. IO_ERROR naming the path and step on failure.
Error write_generated_file(const std::filesystem::path& path, std::string_view contents);

}  // namespace tunekit::codegen
