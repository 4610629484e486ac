// Float Pow for the vector paths, written once over a policy of double
// lanes: included by unary_avx512.cpp (8 lanes) and unary_avx2.cpp (4
// lanes) inside their anonymous namespaces, after pow_tables.hpp.
//
// A float result needs y log|x| to about 2^-35 absolute (|y log|x|| is at
// most 104 where the result is neither 0 nor infinite), so plain double
// arithmetic does, with no double-double: the operands are widened to
// double (a float's subnormals are normal doubles), log|x| = e ln2 +
// log c + log1p(r) over the 16 bins of pow_tables.hpp (|r| < 2^-5; a
// degree-8 Taylor series leaves below 2^-43 of log|x|, relatively, also in
// the bin of 1, whose c is exactly 1), then exp z = 2^(k/16) (1 + p(s))
// with |s| <= ln2/32 and a degree-5 series (2^-42). z is clamped to
// [-120, 120]: exp of either end rounds to 0 or infinity in float, as pow
// would. The double result is rounded once to float. Sixteen bins, not the
// double Pow's 128, so that AVX-512 looks the tables up with a permute of
// two registers instead of a gather (3 gathers made 8 lanes take 2.7 ns an
// element). Zero, infinite or NaN bases and infinite or NaN exponents take
// powf lane by lane; a negative base goes through pow(|x|, y) and the sign
// rule (P::apply_base_sign).
//
// The policy P provides, besides unary_math.inl's operations: I (64-bit
// integer lanes) with bits, from_bits, add_i, sub_i, and_i, or_i, set_i,
// shift_right<N> and shift_left<N> (logical), lookup16 (a 16-entry double
// table, 64-byte aligned, by the low 4 bits of I),
// lane_bits (a mask's lanes as the low bits of an unsigned), and the float
// I/O: Floats, load_floats(p, count) (lanes past count hold 1),
// broadcast_float, widen, narrow, store_floats(p, floats, count).

template <class P>
typename P::V pow_float_magnitude(const FloatPowTables& t, typename P::V ax, typename P::V y) {
  using V = typename P::V;
  using I = typename P::I;
  // log ax for positive finite ax, as in pow_double_avx2.cpp without the
  // double-double: e + 1024 is positive, so a logical shift of the biased
  // offset is the arithmetic shift of the offset.
  const I bits = P::bits(ax);
  using T = FloatPowTables;
  const I offset = P::sub_i(bits, P::set_i(static_cast<long long>(T::kRangeStartBits)));
  const I biased_exponent = P::template shift_right<52>(P::add_i(offset, P::set_i(1024LL << 52)));
  const I bin = P::and_i(P::template shift_right<52 - T::kBinBits>(offset), P::set_i(T::kBins - 1));
  const V m = P::from_bits(
      P::sub_i(bits, P::template shift_left<52>(P::sub_i(biased_exponent, P::set_i(1024)))));
  const V two52 = P::set(0x1p52);
  const V e = P::sub(P::sub(P::from_bits(P::or_i(biased_exponent, P::bits(two52))), two52), P::set(1024.0));
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
  // k (|k| < 2^12) as an integer: the low bits of k + 1.5 * 2^52.
  const V shifter = P::set(0x1.8p52);
  const I ki = P::sub_i(P::bits(P::add(k, shifter)), P::bits(shifter));
  const I j = P::and_i(ki, P::set_i(T::kBins - 1));
  // floor(k / 16) by a logical shift of k + 2^40, then the bias removed.
  const I scale = P::sub_i(P::template shift_right<T::kBinBits>(P::add_i(ki, P::set_i(1LL << 40))),
                           P::set_i(1LL << (40 - T::kBinBits)));
  const V table = P::lookup16(t.exp2_hi, j);
  const V power = P::from_bits(P::template shift_left<52>(P::add_i(scale, P::set_i(1023))));
  return P::mul(P::fma(table, p, table), power);
}

template <class P>
void pow_float_lanes(const float* a, std::int64_t a_step, const float* b, std::int64_t b_step, float* out,
                     std::int64_t n) noexcept {
  using V = typename P::V;
  const FloatPowTables& t = tables<FloatPowTables>();
  const V one = P::set(1.0);
  const V inf = P::set(__builtin_inf());
  for (std::int64_t i = 0; i < n; i += P::kLanes) {
    const int count = n - i < P::kLanes ? static_cast<int>(n - i) : P::kLanes;
    const typename P::Floats xf = a_step != 0 ? P::load_floats(a + i, count) : P::broadcast_float(a[0]);
    const typename P::Floats yf = b_step != 0 ? P::load_floats(b + i, count) : P::broadcast_float(b[0]);
    const V x = P::widen(xf);
    const V y = P::widen(yf);
    const V ax = P::abs(x);
    const typename P::M regular_mask = P::regular(ax, P::abs(y), inf);
    // Lanes outside the domain compute pow(1, 0), whose table indices are in range.
    const V magnitude = pow_float_magnitude<P>(t, P::select(regular_mask, ax, one),
                                               P::select(regular_mask, y, P::set(0.0)));
    typename P::Floats result = P::narrow(P::apply_base_sign(x, y, magnitude));
    const unsigned all = (1u << count) - 1u;
    const unsigned regular = P::lane_bits(regular_mask) & all;
    if (regular != all) {
      // From the loaded operands, not from a and b: out may be one of them.
      alignas(64) float xs[P::kLanes], ys[P::kLanes], rs[P::kLanes];
      P::store_all(xs, xf);
      P::store_all(ys, yf);
      P::store_all(rs, result);
      for (int lane = 0; lane < count; ++lane) {
        if (!((regular >> lane) & 1u)) rs[lane] = __builtin_powf(xs[lane], ys[lane]);
      }
      result = P::load_all(rs);
    }
    P::store_floats(out + i, result, count);
  }
}
