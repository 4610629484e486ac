// Internal: schema validation messages as the tuning spec reports them. The
// schema says "portable default rejected: key <key>: parameter ..."; in the
// spec the place already says which default, and the key is only the one
// the rules were checked with, so both prefixes go.
#pragma once

#include <string>

#include "tunekit/core/error.hpp"
#include "tunekit/tuning/kernel_tuning_key.hpp"

namespace tunekit::tuning::spec_messages {

inline std::string rule_message(const Error& error, const KernelTuningKey& key) {
  std::string message = error.message();
  for (const std::string& prefix :
       {std::string("portable default rejected: "), std::string("portable defaults rejected: "),
        "key " + key.to_string() + ": "}) {
    if (auto at = message.find(prefix); at != std::string::npos) message.erase(at, prefix.size());
  }
  return message;
}

}  // namespace tunekit::tuning::spec_messages
