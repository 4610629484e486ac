// The row loops of row_kernels.hpp written once in plain C++ that the
// compiler vectorizes: each loop keeps kLanes partial results in a fixed
// array (the includer sets kLanes to two vector registers of its
// instruction set), so that it needs no reassociation license. Included by
// each row_kernels_<isa>.cpp inside an anonymous namespace; it includes
// nothing and calls no inline function of a header (see tunekit/cpu/isa.hpp:
// an inline function compiled here could replace other files' copies).

inline float max_of(float a, float b) { return a > b ? a : b; }

// The total of N partial sums (N a power of two) by halves: each step adds
// the upper half onto the lower lane by lane, which the compiler does as
// vector adds. Added one after the other, each add waited for the last: 64
// partial sums took about 250 cycles, longer than the vector loop over a row
// of 768 floats (LayerNorm over 768 at 0.55 of oneDNN's speed on an Emerald
// Rapids).
template <int N>
inline float pairwise_total(float* lanes) {
  for (int width = N / 2; width >= 1; width /= 2) {
    for (int l = 0; l < width; ++l) lanes[l] += lanes[l + width];
  }
  return lanes[0];
}

// exp(x) for x <= 0 in the lanes of a loop: n = round(x / ln 2) by the
// 1.5 * 2^23 rounding trick, r = x - n ln 2 in two parts (|r| <= ln 2 / 2),
// exp(r) by its Taylor polynomial to degree 7 (truncation below 1e-8
// relative), then 2^n built in the exponent field. Below -87.3 (2^-126, the
// smallest normal float) the lane gives 0.
inline float exp_nonpositive(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693145751953125f;  // n * kLn2Hi is exact for |n| < 2^8
  constexpr float kLn2Lo = 1.42860682030941723212e-6f;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
  constexpr float kLowest = -87.3f;
  const float clamped = x < kLowest ? kLowest : x;
  const float n = (clamped * kLog2e + kRound) - kRound;
  const float r = (clamped - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const auto bits = static_cast<std::uint32_t>(static_cast<std::int32_t>(n) + 127) << 23;
  float two_n;
  __builtin_memcpy(&two_n, &bits, sizeof two_n);
  return x < kLowest ? 0.0f : p * two_n;
}

float shifted_sum(const float* x, std::int64_t n, float shift) {
  float lanes[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lanes[l] += x[i + l] - shift;
  }
  float total = pairwise_total<kLanes>(lanes);
  for (; i < n; ++i) total += x[i] - shift;
  return total;
}

float squared_deviation(const float* x, std::int64_t n, float center) {
  float lanes[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const float d = x[i + l] - center;
      lanes[l] += d * d;
    }
  }
  float total = pairwise_total<kLanes>(lanes);
  for (; i < n; ++i) total += (x[i] - center) * (x[i] - center);
  return total;
}

RowMoments two_pass_moments(const float* x, std::int64_t n) {
  const float mean = x[0] + shifted_sum(x, n, x[0]) / static_cast<float>(n);
  return {mean, squared_deviation(x, n, mean) / static_cast<float>(n)};
}

// The one-pass moments keep twice kLanes partial sums of each kind. With
// kLanes, GCC 12 vectorised the loop (two sums in its body) by shuffling
// single lanes, and it took 3.5x the two-pass kernel's time (rows of 768
// floats, Zen 3); with twice as many it is plain vector code, 0.95-1.9x as
// fast as oneDNN's LayerNorm. (The two-pass sums ran slower with twice as many.)
constexpr int kMomentLanes = 2 * kLanes;

RowMoments shifted_moments(const float* x, std::int64_t n) {
  const float shift = x[0];
  float s[kMomentLanes] = {}, q[kMomentLanes] = {};
  std::int64_t i = 0;
  for (; i + kMomentLanes <= n; i += kMomentLanes) {
    for (int l = 0; l < kMomentLanes; ++l) {
      const float d = x[i + l] - shift;
      s[l] += d;
      q[l] += d * d;
    }
  }
  float total = pairwise_total<kMomentLanes>(s), squares = pairwise_total<kMomentLanes>(q);
  for (; i < n; ++i) total += x[i] - shift, squares += (x[i] - shift) * (x[i] - shift);
  const float mean_shifted = total / static_cast<float>(n);
  const float variance = squares / static_cast<float>(n) - mean_shifted * mean_shifted;
  return {shift + mean_shifted, variance > 0.0f ? variance : 0.0f};
}

// The engines hand distinct buffers (a graph's inputs and outputs): restrict
// lets these loops vectorize without alias checks.
void normalize(const float* __restrict x, const float* __restrict scale_by, const float* __restrict shift,
               float mean, float inv, float* __restrict y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * inv * scale_by[i] + shift[i];
}

float mean_square(const float* x, std::int64_t n) {
  float lanes[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lanes[l] += x[i + l] * x[i + l];
  }
  float total = pairwise_total<kLanes>(lanes);
  for (; i < n; ++i) total += x[i] * x[i];
  return total / static_cast<float>(n);
}

void scale(const float* __restrict x, const float* __restrict scale_by, float inv, float* __restrict y,
           std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] * inv * scale_by[i];
}

float row_max(const float* x, std::int64_t n) {
  float lanes[kLanes];
  for (int l = 0; l < kLanes; ++l) lanes[l] = x[0];
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lanes[l] = max_of(lanes[l], x[i + l]);
  }
  for (int width = kLanes / 2; width >= 1; width /= 2) {
    for (int l = 0; l < width; ++l) lanes[l] = max_of(lanes[l], lanes[l + width]);
  }
  float best = lanes[0];
  for (; i < n; ++i) best = max_of(best, x[i]);
  return best;
}

// No restrict: y may be x (an in-place softmax). The exponentials are a
// loop of their own, with no sum beside them: written together, the
// compiler vectorised the exponentials but stored them lane by lane
// (0.74 of oneDNN's softmax on one thread of a Zen 3); the row is in the L1
// cache for the pass that sums it.
void softmax(const float* x, float* y, std::int64_t n) {
  const float largest = row_max(x, n);
  for (std::int64_t i = 0; i < n; ++i) y[i] = exp_nonpositive(x[i] - largest);
  const float inv = 1.0f / shifted_sum(y, n, 0.0f);
  for (std::int64_t j = 0; j < n; ++j) y[j] *= inv;
}
