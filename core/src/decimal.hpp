#pragma once
// Exact decimal conversions of a double, in the core's own code instead of the C library's
// printf and strtod. The results are the C library's (ISO C 7.21.6.1 "%.Nf" and "%.Ng";
// strtod's nearest double, ties to even): every decimal digit of the binary value is worked
// out with a small big integer, so nothing is rounded twice. Why not the library: in the
// page's wasm, musl's float formatting and strtod and the 128-bit long-double arithmetic
// they run on cost 4.7 KB gzip of every first visit (173,965 -> 169,286 B; issue 16's 250 KB
// budget; docs/performance-model.md "Speed"). musl's printf core stays, for Embind's own
// sprintf("%p"). tests/core/decimal_test.cpp compares both directions with the C library
// (glibc natively, musl in the wasm suite) on random and edge-case values.
#include <string>
#include <string_view>

namespace gpucalc {

// printf("%.{decimals}f", v): "-0.0" for a negative value that rounds to zero, "inf", "nan".
std::string format_fixed(double v, int decimals);

// printf("%.{precision}g", v): `precision` significant digits (0 taken as 1), the fixed or
// exponent style by C's rule, trailing zeros dropped ("1e+15", "0.0001", "1.5").
std::string format_general(double v, int precision);

// `format` with its one "%.Nf" or "%.Ng" conversion replaced by v, as snprintf writes it
// ("%.1f GiB"); "%%" is a percent sign. Any other conversion is copied as written.
std::string format_printf(const char* format, double v);

// The text of a JSON number (RFC 8259's grammar, already checked by the caller) as the
// nearest double, ties to even, as strtod reads it; ±infinity beyond the double range,
// ±0 below half the smallest subnormal.
double parse_decimal(std::string_view text);

}  // namespace gpucalc
