// The vector Pows of float and double, written once over a policy of
// double lanes: included by unary_avx512.cpp (8 lanes) and unary_avx2.cpp
// (4 lanes) inside their anonymous namespaces, after pow_tables.hpp. Both
// compute pow(|x|, y) = exp(y log|x|) in double and apply pow's sign rule
// to a negative base (apply_base_sign: NaN unless y is an integer, negated
// for odd y); lanes outside the vector domain take the C library's
// powf or pow, from the loaded operands (the output may be an operand).
//
// Float (pow_float_lanes). A float result needs y log|x| to about 2^-35
// absolute (|y log|x|| is at most 104 where the result is neither 0 nor
// infinite), so plain double arithmetic does: the operands are widened to
// double (a float's subnormals are normal doubles), log|x| = e ln2 + log c
// + log1p(r) over 16 bins (|r| < 2^-5; a degree-8 Taylor series leaves
// below 2^-43 of log|x|, relatively, also in the bin of 1, whose c is
// exactly 1), then exp z = 2^(k/16) (1 + p(s)) with |s| <= ln2/32 and a
// degree-5 series (2^-42). z is clamped to [-120, 120]: exp of either end
// rounds to 0 or infinity in float, as pow would. The double result is
// rounded once to float. With 16 bins the AVX-512 policy looks the tables
// up with a permute of two registers, which costs the same as a gather on
// the Intel machine measured and does not depend on how a processor
// implements gathers. Zero, infinite or NaN bases and infinite or NaN
// exponents take powf.
//
// Double (pow_double_lanes). log|x| is carried as a double-double, so that
// z = y log|x| has an absolute error far below 2^-53 up to the overflow
// threshold, where a plain double log would leave an error of |z| ULP
// (hundreds near 1e300). 128 bins, each with c near its middle (exactly 1
// in the bin of 1: |y| may be as large as 708 / |log x|, and it multiplies
// every absolute error of log x) and log c as a double-double from
// binary128; r = m / c - 1 formed exactly as a double-double from m * (1/c)
// and its FMA residual; log(1 + r) a degree-9 Taylor series (|r| < 2^-7.5,
// truncation below 2^-70) whose quadratic term is exact. exp z: z = k ln2 /
// 128 + s with |s| <= ln2/256, 2^(k/128) to 2^-64 from the table times a
// degree-6 series of exp(s) - 1, scaled by 2^(k/128 rounded down). Zero,
// infinite or NaN operands and |z| of 708 or more (overflow, subnormal
// results) take pow. The bound the tests assert (0.52 ULP) is measured,
// not derived.
//
// The policy P provides, besides unary_math.inl's operations: fms (a * b -
// c) and fnma (c - a * b), each with one rounding; I (64-bit
// integer lanes) with bits, from_bits, add_i, sub_i, and_i, or_i, set_i,
// shift_right<N> and shift_left<N> (logical); gather (a double table by
// I) and lookup16 (a 16-entry double table, 64-byte aligned, by the low 4
// bits of I); regular(ax, ay, inf) (0 < ax < inf and ay < inf), both (a
// mask's and), lane_bits (a mask's lanes as the low bits of an unsigned);
// and the memory: load_doubles(p, count) and
// load_floats(p, count) (lanes past count hold 1), store_doubles and
// store_floats (count lanes), broadcast_float, widen, narrow (float <->
// double), spill / fill (all lanes to and from an aligned array, doubles
// or floats).

// x = 2^e m for positive finite normal x, m in the bins' range [0.705,
// 1.41): e as a double, m, and m's bin.
template <class P, class Tables>
void split_for_log(typename P::V x, typename P::V& e, typename P::V& m, typename P::I& bin) {
  using I = typename P::I;
  const I bits = P::bits(x);
  const I offset = P::sub_i(bits, P::set_i(static_cast<long long>(Tables::kRangeStartBits)));
  // e + 1024 is positive for every positive finite double, so a logical
  // shift of the offset biased by 1024 << 52 is the arithmetic shift of it.
  const I biased_exponent = P::template shift_right<52>(P::add_i(offset, P::set_i(1024LL << 52)));
  bin = P::and_i(P::template shift_right<52 - Tables::kBinBits>(offset), P::set_i(Tables::kBins - 1));
  m = P::from_bits(P::sub_i(bits, P::template shift_left<52>(P::sub_i(biased_exponent, P::set_i(1024)))));
  const typename P::V two52 = P::set(0x1p52);  // 2^52 + a small integer: the integer in the low bits
  e = P::sub(P::sub(P::from_bits(P::or_i(biased_exponent, P::bits(two52))), two52), P::set(1024.0));
}

// For integral k (|k| < 2^39): the table index of 2^(k/bins), k mod bins,
// and the power 2^floor(k / bins) (a normal double).
template <class P, class Tables>
void split_for_exp(typename P::V k, typename P::I& j, typename P::V& power) {
  using I = typename P::I;
  const typename P::V shifter = P::set(0x1.8p52);
  const I ki = P::sub_i(P::bits(P::add(k, shifter)), P::bits(shifter));
  j = P::and_i(ki, P::set_i(Tables::kBins - 1));
  // floor(k / bins) by a logical shift of k + 2^40, then the bias removed.
  const I scale = P::sub_i(P::template shift_right<Tables::kBinBits>(P::add_i(ki, P::set_i(1LL << 40))),
                           P::set_i(1LL << (40 - Tables::kBinBits)));
  power = P::from_bits(P::template shift_left<52>(P::add_i(scale, P::set_i(1023))));
}

// pow's sign rule for pow(|x|, y) = magnitude: a negative finite base gives
// NaN unless y is an integer, and the negated magnitude when y is odd (an
// integer whose half is not one; every |y| >= 2^53 is even). P::round is
// the hardware's rounding here, exact for every double.
template <class P>
typename P::V apply_base_sign(typename P::V x, typename P::V y, typename P::V magnitude) {
  using V = typename P::V;
  const typename P::M negative = P::lt(x, P::set(0.0));
  if (!P::any(negative)) return magnitude;  // the common case costs one compare
  const V half = P::mul(y, P::set(0.5));
  V r = P::select(P::eq(P::round(half), half), magnitude, P::neg(magnitude));
  r = P::select(P::eq(P::round(y), y), r, P::set(__builtin_nan("")));
  return P::select(negative, r, magnitude);
}

// The lanes of `result` outside the vector domain (the clear bits of
// `regular` among the first `count`) from `library` (powf or pow) of the
// loaded operands x and y, not of the arrays: the output may be one of them.
template <class P, class E, class Values, class Library>
Values with_library_lanes(Values x, Values y, Values result, typename P::M regular, int count, Library library) {
  const unsigned all = (1u << count) - 1u;
  const unsigned vector_lanes = P::lane_bits(regular) & all;
  if (vector_lanes == all) return result;
  alignas(64) E xs[P::kLanes], ys[P::kLanes], rs[P::kLanes];
  P::spill(xs, x);
  P::spill(ys, y);
  P::spill(rs, result);
  for (int lane = 0; lane < count; ++lane) {
    if (!((vector_lanes >> lane) & 1u)) rs[lane] = library(xs[lane], ys[lane]);
  }
  return P::fill(rs);
}

template <class P>
typename P::V pow_float_magnitude(const FloatPowTables& t, typename P::V ax, typename P::V y) {
  using V = typename P::V;
  using I = typename P::I;
  using T = FloatPowTables;
  V e, m;
  I bin;
  split_for_log<P, T>(ax, e, m, bin);
  const V r = P::fma(m, P::lookup16(t.inverse_c, bin), P::set(-1.0));
  // log1p(r) = r + r^2 (-1/2 + r/3 - r^2/4 + ... - r^6/8)
  V series = P::set(-1.0 / 8);
  for (int k = 7; k >= 2; --k) series = P::fma(series, r, P::set((k % 2 == 0 ? -1.0 : 1.0) / k));
  const V log1p_r = P::fma(P::mul(r, r), series, r);
  const V log_ax = P::add(P::fma(e, P::set(kLn2Hi), P::lookup16(t.log_c_hi, bin)), log1p_r);

  V z = P::mul(y, log_ax);
  z = P::min(P::max(z, P::set(-120.0)), P::set(120.0));
  const V k = P::round(P::mul(z, P::set(T::kBins / kLn2Hi)));
  V s = P::fma(k, P::set(-t.ln2_per_bin_hi), z);
  s = P::fma(k, P::set(-t.ln2_per_bin_lo), s);
  V p = P::fma(P::set(1.0 / 120), s, P::set(1.0 / 24));
  p = P::fma(p, s, P::set(1.0 / 6));
  p = P::fma(p, s, P::set(1.0 / 2));
  p = P::fma(p, s, P::set(1.0));
  p = P::mul(p, s);  // exp(s) - 1
  I j;
  V power;
  split_for_exp<P, T>(k, j, power);
  const V table = P::lookup16(t.exp2_hi, j);
  return P::mul(P::fma(table, p, table), power);
}

template <class P>
void pow_float_lanes(const float* a, std::int64_t a_step, const float* b, std::int64_t b_step, float* out,
                     std::int64_t n) noexcept {
  using V = typename P::V;
  if (n <= 0) return;  // no element to read, not even a broadcast one
  const FloatPowTables& t = tables<FloatPowTables>();
  const V one = P::set(1.0);
  const V inf = P::set(__builtin_inf());
  // A broadcast operand is read once, before out (which may be it) is written.
  const typename P::Floats a_broadcast = P::broadcast_float(a[0]);
  const typename P::Floats b_broadcast = P::broadcast_float(b[0]);
  for (std::int64_t i = 0; i < n; i += P::kLanes) {
    const int count = n - i < P::kLanes ? static_cast<int>(n - i) : P::kLanes;
    const typename P::Floats xf = a_step != 0 ? P::load_floats(a + i, count) : a_broadcast;
    const typename P::Floats yf = b_step != 0 ? P::load_floats(b + i, count) : b_broadcast;
    const V x = P::widen(xf);
    const V y = P::widen(yf);
    const V ax = P::abs(x);
    const typename P::M regular_mask = P::regular(ax, P::abs(y), inf);
    // Lanes outside the domain compute pow(1, 0), whose table indices are in range.
    const V magnitude = pow_float_magnitude<P>(t, P::select(regular_mask, ax, one),
                                               P::select(regular_mask, y, P::set(0.0)));
    const typename P::Floats result = with_library_lanes<P, float>(
        xf, yf, P::narrow(apply_base_sign<P>(x, y, magnitude)), regular_mask, count,
        [](float u, float v) { return __builtin_powf(u, v); });
    P::store_floats(out + i, result, count);
  }
}

// log x = hi + lo for positive finite x (subnormals included).
template <class P>
void log_double_double(const PowTables& t, typename P::V x, typename P::V& hi, typename P::V& lo) {
  using V = typename P::V;
  const typename P::M subnormal = P::lt(x, P::set(0x1p-1022));
  x = P::select(subnormal, P::mul(x, P::set(0x1p52)), x);
  V e, m;
  typename P::I bin;
  split_for_log<P, PowTables>(x, e, m, bin);
  e = P::sub(e, P::select(subnormal, P::set(52.0), P::set(0.0)));
  const V inverse_c = P::gather(t.inverse_c, bin);
  // r = m / c - 1 = (p - 1) + p_lo exactly, then rounded to r + r_lo.
  const V p = P::mul(m, inverse_c);
  V r, r_lo;
  two_sum<P>(P::sub(p, P::set(1.0)), P::fms(m, inverse_c, p), r, r_lo);

  // log(1 + r) = r - r^2/2 + r^3 (1/3 - r/4 + ... + r^6/9) (|r| < 2^-7.5):
  // r^2/2 exactly (an FMA gives r^2's rounding error), the rest, below
  // 2^-22, in plain double.
  const V r2 = P::mul(r, r);
  const V r2_lo = P::fms(r, r, r2);
  V series = P::set(1.0 / 9);
  for (int k = 8; k >= 3; --k) series = P::fma(series, r, P::set((k % 2 == 0 ? -1.0 : 1.0) / k));
  const V cubic = P::mul(P::mul(r2, r), series);

  // e ln2 + log c + r - r^2/2 + (the small terms), its leading terms summed
  // exactly: e * ln2_short_hi is exact, the sums go through two_sum.
  V s1, err1, s2, err2, s3, err3;
  two_sum<P>(P::mul(e, P::set(t.ln2_short_hi)), P::gather(t.log_c_hi, bin), s1, err1);
  two_sum<P>(s1, r, s2, err2);
  const V minus_half = P::set(-0.5);
  two_sum<P>(s2, P::mul(minus_half, r2), s3, err3);
  const V small = P::add(
      P::add(P::fma(e, P::set(t.ln2_short_lo), P::gather(t.log_c_lo, bin)), P::add(P::add(err1, err2), err3)),
      P::add(P::fma(minus_half, r2_lo, P::fnma(r, r_lo, r_lo)), cubic));
  hi = P::add(s3, small);
  lo = P::sub(small, P::sub(hi, s3));
}

// exp(hi + lo) for |hi| < 708 (normal results).
template <class P>
typename P::V exp_double_double(const PowTables& t, typename P::V hi, typename P::V lo) {
  using V = typename P::V;
  const V k = P::round(P::mul(hi, P::set(PowTables::kBins / kLn2Hi)));
  // s = hi - k ln2/128 + lo: the first difference is exact (k * hi part is
  // exact and close to hi).
  V s = P::fma(k, P::set(-t.ln2_per_bin_hi), hi);
  s = P::add(P::fma(k, P::set(-t.ln2_per_bin_lo), lo), s);
  // exp(s) - 1 = s + s^2/2 + ... + s^6/720 (|s| <= 2^-8.5, truncation below 2^-70).
  V series = P::fma(P::set(1.0 / 720), s, P::set(1.0 / 120));
  series = P::fma(series, s, P::set(1.0 / 24));
  series = P::fma(series, s, P::set(1.0 / 6));
  series = P::fma(series, s, P::set(0.5));
  series = P::fma(series, s, P::set(1.0));
  const V expm1 = P::mul(series, s);
  typename P::I j;
  V power;
  split_for_exp<P, PowTables>(k, j, power);
  const V t_hi = P::gather(t.exp2_hi, j);
  const V t_lo = P::gather(t.exp2_lo, j);
  // 2^(j/128) (1 + expm1) = t_hi + (t_hi expm1 + t_lo (1 + expm1)).
  const V correction = P::fma(t_hi, expm1, P::fma(t_lo, expm1, t_lo));
  return P::mul(P::add(t_hi, correction), power);
}

template <class P>
void pow_double_lanes(const double* a, std::int64_t a_step, const double* b, std::int64_t b_step, double* out,
                      std::int64_t n) noexcept {
  using V = typename P::V;
  if (n <= 0) return;  // no element to read, not even a broadcast one
  const PowTables& t = tables();
  const V one = P::set(1.0);
  const V zero = P::set(0.0);
  const V inf = P::set(__builtin_inf());
  const V a_broadcast = P::set(a[0]);
  const V b_broadcast = P::set(b[0]);
  for (std::int64_t i = 0; i < n; i += P::kLanes) {
    const int count = n - i < P::kLanes ? static_cast<int>(n - i) : P::kLanes;
    const V x = a_step != 0 ? P::load_doubles(a + i, count) : a_broadcast;
    const V y = b_step != 0 ? P::load_doubles(b + i, count) : b_broadcast;
    const V ax = P::abs(x);
    typename P::M regular_mask = P::regular(ax, P::abs(y), inf);
    V log_hi, log_lo;
    log_double_double<P>(t, P::select(regular_mask, ax, one), log_hi, log_lo);
    const V y_regular = P::select(regular_mask, y, zero);
    const V z_hi = P::mul(y_regular, log_hi);
    const V z_lo = P::fma(y_regular, log_lo, P::fms(y_regular, log_hi, z_hi));
    regular_mask = P::both(regular_mask, P::lt(P::abs(z_hi), P::set(708.0)));
    const V magnitude =
        exp_double_double<P>(t, P::select(regular_mask, z_hi, zero), P::select(regular_mask, z_lo, zero));
    const V r = with_library_lanes<P, double>(x, y, apply_base_sign<P>(x, y, magnitude), regular_mask, count,
                                              [](double u, double v) { return __builtin_pow(u, v); });
    P::store_doubles(out + i, r, count);
  }
}
