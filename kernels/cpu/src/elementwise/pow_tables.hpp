// The tables of the vector Pows (pow_lanes.inl): log of the bins of the
// mantissa range (128 for double, 16 for float) and 2^(j/bins), built once
// per including file on first use. Everything here has internal linkage:
// each instruction-set file gets its own copy, so no file's code can stand
// in for another's (tunekit/cpu/isa.hpp).
#pragma once

#include <math.h>

#include <cstdint>
#include <cstring>

namespace tunekit::cpu::detail {
namespace {

// ln 2 as a double-double (the leading 53 and the next 53 bits).
constexpr double kLn2Hi = 0x1.62e42fefa39efp-1;
constexpr double kLn2Lo = 0x1.abc9e3b39803fp-56;

// binary128 arithmetic (libgcc's soft float, no library call) for the
// tables' logarithms: y log x multiplies their error by up to 708 / |log x|,
// so the 64 bits of long double left a quarter of an ULP in results near
// the overflow threshold.
__extension__ typedef __float128 Quad;

// log v = 2 atanh(u), u = (v - 1) / (v + 1): |u| < 0.18 for v in
// [0.705, 1.42], so 24 odd terms reach below 2^-118.
Quad log_quad(double v) {
  const Quad u = (Quad(v) - 1) / (Quad(v) + 1);
  const Quad u2 = u * u;
  Quad power = u, sum = 0;
  for (int k = 1; k < 48; k += 2) {
    sum += power / k;
    power *= u2;
  }
  return 2 * sum;
}

double with_low_bits_cleared(double x, int bits) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  u &= ~((std::uint64_t{1} << bits) - 1);
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// Bins of the mantissa range of log: 2^BinBits of them over the bit patterns
// from about 0.705 to 1.41, with 1 in the middle of its bin (an odd number
// of half bins below it; 75.5 bins of 128, 9.5 of 16), so that the bin of 1
// has c = 1 and |r| within half a bin, and in the bins beside it |log c| is
// at most twice |log x|: never a cancellation of more than one bit.
template <int BinBits>
struct PowTablesOf {
  static constexpr int kBinBits = BinBits;
  static constexpr int kBins = 1 << BinBits;
  static constexpr std::uint64_t kHalfBinsBelowOne = static_cast<std::uint64_t>(0.295 * (4 << BinBits)) | 1u;
  static constexpr std::uint64_t kRangeStartBits = 0x3FF0000000000000ull - (kHalfBinsBelowOne << (51 - BinBits));
  alignas(64) double inverse_c[kBins];
  alignas(64) double log_c_hi[kBins];
  alignas(64) double log_c_lo[kBins];
  alignas(64) double exp2_hi[kBins];  // 2^(j/bins) to the 64 bits of exp2l:
  alignas(64) double exp2_lo[kBins];  // 2^-64 of relative error, 0.001 ULP
  // ln 2 with its leading part short enough that e * hi is exact for every
  // exponent e (|e| < 2^11), and ln 2 / bins with a leading part for which
  // k * hi is exact for |k| < 2^18.
  double ln2_short_hi, ln2_short_lo, ln2_per_bin_hi, ln2_per_bin_lo;

  PowTablesOf() {
    for (int i = 0; i < kBins; ++i) {
      // The bin's middle: the mantissa bit pattern halfway through it.
      const std::uint64_t middle_bits =
          kRangeStartBits + (static_cast<std::uint64_t>(i) << (52 - kBinBits)) + (std::uint64_t{1} << (51 - kBinBits));
      const std::uint64_t low_bits = kRangeStartBits + (static_cast<std::uint64_t>(i) << (52 - kBinBits));
      const std::uint64_t high_bits = low_bits + (std::uint64_t{1} << (52 - kBinBits));
      double middle, low, high;
      std::memcpy(&middle, &middle_bits, sizeof middle);
      std::memcpy(&low, &low_bits, sizeof low);
      std::memcpy(&high, &high_bits, sizeof high);
      const bool holds_one = low <= 1.0 && 1.0 < high;
      const double c = holds_one ? 1.0 : middle;
      inverse_c[i] = 1.0 / c;
      // log c = -log(1/c) exactly for the double 1/c used: r is formed from it.
      const Quad log_c = -log_quad(inverse_c[i]);
      log_c_hi[i] = static_cast<double>(log_c);
      log_c_lo[i] = static_cast<double>(log_c - Quad(log_c_hi[i]));
      const long double power = exp2l(static_cast<long double>(i) / kBins);
      exp2_hi[i] = static_cast<double>(power);
      exp2_lo[i] = static_cast<double>(power - static_cast<long double>(exp2_hi[i]));
    }
    ln2_short_hi = with_low_bits_cleared(kLn2Hi, 12);
    ln2_short_lo = (kLn2Hi - ln2_short_hi) + kLn2Lo;
    ln2_per_bin_hi = with_low_bits_cleared(kLn2Hi / kBins, 19);
    ln2_per_bin_lo = (kLn2Hi / kBins - ln2_per_bin_hi) + kLn2Lo / kBins;
  }
};

// The double Pow's tables, and the float Pow's 16 bins (pow_lanes.inl):
// few enough for a register permute instead of a gather on AVX-512.
using PowTables = PowTablesOf<7>;
using FloatPowTables = PowTablesOf<4>;
static_assert(PowTables::kHalfBinsBelowOne == 151 && FloatPowTables::kHalfBinsBelowOne == 19);

template <class Tables = PowTables>
const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace
}  // namespace tunekit::cpu::detail
