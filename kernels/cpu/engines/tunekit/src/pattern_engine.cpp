// The checks every engine's kernels make.
#include "tunekit/engines/pattern_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "tunekit/platform/cpu_device.hpp"

namespace tunekit::engines {

int engine_threads(const platform::Device& device, std::int64_t requested) noexcept {
  std::int64_t available = 1;
  if (const auto* cpu = dynamic_cast<const platform::CpuDevice*>(&device)) {
    available = std::max<std::int64_t>(1, cpu->execution().effective_threads);
  }
  if (requested > 0) available = std::min(available, requested);
  return static_cast<int>(std::min<std::int64_t>(available, INT_MAX));
}

Error check_workspace(const graph::ExecutionArguments& args, std::int64_t needed) {
  if (needed > 0 && (args.workspace == nullptr || args.workspace_size < needed)) {
    return {ErrorCode::INVALID_VALUE, fmt::format("needs {} bytes of workspace, got {}", needed, args.workspace_size)};
  }
  return Error::ok();
}

Result<void*> find_buffer(const graph::VariantPack& pack, std::int64_t uid, const char* what) {
  auto it = pack.find(uid);
  if (it == pack.end() || it->second == nullptr) {
    return Error(ErrorCode::INVALID_VALUE, fmt::format("the variant pack has no buffer for {} (uid {})", what, uid));
  }
  return it->second;
}

bool same_tensor(const graph::Tensor& x, const graph::Tensor& y) noexcept {
  if (x == y) return true;
  return x && y && x->get_uid() >= 0 && x->get_uid() == y->get_uid();
}

bool is_dense_float(const graph::Tensor& t) noexcept { return is_dense(t) && t->get_data_type() == DataType::FLOAT; }

bool is_dense(const graph::Tensor& t) noexcept {
  if (!t) return false;
  const auto& dims = t->get_dim();
  const auto& strides = t->get_stride();
  std::int64_t expected = 1;
  for (std::size_t i = dims.size(); i-- > 0;) {
    if (dims[i] != 1 && strides[i] != expected) return false;
    expected *= dims[i];
  }
  return true;
}

Error not_supported(std::string why) { return {ErrorCode::NOT_SUPPORTED, std::move(why)}; }

Error require_device(platform::DeviceKind wanted, const platform::Device& device) {
  if (device.kind() == wanted) return Error::ok();
  if (wanted == platform::DeviceKind::CPU) return not_supported("runs on the CPU only");
  return not_supported(fmt::format("runs on a {} device, not on {} ({})",
                                   wanted == platform::DeviceKind::HIP ? std::string_view("HIP") : platform::to_string(wanted),
                                   platform::to_string(device.kind()), device.name()));
}

Error check_dense_float_ports(const graph::Operation& op, std::initializer_list<const char*> inputs,
                              std::initializer_list<const char*> outputs) {
  for (const char* port : inputs) {
    const graph::Tensor t = op.input(port);
    if (!is_dense_float(t) || t->get_is_virtual()) {
      return not_supported(fmt::format("{} must be a densely packed float input", port));
    }
  }
  for (const char* port : outputs) {
    const graph::Tensor t = op.output(port);
    if (t && (!is_dense_float(t) || t->get_is_virtual())) {
      return not_supported(fmt::format("{} must be a densely packed float output of the graph", port));
    }
  }
  return Error::ok();
}

Result<float*> float_buffer(const graph::VariantPack& pack, std::int64_t uid, const char* what) {
  if (uid < 0) return static_cast<float*>(nullptr);
  Result<void*> buffer = find_buffer(pack, uid, what);
  if (!buffer.ok()) return buffer.error();
  return static_cast<float*>(*buffer);
}

}  // namespace tunekit::engines
