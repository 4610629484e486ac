// What a parsed tuning spec answers: its keys and the schema of each.
#include "tunekit/tuning/tuning_spec.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tunekit::tuning {

KernelTuningKey TuningSpec::key(const TuningSpecImplementation& implementation, const TuningSpecKernel& kernel,
                                DataType type) const {
  return {library, kernel.kernel, implementation.implementation, type, implementation.device, tuning_abi};
}

std::vector<KernelTuningKey> TuningSpec::keys() const {
  std::vector<KernelTuningKey> out;
  for (const TuningSpecImplementation& implementation : implementations) {
    for (const TuningSpecKernel& kernel : implementation.kernels) {
      for (DataType type : kernel.element_types) out.push_back(key(implementation, kernel, type));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

const TuningSpecImplementation* TuningSpec::find(const KernelTuningKey& wanted) const {
  if (wanted.library != library || wanted.tuning_abi != tuning_abi) return nullptr;
  for (const TuningSpecImplementation& implementation : implementations) {
    if (implementation.implementation != wanted.implementation || implementation.device != wanted.device) continue;
    for (const TuningSpecKernel& kernel : implementation.kernels) {
      if (kernel.kernel == wanted.kernel &&
          std::find(kernel.element_types.begin(), kernel.element_types.end(), wanted.element_type) !=
              kernel.element_types.end()) {
        return &implementation;
      }
    }
  }
  return nullptr;
}

Result<KernelTuningSchema> TuningSpec::schema(const KernelTuningKey& key) const {
  const TuningSpecImplementation* implementation = find(key);
  if (implementation == nullptr) {
    return Error(ErrorCode::NOT_SUPPORTED,
                 fmt::format("{}: key {} is not declared by the tuning spec of {} (tuning ABI {})", source,
                             key.to_string(), library, tuning_abi));
  }
  std::vector<ParameterSpec> specs;
  for (const TuningSpecParameter& parameter : implementation->parameters) specs.push_back(parameter.spec);
  return KernelTuningSchema(key, std::move(specs), implementation->constraints);
}

std::vector<KernelTuningSchema> TuningSpec::schemas() const {
  std::vector<KernelTuningSchema> out;
  for (const KernelTuningKey& key : keys()) out.push_back(*schema(key));
  return out;
}

Error TuningSpec::validate(const KernelTuningParameters& parameters) const {
  Result<KernelTuningSchema> found = schema(parameters.key);
  if (!found.ok()) return found.error();
  return found->validate(parameters);
}

}  // namespace tunekit::tuning
