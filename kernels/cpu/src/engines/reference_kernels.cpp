// Float loops of the reference engines: strided matmul (plain and blocked)
// and broadcasting pointwise operations (each element computed in double
// and rounded once).
#include "reference_kernels.hpp"

#include <algorithm>
#include <cmath>

namespace tunekit::cpu::reference {
namespace {

// Strides of in aligned to out's rank, 0 where in broadcasts.
std::vector<std::int64_t> broadcast_strides(const View& in, const View& out) {
  const std::size_t rank = out.dims.size();
  std::vector<std::int64_t> strides(rank, 0);
  const std::size_t offset = rank - std::min(rank, in.dims.size());
  for (std::size_t d = offset; d < rank; ++d) {
    const std::size_t k = d - offset;
    strides[d] = in.dims[k] == 1 ? 0 : in.strides[k];
  }
  return strides;
}

}  // namespace

View view_of(const graph::TensorAttributes& tensor, void* data) {
  return View{static_cast<float*>(data), tensor.get_dim(), tensor.get_stride()};
}

void matmul(const View& a, const View& b, const View& c, std::int64_t tile) {
  const std::int64_t m = a.dims[0], k = a.dims[1], n = b.dims[1];
  auto at = [](const View& v, std::int64_t i, std::int64_t j) -> float& {
    return v.data[i * v.strides[0] + j * v.strides[1]];
  };
  if (tile <= 0) {
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        // In double: the plain loop is the oracle other engines are checked against.
        double sum = 0.0;
        for (std::int64_t p = 0; p < k; ++p) sum += static_cast<double>(at(a, i, p)) * at(b, p, j);
        at(c, i, j) = static_cast<float>(sum);
      }
    }
    return;
  }
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) at(c, i, j) = 0.0f;
  }
  for (std::int64_t i0 = 0; i0 < m; i0 += tile) {
    const std::int64_t i1 = std::min(m, i0 + tile);
    for (std::int64_t p0 = 0; p0 < k; p0 += tile) {
      const std::int64_t p1 = std::min(k, p0 + tile);
      for (std::int64_t j0 = 0; j0 < n; j0 += tile) {
        const std::int64_t j1 = std::min(n, j0 + tile);
        for (std::int64_t i = i0; i < i1; ++i) {
          for (std::int64_t p = p0; p < p1; ++p) {
            const float x = at(a, i, p);
            for (std::int64_t j = j0; j < j1; ++j) at(c, i, j) += x * at(b, p, j);
          }
        }
      }
    }
  }
}

void pointwise(graph::PointwiseMode mode, const View& in0, const View* in1, const View& out) {
  const std::size_t rank = out.dims.size();
  const std::vector<std::int64_t> s0 = broadcast_strides(in0, out);
  const std::vector<std::int64_t> s1 = in1 ? broadcast_strides(*in1, out) : std::vector<std::int64_t>(rank, 0);
  std::int64_t total = 1;
  for (std::int64_t d : out.dims) total *= d;
  std::vector<std::int64_t> index(rank, 0);
  for (std::int64_t flat = 0; flat < total; ++flat) {
    std::int64_t o = 0, x = 0, y = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      o += index[d] * out.strides[d];
      x += index[d] * s0[d];
      y += index[d] * s1[d];
    }
    // Each element from the double definition, rounded once.
    out.data[o] = static_cast<float>(graph::apply_pointwise(mode, in0.data[x], in1 ? in1->data[y] : 0.0f));
    for (std::size_t d = rank; d-- > 0;) {
      if (++index[d] < out.dims[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace tunekit::cpu::reference
