// core/src/decimal: the core's printf "%.Nf"/"%.Ng" and strtod must give exactly what the C
// library gives (glibc natively, musl in the wasm suite; both are exact), on random doubles
// of every magnitude, on decimal ties, and on the numbers halfway between two doubles.
#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "../../core/src/decimal.hpp"

using gpucalc::format_fixed;
using gpucalc::format_general;
using gpucalc::format_printf;
using gpucalc::parse_decimal;

namespace {

std::string c_format(const char* spec, int precision, double v) {
  char buf[2048];
  std::snprintf(buf, sizeof buf, spec, precision, v);
  return buf;
}

double from_bits(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

uint64_t to_bits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

// Doubles of every kind: any bit pattern (subnormals and huge ones included), the values an
// answer prints (days, percentages, GiB), and exact decimal ties such as 0.125 and 2.5.
double random_double(std::mt19937_64& rng, int kind) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  switch (kind % 4) {
    case 0: {
      double v;
      do v = from_bits(rng());
      while (!std::isfinite(v));
      return v;
    }
    case 1: return (unit(rng) - 0.5) * std::pow(10.0, std::uniform_int_distribution<int>(-6, 16)(rng));
    case 2: return static_cast<double>(std::uniform_int_distribution<int>(-99999, 99999)(rng)) / 8.0;
    default: return static_cast<double>(std::uniform_int_distribution<int>(0, 2000)(rng)) * 0.005;
  }
}

}  // namespace

TEST_CASE("format_fixed and format_general write what printf writes", "[decimal]") {
  std::mt19937_64 rng(20261206);
  for (int i = 0; i < 6000; ++i) {
    const double v = random_double(rng, i);
    for (int p : {0, 1, 2, 3, 4}) {
      INFO("v = " << c_format("%.*e", 17, v) << ", precision " << p);
      if (std::fabs(v) < 1e30) REQUIRE(format_fixed(v, p) == c_format("%.*f", p, v));
      REQUIRE(format_general(v, p) == c_format("%.*g", p, v));
    }
    REQUIRE(format_general(v, 6) == c_format("%.*g", 6, v));
    REQUIRE(format_general(v, 17) == c_format("%.*g", 17, v));
  }
}

TEST_CASE("the edges of printf's formats", "[decimal]") {
  const double values[] = {0.0,      -0.0,      0.5,     1.5,      2.5,       -0.5,         0.125,     0.375,
                           2.675,    9.995,     99.95,   999999.5, 1e15,      1e-5,         0.0001,    0.00001234,
                           123456.0, 1234567.0, DBL_MAX, -DBL_MAX, DBL_MIN,   DBL_TRUE_MIN, 4194304.0, 1e21,
                           1e22,     1e23,      0.1,     0.3,      1.0 / 3.0, 9.5,          0.05};
  for (double v : values)
    for (int p = 0; p <= 17; ++p) {
      INFO("v = " << c_format("%.*e", 17, v) << ", precision " << p);
      REQUIRE(format_fixed(v, p) == c_format("%.*f", p, v));
      REQUIRE(format_general(v, p) == c_format("%.*g", p, v));
    }
  CHECK(format_fixed(INFINITY, 1) == "inf");
  CHECK(format_fixed(-INFINITY, 1) == "-inf");
  CHECK(format_general(NAN, 3) == "nan");
  // Worked by hand: 2.675 is 2.67499999999999982236431605997495353221893310546875 in binary,
  // so it rounds down; 0.125 is exact, a tie, and goes to the even digit.
  CHECK(format_fixed(2.675, 2) == "2.67");
  CHECK(format_fixed(0.125, 2) == "0.12");
  CHECK(format_general(1e15, 4) == "1e+15");
  CHECK(format_general(0.0001, 3) == "0.0001");
  CHECK(format_general(123456.0, 3) == "1.23e+05");
}

TEST_CASE("format_printf replaces the one conversion and keeps the text around it", "[decimal]") {
  CHECK(format_printf("%.1f GiB", 79.25) == "79.2 GiB");
  CHECK(format_printf("%.0f published runs of the regime ", 32.0) == "32 published runs of the regime ");
  CHECK(format_printf("%.4gT", 15.6e0) == "15.6T");
  CHECK(format_printf("%.3f", 1.0005) == c_format("%.*f", 3, 1.0005));
  CHECK(format_printf("100%% at %.0f", 7.5) == "100% at 8");
}

TEST_CASE("parse_decimal reads what strtod reads", "[decimal]") {
  std::mt19937_64 rng(61202026);
  std::uniform_int_distribution<int> digit(0, 9), count(1, 30), exponent(-345, 330);
  for (int i = 0; i < 4000; ++i) {
    std::string s = i % 3 == 0 ? "-" : "";
    const int n = count(rng);
    s += static_cast<char>('1' + digit(rng) % 9);
    for (int k = 1; k < n; ++k) {
      if (k == n / 2 && i % 2) s += '.';
      s += static_cast<char>('0' + digit(rng));
    }
    s += "e" + std::to_string(exponent(rng));
    INFO(s);
    const double want = std::strtod(s.c_str(), nullptr);
    REQUIRE(to_bits(parse_decimal(s)) == to_bits(want));
  }
}

TEST_CASE("parse_decimal on the numbers halfway between two doubles, and either side", "[decimal]") {
  // The midpoint of two neighbouring doubles needs 54 bits: exact in long double (x87's 64
  // natively, 113 in wasm), whose every decimal digit printf writes.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 400; ++i) {
    double v;
    do v = std::fabs(from_bits(rng()));
    while (!std::isfinite(v) || v < DBL_MIN || v >= DBL_MAX);
    const long double mid = (static_cast<long double>(v) + std::nextafter(v, INFINITY)) / 2;
    char buf[1400];
    std::snprintf(buf, sizeof buf, "%.1200Lg", mid);
    std::string exact = buf;
    if (exact.find('e') == std::string::npos && exact.find('.') == std::string::npos) exact += ".0";
    const std::string mantissa = exact.substr(0, exact.find('e')),
                      tail = exact.find('e') == std::string::npos ? "" : exact.substr(exact.find('e'));
    for (const std::string& s : {exact, mantissa + "1" + tail, mantissa.substr(0, mantissa.size() - 1) + tail}) {
      if (s.find('.') == std::string::npos) continue;  // trimmed past the point: not a ±1 neighbour
      INFO(s.substr(0, 60) << "…");
      REQUIRE(to_bits(parse_decimal(s)) == to_bits(std::strtod(s.c_str(), nullptr)));
    }
  }
}

TEST_CASE("parse_decimal at the ends of the double range", "[decimal]") {
  const char* edges[] = {"0",
                         "-0.0",
                         "0e400",
                         "1e-400",
                         "2.4703282292062327e-324",
                         "2.4703282292062328e-324",
                         "4.9406564584124654e-324",
                         "2.2250738585072011e-308",
                         "2.2250738585072012e-308",
                         "1.7976931348623157e308",
                         "1.7976931348623158e308",
                         "1.7976931348623159e308",
                         "1e309",
                         "-1e400",
                         "123456789012345678901234567890",
                         "9007199254740993",
                         "0.1",
                         "1.00000000000000011102230246251565404236316680908203125",
                         "1.00000000000000011102230246251565404236316680908203124",
                         "1.00000000000000011102230246251565404236316680908203126"};
  for (const char* s : edges) {
    INFO(s);
    REQUIRE(to_bits(parse_decimal(s)) == to_bits(std::strtod(s, nullptr)));
  }
  // 900 digits: the ones past the 800 kept still decide a tie.
  const std::string tie = "1.00000000000000011102230246251565404236316680908203125";
  const std::string longer = tie + std::string(900, '0') + "1";
  CHECK(parse_decimal(longer) == std::nextafter(1.0, 2.0));
  CHECK(parse_decimal(tie + std::string(900, '0')) == 1.0);
}
