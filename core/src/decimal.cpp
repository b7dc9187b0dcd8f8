#include "decimal.hpp"

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gpucalc {
namespace {

// A non-negative big integer in base 10^9, least significant limb first, no zero limb on top.
using Big = std::vector<uint32_t>;
constexpr uint32_t kBase = 1000000000;

void mul_small(Big& b, uint32_t k) {  // k < 2^32: limb·k + carry stays below 2^64
  uint64_t carry = 0;
  for (auto& limb : b) {
    const uint64_t t = uint64_t{limb} * k + carry;
    limb = static_cast<uint32_t>(t % kBase);
    carry = t / kBase;
  }
  for (; carry; carry /= kBase) b.push_back(static_cast<uint32_t>(carry % kBase));
}

void mul_pow2(Big& b, int n) {
  for (; n > 0; n -= 31) mul_small(b, uint32_t{1} << std::min(n, 31));
}

void mul_pow5(Big& b, int n) {
  for (; n > 0; n -= 13) {
    uint32_t k = 1;
    for (int i = std::min(n, 13); i > 0; --i) k *= 5;  // 5^13 < 2^31
    mul_small(b, k);
  }
}

void mul_pow10(Big& b, int n) {
  if (b.empty()) return;
  b.insert(b.begin(), static_cast<size_t>(n / 9), 0);
  uint32_t k = 1;
  for (int i = n % 9; i > 0; --i) k *= 10;
  mul_small(b, k);
}

Big from_u64(uint64_t x) {
  Big b;
  for (; x; x /= kBase) b.push_back(static_cast<uint32_t>(x % kBase));
  return b;
}

// From decimal digits without leading zeros ("" is 0).
Big from_digits(std::string_view d) {
  Big b;
  for (size_t end = d.size(); end > 0; end = end > 9 ? end - 9 : 0) {
    const size_t start = end > 9 ? end - 9 : 0;
    uint32_t limb = 0;
    for (size_t i = start; i < end; ++i) limb = limb * 10 + static_cast<uint32_t>(d[i] - '0');
    b.push_back(limb);
  }
  return b;
}

int compare(const Big& a, const Big& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  for (size_t i = a.size(); i-- > 0;)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

std::string to_digits(const Big& b) {
  if (b.empty()) return "";
  std::string s = std::to_string(b.back());
  for (size_t i = b.size() - 1; i-- > 0;) {
    const std::string limb = std::to_string(b[i]);
    s.append(9 - limb.size(), '0').append(limb);
  }
  return s;
}

// A finite double ≥ 0 as m·2^e with m an integer below 2^53.
struct Binary {
  uint64_t m;
  int e;
};
Binary binary(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  return biased == 0 ? Binary{fraction, -1074} : Binary{fraction | (uint64_t{1} << 52), biased - 1075};
}

// |v| = 0.d × 10^point exactly, d without leading zeros; d empty for 0.
struct Digits {
  std::string d;
  int point = 0;
};

Digits exact_digits(double v) {
  const Binary x = binary(std::fabs(v));
  if (x.m == 0) return {};
  Big b = from_u64(x.m);
  int shift = 0;  // |v| = b · 10^-shift
  if (x.e >= 0) mul_pow2(b, x.e);
  else mul_pow5(b, shift = -x.e);
  Digits out{to_digits(b), 0};
  out.point = static_cast<int>(out.d.size()) - shift;
  return out;
}

// Keeps the first `keep` digits, rounded half to even on the exact value (what glibc and
// musl do): up past a half, down below it, and at exactly a half to the even digit.
void round_digits(Digits& x, int keep) {
  if (keep >= static_cast<int>(x.d.size())) return;
  if (keep < 0) {  // below a tenth of the last kept unit
    x.d.clear();
    return;
  }
  const auto k = static_cast<size_t>(keep);
  const char next = x.d[k];
  const bool beyond_half = x.d.find_first_not_of('0', k + 1) != std::string::npos;
  const bool odd = k > 0 && (x.d[k - 1] - '0') % 2 == 1;
  const bool up = next > '5' || (next == '5' && (beyond_half || odd));
  x.d.resize(k);
  if (!up) return;
  size_t i = k;
  while (i > 0 && x.d[i - 1] == '9') x.d[--i] = '0';
  if (i == 0) {
    x.d.insert(x.d.begin(), '1');
    ++x.point;
  } else {
    ++x.d[i - 1];
  }
}

char digit_at(const Digits& x, int i) {
  return i >= 0 && i < static_cast<int>(x.d.size()) ? x.d[static_cast<size_t>(i)] : '0';
}

// The rounded digits in the fixed style with `decimals` places.
std::string fixed_text(const Digits& x, int decimals) {
  std::string s;
  if (x.d.empty() || x.point <= 0) s = "0";
  else
    for (int i = 0; i < x.point; ++i) s += digit_at(x, i);
  if (decimals > 0) s += '.';
  for (int j = 0; j < decimals; ++j) s += x.d.empty() ? '0' : digit_at(x, x.point + j);
  return s;
}

// inf and nan as printf writes them, with the sign; nullptr for a finite v.
const char* non_finite(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return nullptr;
}

std::string drop_trailing_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

// ---- Reading: the nearest double to D·10^E, by exact comparison with the midpoints
// between neighbouring doubles (Clinger 1990's correction step on big integers).
struct Decimal {
  std::string d;        // significant digits, no leading zeros ("" for 0)
  int e = 0;            // value = d · 10^e
  bool sticky = false;  // nonzero digits dropped beyond the ones kept in d
  bool negative = false;
};

constexpr size_t kMaxDigits = 800;  // past every digit that can decide a double's rounding

Decimal read_decimal(std::string_view t) {
  Decimal x;
  size_t i = 0;
  x.negative = i < t.size() && t[i] == '-';
  if (x.negative || (i < t.size() && t[i] == '+')) ++i;
  bool fraction = false;
  int dropped = 0;
  for (; i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.'); ++i) {
    if (t[i] == '.') {
      fraction = true;
      continue;
    }
    if (fraction) --x.e;
    if (x.d.empty() && t[i] == '0') continue;
    if (x.d.size() < kMaxDigits) {
      x.d += t[i];
    } else {
      ++dropped;
      x.sticky = x.sticky || t[i] != '0';
    }
  }
  x.e += dropped;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    const bool down = ++i < t.size() && t[i] == '-';
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
    int n = 0;
    for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i)
      if (n < 100000) n = n * 10 + (t[i] - '0');
    x.e += down ? -n : n;
  }
  return x;
}

// Sign of D·10^E (+ sticky) − c·2^f.
int compare_to(const Decimal& x, uint64_t c, int f) {
  Big left = from_digits(x.d), right = from_u64(c);
  if (x.e > 0) mul_pow10(left, x.e);
  else mul_pow10(right, -x.e);
  if (f > 0) mul_pow2(right, f);
  else mul_pow2(left, -f);
  const int r = compare(left, right);
  return r == 0 && x.sticky ? 1 : r;
}

// Sign of the value − the midpoint between the doubles a < b (b = 2^1024 past the largest).
int compare_to_midpoint(const Decimal& x, Binary a, Binary b) {
  const int e = std::min(a.e, b.e);
  const uint64_t c = (a.m << (a.e - e)) + (b.m << (b.e - e));  // below 2^55
  return compare_to(x, c, e - 1);
}

bool odd(double v) { return binary(v).m & 1; }

double nearest(const Decimal& x, double guess) {
  const Binary beyond{uint64_t{1} << 53, 971};  // 2^1024
  double v = std::isinf(guess) ? DBL_MAX : guess;
  for (int step = 0; step < 4096; ++step) {  // the guess is a few units in the last place off
    const double up = std::nextafter(v, INFINITY);
    const int above = compare_to_midpoint(x, binary(v), v == DBL_MAX ? beyond : binary(up));
    if (above > 0 || (above == 0 && odd(v))) {
      if (v == DBL_MAX) return INFINITY;
      v = up;
      continue;
    }
    if (v == 0) break;
    const double down = std::nextafter(v, 0.0);
    const int below = compare_to_midpoint(x, binary(down), binary(v));
    if (below < 0 || (below == 0 && odd(v))) {
      v = down;
      continue;
    }
    break;
  }
  return v;
}

}  // namespace

std::string format_fixed(double v, int decimals) {
  if (const char* s = non_finite(v)) return s;
  Digits x = exact_digits(v);
  round_digits(x, x.point + decimals);
  return (std::signbit(v) ? "-" : "") + fixed_text(x, decimals);
}

std::string format_general(double v, int precision) {
  if (const char* s = non_finite(v)) return s;
  const int p = std::max(precision, 1);
  Digits x = exact_digits(v);
  round_digits(x, p);
  const int exponent = x.d.empty() ? 0 : x.point - 1;
  std::string s;
  if (exponent >= -4 && exponent < p) {
    s = drop_trailing_zeros(fixed_text(x, p - 1 - exponent));
  } else {
    s = drop_trailing_zeros(fixed_text(Digits{x.d, 1}, p - 1));
    const int n = std::abs(exponent);
    s += exponent < 0 ? "e-" : "e+";
    s += (n < 10 ? "0" : "") + std::to_string(n);
  }
  return (std::signbit(v) ? "-" : "") + s;
}

std::string format_printf(const char* format, double v) {
  std::string out;
  for (const char* c = format; *c; ++c) {
    if (c[0] == '%' && c[1] == '%') {
      out += '%';
      ++c;
      continue;
    }
    int n = 0;
    const char* k = c + 2;
    if (c[0] == '%' && c[1] == '.' && std::isdigit(static_cast<unsigned char>(*k))) {
      for (; std::isdigit(static_cast<unsigned char>(*k)); ++k) n = n * 10 + (*k - '0');
      if (*k == 'f' || *k == 'g') {
        out += *k == 'f' ? format_fixed(v, n) : format_general(v, n);
        c = k;
        continue;
      }
    }
    out += *c;
  }
  return out;
}

double parse_decimal(std::string_view text) {
  const Decimal x = read_decimal(text);
  const double sign = x.negative ? -1.0 : 1.0;
  if (x.d.empty()) return sign * 0.0;
  const int magnitude = static_cast<int>(x.d.size()) + x.e;  // value in [10^(magnitude-1), 10^magnitude)
  if (magnitude > 310) return sign * INFINITY;
  if (magnitude < -324) return sign * 0.0;  // below 10^-325, under half of 2^-1074
  // A first guess from the leading 19 digits, within a few units in the last place; the
  // power of ten in two halves so that neither leaves the double range on its own.
  const size_t lead = std::min<size_t>(x.d.size(), 19);
  uint64_t m = 0;
  for (size_t i = 0; i < lead; ++i) m = m * 10 + static_cast<uint64_t>(x.d[i] - '0');
  const int e = x.e + static_cast<int>(x.d.size() - lead), half = e / 2;
  const double guess = static_cast<double>(m) * std::pow(10.0, half) * std::pow(10.0, e - half);
  return sign * nearest(x, guess);
}

}  // namespace gpucalc
