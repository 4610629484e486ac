// The unary operations written once over a vector policy P, included by each
// instruction-set file inside its anonymous namespace (so every copy has
// internal linkage and is compiled for that file's instruction set; see
// tunekit/cpu/isa.hpp). It includes nothing; the includer provides UnaryOp,
// DataType, the <cstdint> types and ::erf (the portable policy's double Erf).
//
// P provides: T (float or double), V (a vector, or T itself), M (a lane mask)
// and the static functions set, add, sub, mul, div, fma (a*b+c, fused where
// the instruction set has it), sqrt, min, max (a NaN first operand gives
// the second, as minps/maxps do), abs, neg, or_sign (copies the
// sign bit of the second argument into the first, non-negative one), lt, gt,
// eq, is_nan, select(mask, if_true, if_false), round (to nearest, for
// |x| < 2^22), pow2 (2^n for integral n in the normal exponent range),
// exponent and mantissa (of a positive normal x = mantissa * 2^exponent,
// mantissa in [1, 2)); a vector policy (V is not T) also either (a mask's
// or) and any (whether a lane of a mask is set).
//
// Algorithms (errors measured in tests/kernels/unary_accuracy_test.cpp, the
// bounds are in tunekit/cpu/unary_accuracy.hpp):
// - Exp: n = round(x / ln 2), r = x - n ln 2 in two parts (Cody-Waite), so
//   |r| <= ln 2 / 2; expm1(r) by its Taylor polynomial (degree 7 in float,
//   13 in double: truncation below 0.05 ULP); 2^n applied once where every
//   lane's 2^n is a normal number (vector paths), else in two halves so
//   that results in the subnormal range are rounded once, from a normal
//   value. Inputs are clamped just beyond the overflow and underflow
//   thresholds, which then give +inf and +0 by rounding.
// - Log: x = m 2^e with m in [sqrt(1/2), sqrt(2)) (subnormals scaled by
//   2^23 / 2^52 first), f = m - 1, s = f / (2 + f);
//   log(1 + f) = f - s (f - R(s^2)) with R the atanh series (to s^10 in float,
//   s^22 in double), so the rounding error of s enters only the small
//   correction term; e ln 2 added in two parts.
// - Tanh: tanh|x| = expm1(2|x|) / (expm1(2|x|) + 2), expm1 from the Exp
//   reduction as 2^n p(r) + (2^n - 1) (no cancellation near 0), the
//   quotient taken against the exact denominator (a two-sum and the
//   division's residual); for float below 0.35 the Taylor series to x^13;
//   1 beyond 9.1 (float) / 22 (double), sign copied from x.
// - Sigmoid: t = exp(-|x|) in (0, 1]; 1 / (1 + t) for x >= 0 and t / (1 + t)
//   for x < 0 (one division, the numerator selected), so neither side
//   overflows or cancels.
// - Sqrt: the hardware instruction (correctly rounded).
// - Erf: verf_float and verf_double below (the portable policy's double
//   Erf is the C library's erf).

template <class P>
struct Constants;

template <>
struct Constants<float> {
  static constexpr float kLog2e = 1.44269504088896341f;
  static constexpr float kLn2Hi = 0.693145751953125f;  // 15 significant bits: n * kLn2Hi is exact
  static constexpr float kLn2Lo = 1.42860682030941723212e-6f;
  static constexpr float kExpLow = -104.0f;  // below: exp underflows to +0
  static constexpr float kExpHigh = 89.0f;   // above: exp overflows to +inf
  static constexpr float kTanhOne = 9.1f;    // above: tanh rounds to 1
  static constexpr float kSmallestNormal = 1.17549435082228750797e-38f;
  static constexpr float kMinExponent = -126.0f;  // 2^n is a normal float for n in [min, max]
  static constexpr float kMaxExponent = 127.0f;
  static constexpr float kSubnormalScale = 8388608.0f;  // 2^23
  static constexpr float kSubnormalBits = 23.0f;
  static constexpr float kSqrt2 = 1.41421356237309504880f;
  static constexpr float kInf = __builtin_inff();
  static constexpr float kNaN = __builtin_nanf("");
};

template <>
struct Constants<double> {
  static constexpr double kLog2e = 1.44269504088896340736;
  static constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 32 significant bits
  static constexpr double kLn2Lo = 1.90821492927058770002e-10;
  static constexpr double kExpLow = -746.0;
  static constexpr double kExpHigh = 710.0;
  static constexpr double kTanhOne = 22.0;
  static constexpr double kSmallestNormal = 2.22507385850720138309e-308;
  static constexpr double kMinExponent = -1022.0;
  static constexpr double kMaxExponent = 1023.0;
  static constexpr double kSubnormalScale = 4503599627370496.0;  // 2^52
  static constexpr double kSubnormalBits = 52.0;
  static constexpr double kSqrt2 = 1.41421356237309504880;
  static constexpr double kInf = __builtin_inf();
  static constexpr double kNaN = __builtin_nan("");
};

// expm1(r) for |r| <= ln 2 / 2: r + r^2 (1/2! + r/3! + ...), Horner.
template <class P>
inline typename P::V expm1_reduced(typename P::V r) {
  using T = typename P::T;
  typename P::V q;
  if constexpr (sizeof(T) == 4) {
    q = P::set(T(1.0 / 5040));
    q = P::fma(q, r, P::set(T(1.0 / 720)));
    q = P::fma(q, r, P::set(T(1.0 / 120)));
    q = P::fma(q, r, P::set(T(1.0 / 24)));
    q = P::fma(q, r, P::set(T(1.0 / 6)));
    q = P::fma(q, r, P::set(T(0.5)));
  } else {
    q = P::set(T(1.0 / 6227020800.0));                 // 1/13!
    q = P::fma(q, r, P::set(T(1.0 / 479001600.0)));   // 1/12!
    q = P::fma(q, r, P::set(T(1.0 / 39916800.0)));    // 1/11!
    q = P::fma(q, r, P::set(T(1.0 / 3628800.0)));     // 1/10!
    q = P::fma(q, r, P::set(T(1.0 / 362880.0)));
    q = P::fma(q, r, P::set(T(1.0 / 40320.0)));
    q = P::fma(q, r, P::set(T(1.0 / 5040.0)));
    q = P::fma(q, r, P::set(T(1.0 / 720.0)));
    q = P::fma(q, r, P::set(T(1.0 / 120.0)));
    q = P::fma(q, r, P::set(T(1.0 / 24.0)));
    q = P::fma(q, r, P::set(T(1.0 / 6.0)));
    q = P::fma(q, r, P::set(T(0.5)));
  }
  return P::fma(P::mul(r, r), q, r);
}

// x = n ln 2 + r: writes n, returns r.
template <class P>
inline typename P::V reduce_ln2(typename P::V x, typename P::V& n) {
  using C = Constants<typename P::T>;
  n = P::round(P::mul(x, P::set(C::kLog2e)));
  typename P::V r = P::fma(n, P::set(-C::kLn2Hi), x);
  return P::fma(n, P::set(-C::kLn2Lo), r);
}

template <class P>
inline typename P::V vexp(typename P::V x) {
  using T = typename P::T;
  using C = Constants<T>;
  const typename P::V clamped = P::min(P::max(x, P::set(C::kExpLow)), P::set(C::kExpHigh));
  typename P::V n;
  const typename P::V p = expm1_reduced<P>(reduce_ln2<P>(clamped, n));
  if constexpr (!__is_same(typename P::V, T)) {
    // A vector whose every 2^n is a normal number scales once: s (1 + p)
    // with one rounding, also where the result is subnormal. The portable
    // policy (one element, inside a vectorised loop) always takes the
    // general way: a branch there would cost both.
    const typename P::M outside =
        P::either(P::lt(n, P::set(C::kMinExponent)), P::gt(n, P::set(C::kMaxExponent)));
    if (!P::any(outside)) {
      const typename P::V s = P::pow2(n);
      return P::select(P::is_nan(x), x, P::fma(p, s, s));
    }
  }
  // 2^n in two halves, so that results in the subnormal range are rounded
  // once, from a normal value, and 2^128 (2^1024) is not needed as a number.
  const typename P::V n1 = P::round(P::mul(n, P::set(T(0.5))));
  const typename P::V s1 = P::pow2(n1);
  const typename P::V y = P::mul(P::fma(p, s1, s1), P::pow2(P::sub(n, n1)));
  return P::select(P::is_nan(x), x, y);
}

template <class P>
inline typename P::V vlog(typename P::V x) {
  using T = typename P::T;
  using C = Constants<T>;
  using V = typename P::V;
  const typename P::M subnormal = P::lt(x, P::set(C::kSmallestNormal));
  const V scaled = P::select(subnormal, P::mul(x, P::set(C::kSubnormalScale)), x);
  V e = P::sub(P::exponent(scaled), P::select(subnormal, P::set(C::kSubnormalBits), P::set(T(0))));
  V m = P::mantissa(scaled);
  const typename P::M high = P::gt(m, P::set(C::kSqrt2));
  m = P::select(high, P::mul(m, P::set(T(0.5))), m);
  e = P::select(high, P::add(e, P::set(T(1))), e);
  const V f = P::sub(m, P::set(T(1)));
  const V s = P::div(f, P::add(P::set(T(2)), f));
  const V z = P::mul(s, s);
  V q;
  if constexpr (sizeof(T) == 4) {
    q = P::set(T(2.0 / 11));
    q = P::fma(q, z, P::set(T(2.0 / 9)));
    q = P::fma(q, z, P::set(T(2.0 / 7)));
    q = P::fma(q, z, P::set(T(2.0 / 5)));
    q = P::fma(q, z, P::set(T(2.0 / 3)));
  } else {
    q = P::set(T(2.0 / 25));
    q = P::fma(q, z, P::set(T(2.0 / 23)));
    q = P::fma(q, z, P::set(T(2.0 / 21)));
    q = P::fma(q, z, P::set(T(2.0 / 19)));
    q = P::fma(q, z, P::set(T(2.0 / 17)));
    q = P::fma(q, z, P::set(T(2.0 / 15)));
    q = P::fma(q, z, P::set(T(2.0 / 13)));
    q = P::fma(q, z, P::set(T(2.0 / 11)));
    q = P::fma(q, z, P::set(T(2.0 / 9)));
    q = P::fma(q, z, P::set(T(2.0 / 7)));
    q = P::fma(q, z, P::set(T(2.0 / 5)));
    q = P::fma(q, z, P::set(T(2.0 / 3)));
  }
  const V log_m = P::sub(f, P::mul(s, P::sub(f, P::mul(z, q))));
  V y = P::fma(e, P::set(C::kLn2Hi), P::fma(e, P::set(C::kLn2Lo), log_m));
  y = P::select(P::eq(x, P::set(T(0))), P::set(-C::kInf), y);
  y = P::select(P::lt(x, P::set(T(0))), P::set(C::kNaN), y);
  y = P::select(P::eq(x, P::set(C::kInf)), x, y);
  return P::select(P::is_nan(x), x, y);
}

// a + b = s + err exactly (Knuth's two-sum: no order of magnitudes needed).
template <class P>
inline void two_sum(typename P::V a, typename P::V b, typename P::V& s, typename P::V& err) {
  s = P::add(a, b);
  const typename P::V bb = P::sub(s, a);
  err = P::add(P::sub(a, P::sub(s, bb)), P::sub(b, bb));
}

// numerator / (a + b) with the sum taken exactly (a two-sum) and the
// quotient corrected by its residual: q + (numerator - q s - q s_lo) / s.
// The sum's rounding alone costs up to an ULP of the quotient. The residual
// is exact only with a fused multiply-add; the portable policy has none, and
// there the correction is about as wrong as the rounding it replaces (its
// float Tanh and Sigmoid measured a little better with it, double a little
// worse).
template <class P>
inline typename P::V divide_by_exact_sum(typename P::V numerator, typename P::V a, typename P::V b) {
  using V = typename P::V;
  V s, s_lo;
  two_sum<P>(a, b, s, s_lo);
  const V inverse = P::div(P::set(typename P::T(1)), s);
  const V q = P::mul(numerator, inverse);
  const V residual = P::fma(P::neg(q), s, numerator);
  return P::fma(P::fma(P::neg(q), s_lo, residual), inverse, q);
}

template <class P>
inline typename P::V vtanh(typename P::V x) {
  using T = typename P::T;
  using C = Constants<T>;
  using V = typename P::V;
  const V ax = P::abs(x);
  const V y = P::min(P::add(ax, ax), P::set(T(2) * C::kTanhOne));
  V n;
  const V p = expm1_reduced<P>(reduce_ln2<P>(y, n));
  const V s = P::pow2(n);
  const V em = P::fma(s, p, P::sub(s, P::set(T(1))));
  // Rounding em + 2 had cost up to an ULP of the result (2.4 ULP in all).
  V t = divide_by_exact_sum<P>(em, em, P::set(T(2)));
  if constexpr (sizeof(T) == 4) {
    // Below 0.35 the Taylor series to x^13 (truncation below 2^-30
    // relatively): from 0.173 to 0.347 expm1(2|x|) comes from 2 expm1(r) + 1
    // with r < 0, whose partial cancellation had left 1.7 ULP there.
    const V z = P::mul(ax, ax);
    V series = P::set(T(21844.0 / 6081075));
    series = P::fma(series, z, P::set(T(-1382.0 / 155925)));
    series = P::fma(series, z, P::set(T(62.0 / 2835)));
    series = P::fma(series, z, P::set(T(-17.0 / 315)));
    series = P::fma(series, z, P::set(T(2.0 / 15)));
    series = P::fma(series, z, P::set(T(-1.0 / 3)));
    t = P::select(P::lt(ax, P::set(T(0.35))), P::fma(P::mul(ax, z), series, ax), t);
  }
  t = P::select(P::gt(ax, P::set(C::kTanhOne)), P::set(T(1)), t);
  return P::select(P::is_nan(x), x, P::or_sign(t, x));
}

template <class P>
inline typename P::V vsigmoid(typename P::V x) {
  using T = typename P::T;
  using V = typename P::V;
  const V t = vexp<P>(P::neg(P::abs(x)));
  const V numerator = P::select(P::lt(x, P::set(T(0))), t, P::set(T(1)));
  // A plain quotient: against the exact 1 + t (divide_by_exact_sum) the
  // error fell from 2.24 to 1.47 ULP, but the speed from 0.93 to 0.79 of
  // 1 / (1 + SLEEF exp(-x)).
  return P::div(numerator, P::add(P::set(T(1)), t));
}

// Float erf: |x| < 1 by the Taylor series x + x P(x^2) to x^21 (truncation
// below 1e-9); 1 <= |x| <= 4 as 1 - exp(-x^2) Q(|x|), Q a degree-13
// Chebyshev fit of erfcx(x) = exp(x^2) erfc(x) on [1, 4] in monomial form of
// t = (|x| - 2.5) / 1.5 (relative error 3.5e-8 with float coefficients; the
// rounding of x^2 costs at most 0.16 ULP since erfc(1) is 0.157); 1 beyond 4.
template <class P>
inline typename P::V verf_float(typename P::V x) {
  using T = typename P::T;
  using V = typename P::V;
  const V ax = P::abs(x);
  const V z = P::mul(ax, ax);
  constexpr double kTaylor[] = {1.4807192815879218e-08, -1.6365844691234924e-07, 1.6462114365889246e-06,
                                -1.492565035840625e-05, 0.00012055332981789664, -0.0008548327023450852,
                                0.005223977625442188,   -0.026866170645131252,  0.11283791670955126,
                                -0.37612638903183754,   0.12837916709551258};  // 2/sqrt(pi) - 1
  V s = P::set(T(kTaylor[0]));
  for (int k = 1; k < 11; ++k) s = P::fma(s, z, P::set(T(kTaylor[k])));
  // |x| + |x| (2/sqrt(pi) - 1 + ...): the leading term is exact, so the
  // rounding of 2/sqrt(pi) to float does not enter.
  const V small = P::fma(ax, s, ax);
  constexpr double kErfcx[] = {-5.058179471006952e-06, 1.3819088965760785e-05, -2.0489640183996018e-05,
                               5.494724828736253e-05,  -0.0001644974522669429, 0.00041450809781444774,
                               -0.0010047884615953075, 0.0024017016954482884,  -0.005570928959094234,
                               0.012489703671483556,   -0.02700527578354054,   0.05611047258428325,
                               -0.111521020749175,     0.21080636427594104};
  const V t = P::mul(P::sub(ax, P::set(T(2.5))), P::set(T(1.0 / 1.5)));
  V q = P::set(T(kErfcx[0]));
  for (int k = 1; k < 14; ++k) q = P::fma(q, t, P::set(T(kErfcx[k])));
  const V large = P::fma(P::neg(vexp<P>(P::neg(z))), q, P::set(T(1)));
  V y = P::select(P::lt(ax, P::set(T(1))), small, large);
  y = P::select(P::gt(ax, P::set(T(4))), P::set(T(1)), y);
  return P::select(P::is_nan(x), x, P::or_sign(y, x));
}

// Double erf, the same structure with double fits (mpmath chebyfit, 50
// digits, relative error below 1.5e-17 each): |x| < 1 as x + x P(x^2), P of
// degree 11 in x^2 with 2/sqrt(pi) - 1 as its constant (the leading x is
// exact); 1 <= |x| < 6 as 1 - exp(-x^2) Q(|x|), Q the fit of erfcx on
// [1, 2.5), [2.5, 4.25) or [4.25, 6) (degrees 18, 17, 15 in t = (|x| - c) / h,
// the interval's centre and half width), each lane taking its interval's
// coefficients; x^2 split exactly in two (fma) so that exp(-x^2) is corrected
// by the low part; 1 from 6 on (erfc(6) is below half an ulp of 1).
template <class P>
inline typename P::V verf_double(typename P::V x) {
  using T = typename P::T;
  using V = typename P::V;
  const V ax = P::abs(x);
  const V z = P::mul(ax, ax);
  constexpr double kSmall[] = {-7.795898827002142e-10,  1.3720064546777686e-08, -1.6208483801871705e-07,
                               1.6447424703317362e-06,  -1.492473690741966e-05, 0.00012055294904839707,
                               -0.0008548325975389692,  0.0052239776071164225,  -0.02686617064323777,
                               0.11283791670945006,     -0.37612638903183543,   0.12837916709551256};
  V s = P::set(T(kSmall[0]));
  for (int k = 1; k < 12; ++k) s = P::fma(s, z, P::set(T(kSmall[k])));
  const V small = P::fma(ax, s, ax);
  // Highest degree first, padded with leading zeros to 19 coefficients.
  constexpr double kErfcx[3][19] = {
      {1.691370878456324e-12, -9.189420172081477e-12, 4.093847922889574e-11, -2.1212376757225127e-10,
       1.0913862125386419e-09, -5.4141292740262066e-09, 2.6200160920446488e-08, -1.236598236632184e-07,
       5.680167343563448e-07, -2.5345110647073046e-06, 1.0962893607629422e-05, -4.5856167052362756e-05,
       0.00018495607833968411, -0.0007168914456252124, 0.0026591791241936573, -0.009390935492459373,
       0.031367041923986594, -0.09823225913586393, 0.2849722347374364},
      {0.0, -2.057564284358002e-13, 1.206219491367552e-12, -6.045440760163125e-12, 3.427296209974128e-11,
       -1.9302322960359968e-10, 1.06057360294981e-09, -5.72795221061885e-09, 3.04026242326982e-08,
       -1.5841588384670256e-07, 8.095815923964354e-07, -4.0537690045712634e-06, 1.9865616611644164e-05,
       -9.515603671993059e-05, 0.00044487121085236313, -0.0020266454025722343, 0.00897917338928792,
       -0.03860452508617061, 0.1606310681265444},
      {0.0, 0.0, 0.0, -4.807227692692546e-14, 3.5040741804864317e-13, -2.3356583898630483e-12,
       1.6643221002452317e-11, -1.1760835148247468e-10, 8.196125580066855e-10, -5.645202599898215e-09,
       3.841709378480032e-08, -2.5819448472014537e-07, 1.7129917848493254e-06, -1.1213555213669096e-05,
       7.239152588138194e-05, -0.00046062319923079463, 0.0028870402753494637, -0.017812252778600914,
       0.10809973724654746}};
  const typename P::M second = P::gt(ax, P::set(T(2.5)));
  const typename P::M third = P::gt(ax, P::set(T(4.25)));
  const V centre = P::select(third, P::set(T(5.125)), P::select(second, P::set(T(3.375)), P::set(T(1.75))));
  const V inverse_half_width =
      P::select(third, P::set(T(1 / 0.875)), P::select(second, P::set(T(1 / 0.875)), P::set(T(1 / 0.75))));
  const V t = P::mul(P::sub(ax, centre), inverse_half_width);
  const auto coefficient = [&](int k) {
    return P::select(third, P::set(T(kErfcx[2][k])), P::select(second, P::set(T(kErfcx[1][k])), P::set(T(kErfcx[0][k]))));
  };
  V q = coefficient(0);
  for (int k = 1; k < 19; ++k) q = P::fma(q, t, coefficient(k));
  const V z_low = P::fma(ax, ax, P::neg(z));  // x^2 = z + z_low exactly
  V e = vexp<P>(P::neg(z));
  e = P::fma(P::neg(e), z_low, e);  // exp(-z - z_low) to first order
  const V large = P::fma(P::neg(e), q, P::set(T(1)));
  V y = P::select(P::lt(ax, P::set(T(1))), small, large);
  y = P::select(P::lt(ax, P::set(T(6))), y, P::set(T(1)));
  return P::select(P::is_nan(x), x, P::or_sign(y, x));
}

template <class P>
struct AbsOp {
  static typename P::V apply(typename P::V x) { return P::abs(x); }
};
template <class P>
struct NegOp {
  static typename P::V apply(typename P::V x) { return P::neg(x); }
};
template <class P>
struct ReluOp {  // NaN and -0 pass through
  static typename P::V apply(typename P::V x) {
    return P::select(P::lt(x, P::set(typename P::T(0))), P::set(typename P::T(0)), x);
  }
};
template <class P>
struct SqrtOp {
  static typename P::V apply(typename P::V x) { return P::sqrt(x); }
};
template <class P>
struct ExpOp {
  static typename P::V apply(typename P::V x) { return vexp<P>(x); }
};
template <class P>
struct LogOp {
  static typename P::V apply(typename P::V x) { return vlog<P>(x); }
};
template <class P>
struct TanhOp {
  static typename P::V apply(typename P::V x) { return vtanh<P>(x); }
};
template <class P>
struct SigmoidOp {
  static typename P::V apply(typename P::V x) { return vsigmoid<P>(x); }
};
template <class P>
struct ErfOp {
  static typename P::V apply(typename P::V x) {
    if constexpr (sizeof(typename P::T) == 4) {
      return verf_float<P>(x);
    } else if constexpr (sizeof(typename P::V) == sizeof(typename P::T)) {
      // One lane at a time (the portable policy): every lane would pay for
      // both of verf_double's branches; the C library's erf is 5 times faster.
      return ::erf(x);
    } else {
      return verf_double<P>(x);
    }
  }
};

// GELU on float lanes, x Phi(x) with Phi(x) = erfc(-x / sqrt 2) / 2, for the
// pointwise engines' chains and the matmul epilogue (gelu_float_* in
// unary_paths.hpp), not a UnaryOp with tuning keys. One formula for every
// lane, without Erf's two branches: with a = |x| / sqrt 2, erfc(a) =
// exp(-a^2) erfcx(a), erfcx(a) = t Q(t) for t = 1 / (1 + 0.4 a), Q a degree-10
// Chebyshev fit on a in [0, 14.2] (relative error 3.3e-9; numpy chebfit with
// weights 1/Q on 4000 nodes, erfcx from double erfc below 5 and its
// continued fraction above); the result is x erfc(a) / 2 for x < 0 and
// x - x erfc(a) / 2 otherwise, so that the negative side, where
// 1 + erf(x / sqrt 2) cancels, keeps its relative accuracy. a^2 = x^2 / 2 enters exp exactly: x^2 as a
// pair hi + lo (a fused multiply-add, or Dekker's product on the portable
// path), exp(-hi / 2) (1 - lo / 2). Beyond |x| = 20 the result is x or x * 0
// (-0; NaN for -inf, as x / 2 * (1 + erf(x / sqrt 2)) gives).
template <class P>
struct GeluFloatOp {
  static typename P::V apply(typename P::V x) {
    using T = typename P::T;
    using V = typename P::V;
    const V ax = P::abs(x);
    const V hi = P::mul(x, x);
    V lo;
    if constexpr (__is_same(V, T)) {
      // Dekker: x = xh + xl in halves of 12 bits, so that xh xh, xh xl and
      // xl xl are exact.
      const V split = P::mul(x, P::set(T(4097)));
      const V xh = P::sub(split, P::sub(split, x));
      const V xl = P::sub(x, xh);
      lo = P::add(P::add(P::sub(P::mul(xh, xh), hi), P::mul(P::set(T(2)), P::mul(xh, xl))), P::mul(xl, xl));
    } else {
      lo = P::fma(x, x, P::neg(hi));
    }
    const V gaussian = P::mul(vexp<P>(P::mul(hi, P::set(T(-0.5)))), P::fma(lo, P::set(T(-0.5)), P::set(T(1))));
    // 0.4 / sqrt 2: t = 1 / (1 + 0.4 a).
    const V t = P::div(P::set(T(1)), P::fma(ax, P::set(T(0.28284271247461900976)), P::set(T(1))));
    // t in [1 / (1 + 0.4 * 14.2), 1] mapped onto [-1, 1].
    const V u = P::fma(t, P::set(T(2.352112676056338)), P::set(T(-1.352112676056338)));
    constexpr double kHalfQ[] = {-2.307772015075649e-06, -6.137630137916822e-06, 2.894496743322753e-05,
                                 7.4164724014016e-05,    -0.0002985570821002514, -0.0011002840699384513,
                                 0.002147045549043425,   0.02287441161856994,    0.07726360540305251,
                                 0.16196929230428833,    0.2370498203296025};  // Q / 2, highest power first
    V q = P::set(T(kHalfQ[0]));
    for (int k = 1; k < 11; ++k) q = P::fma(q, u, P::set(T(kHalfQ[k])));
    // x erfc(a) / 2, exp(-a^2) multiplied last: alone it is near the
    // subnormal range where the result (|x| times larger) is not.
    const V tail = P::mul(P::mul(x, P::mul(t, q)), gaussian);
    const typename P::M negative = P::lt(x, P::set(T(0)));
    const V near = P::select(negative, tail, P::sub(x, tail));
    const V far = P::select(negative, P::mul(x, P::set(T(0))), x);
    return P::select(P::gt(ax, P::set(T(20))), far, near);
  }
};

// Calls loop.template run<Op>() with the operation's Op over policy P.
template <class P, class Loop>
inline void dispatch_floating(UnaryOp op, const Loop& loop) {
  switch (op) {
    case UnaryOp::ABS: loop.template run<AbsOp<P>>(); break;
    case UnaryOp::NEG: loop.template run<NegOp<P>>(); break;
    case UnaryOp::RELU: loop.template run<ReluOp<P>>(); break;
    case UnaryOp::SQRT: loop.template run<SqrtOp<P>>(); break;
    case UnaryOp::EXP: loop.template run<ExpOp<P>>(); break;
    case UnaryOp::LOG: loop.template run<LogOp<P>>(); break;
    case UnaryOp::TANH: loop.template run<TanhOp<P>>(); break;
    case UnaryOp::SIGMOID: loop.template run<SigmoidOp<P>>(); break;
    case UnaryOp::ERF: loop.template run<ErfOp<P>>(); break;
    case UnaryOp::NOT: break;
  }
}

// Integer Abs, Neg (wrapping at the minimum instead of overflowing) and Relu,
// and Not on bool bytes: plain loops the compiler vectorises for the file's
// instruction set.
template <class I, class U>
inline void integer_loop(UnaryOp op, const I* in, I* out, std::int64_t n) {
  switch (op) {
    case UnaryOp::ABS:
#pragma omp simd
      for (std::int64_t i = 0; i < n; ++i) out[i] = in[i] < 0 ? static_cast<I>(U(0) - static_cast<U>(in[i])) : in[i];
      break;
    case UnaryOp::NEG:
#pragma omp simd
      for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<I>(U(0) - static_cast<U>(in[i]));
      break;
    case UnaryOp::RELU:
#pragma omp simd
      for (std::int64_t i = 0; i < n; ++i) out[i] = in[i] < 0 ? I(0) : in[i];
      break;
    default: break;
  }
}

inline void not_loop(const unsigned char* in, unsigned char* out, std::int64_t n) {
#pragma omp simd
  for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<unsigned char>(in[i] == 0);
}

// The integer and bool types of `type`; false when it is not one of them.
inline bool dispatch_integral(UnaryOp op, DataType type, const void* in, void* out, std::int64_t n) {
  switch (type) {
    case DataType::INT32:
      integer_loop<std::int32_t, std::uint32_t>(op, static_cast<const std::int32_t*>(in),
                                                static_cast<std::int32_t*>(out), n);
      return true;
    case DataType::INT64:
      integer_loop<std::int64_t, std::uint64_t>(op, static_cast<const std::int64_t*>(in),
                                                static_cast<std::int64_t*>(out), n);
      return true;
    case DataType::BOOL:
      not_loop(static_cast<const unsigned char*>(in), static_cast<unsigned char*>(out), n);
      return true;
    default: return false;
  }
}
