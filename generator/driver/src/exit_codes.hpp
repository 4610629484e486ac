// The exit codes of the tunekit tool (README, "Exit codes"), and the one rule
// that turns a library error met while writing an output into one of them, so
// that every subcommand reports an unwritable output the same way.
#pragma once

#include <cstdio>

#include "tunekit/core/error.hpp"

namespace tunekit::cli {

inline constexpr int kSuccess = 0;
inline constexpr int kTuningFailure = 1;
inline constexpr int kBadInput = 2;       // bad usage or bad input
inline constexpr int kOutputFailure = 3;  // an output could not be written

// The exit code of `error`, met while writing an output file: an I/O failure
// (IO_ERROR; the store's messages name the path, the step and the system's
// reason) is kOutputFailure, any other error (a refusal, a lock timeout, a
// rejected entry) is `otherwise`, the command's code for that failure.
int output_exit_code(const Error& error, int otherwise);

// Standard output is an output too: flushes it and, when a write to it failed
// (a full disk, a closed descriptor), prints the system's reason on standard
// error and turns a successful `exit_code` into kOutputFailure.
int finish_standard_output(int exit_code, std::FILE* out = stdout);

}  // namespace tunekit::cli
