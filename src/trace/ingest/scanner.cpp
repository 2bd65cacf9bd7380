#include "trace/ingest/scanner.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <charconv>
#include <cstring>
#include <functional>
#include <limits>
#include <string_view>
#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/error.hpp"
#include "core/threads.hpp"

namespace sextant::trace {

namespace {

constexpr int64_t kNoInt = std::numeric_limits<int64_t>::min();

struct SyntaxError {
  const char* at;
  std::string what;
  uint64_t offset = UINT64_MAX;  // where in the text, when `at` may have left the window (else from `at`)
};

inline bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// First position in [p, e) that is not JSON whitespace (see skip_ws), from a run of two or more.
// Kineto's pretty-printed traces indent every key (",\n    \"ts\""): one vector compare finds the
// end of such a run without a byte loop whose exit is mispredicted. Loads stay inside [p, e)
// (the tail is read byte by byte).
[[gnu::noinline]] const char* skip_ws_run(const char* p, const char* e) {
#if defined(__SSE2__)
  const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
  while (e - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
                                    _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)));
    const unsigned m = ~static_cast<unsigned>(_mm_movemask_epi8(ws)) & 0xFFFFu;
    if (m) return p + __builtin_ctz(m);
    p += 16;
  }
#endif
  while (p < e && is_ws(*p)) ++p;
  return p;
}

// First position in [p, e) that is not JSON whitespace. Most tokens follow the previous one
// directly or after a single blank ("\"ph\": \"X\""): those two cases are tested inline.
[[gnu::always_inline]] inline const char* skip_ws(const char* p, const char* e) {
  if (p >= e || !is_ws(*p)) return p;
  if (p + 1 < e && !is_ws(p[1])) return p + 1;
  return skip_ws_run(p, e);
}

// Four hex digits at s (the caller has checked they are in the buffer) as a code unit, or -1.
inline int hex4(const char* s) {
  int v = 0;
  for (int i = 0; i < 4; ++i) {
    const char c = s[i];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// Decodes JSON escapes of [b, q) into out. Returns false when an escape is not JSON (an unknown
// letter, \u without four hex digits, an unpaired surrogate): such an escape is kept as written
// (a lone surrogate as U+FFFD), and the caller counts a diagnostic. (Before 2026-12-05 "\uZZZZ"
// decoded silently as a NUL byte.)
bool unescape(const char* b, const char* q, std::string& out) {
  out.clear();
  bool ok = true;
  auto put = [&out](unsigned cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  };
  for (const char* s = b; s < q; ++s) {
    if (*s != '\\') {
      out.push_back(*s);
      continue;
    }
    ++s;
    if (s >= q) {
      out.push_back('\\');
      return false;
    }
    switch (*s) {
      case 'n': out.push_back('\n'); break;
      case 't': out.push_back('\t'); break;
      case 'r': out.push_back('\r'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case '"':
      case '\\':
      case '/': out.push_back(*s); break;
      case 'u': {
        const int hi = q - s >= 5 ? hex4(s + 1) : -1;
        if (hi < 0) {  // kept as written
          out.push_back('\\');
          out.push_back('u');
          ok = false;
          break;
        }
        s += 4;
        unsigned cp = static_cast<unsigned>(hi);
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          const int lo = q - s >= 7 && s[1] == '\\' && s[2] == 'u' ? hex4(s + 3) : -1;
          if (lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<unsigned>(lo) - 0xDC00);
            s += 6;
          } else {
            cp = 0xFFFD;
            ok = false;
          }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          cp = 0xFFFD;
          ok = false;
        }
        put(cp);
        break;
      }
      default:  // not a JSON escape: kept as written
        out.push_back('\\');
        out.push_back(*s);
        ok = false;
        break;
    }
  }
  return ok;
}

// Structural search, 16 bytes at a time with SSE2 (part of the x86-64 baseline, so no runtime
// dispatch is needed; other targets take the byte loop). Loads stay inside [p, e): the tail
// shorter than a vector is scanned byte by byte, so no read goes past the window.
#if defined(__SSE2__)
inline unsigned mask16(__m128i m) { return static_cast<unsigned>(_mm_movemask_epi8(m)); }
#endif

// First position in [p, e) holding '"' or '\\'; e (or p when p > e) when there is none.
inline const char* find_quote_or_backslash(const char* p, const char* e) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
  while (e - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const unsigned m = mask16(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)));
    if (m) return p + __builtin_ctz(m);
    p += 16;
  }
#endif
  while (p < e && *p != '"' && *p != '\\') ++p;
  return p;
}

// First position in [p, e) holding '"', '{', '}', '[' or ']'. ('[' and '{' differ only in bit
// 0x20, as do ']' and '}', so two compares after OR-ing 0x20 find all four brackets.)
inline const char* find_structural(const char* p, const char* e) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}'),
                lower = _mm_set1_epi8(0x20);
  while (e - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i f = _mm_or_si128(v, lower);
    const unsigned m = mask16(_mm_or_si128(_mm_cmpeq_epi8(v, quote),
                                           _mm_or_si128(_mm_cmpeq_epi8(f, open), _mm_cmpeq_epi8(f, close))));
    if (m) return p + __builtin_ctz(m);
    p += 16;
  }
#endif
  while (p < e && *p != '"' && *p != '{' && *p != '}' && *p != '[' && *p != ']') ++p;
  return p;
}

// p at '"'. Returns the position after the closing quote, or nullptr when the buffer ends first.
// `out` views the raw text, or `scratch` when escapes had to be decoded.
// *bad_escape (when given) is set when an escape was not JSON (unescape).
inline const char* parse_string(const char* p, const char* e, std::string_view& out, std::string& scratch, bool* bad_escape = nullptr) {
  const char* b = p + 1;
  const char* s = find_quote_or_backslash(b, e);
  if (s >= e) return nullptr;
  if (*s == '"') {
    out = std::string_view(b, static_cast<size_t>(s - b));
    return s + 1;
  }
  // Slow path: find the real closing quote (not escaped).
  for (;;) {
    if (s >= e) return nullptr;
    if (*s == '\\') {
      s = find_quote_or_backslash(s + 2, e);
      continue;
    }
    break;
  }
  if (!unescape(b, s, scratch) && bad_escape) *bad_escape = true;
  out = scratch;
  return s + 1;
}

inline const char* skip_string(const char* p, const char* e) {
  const char* s = p + 1;
  for (;;) {
    s = find_quote_or_backslash(s, e);
    if (s >= e) return nullptr;
    if (*s == '"') return s + 1;
    s += 2;  // an escape: the next character is never the closing quote
  }
}

struct Number {
  bool ok = false;
  bool integral = true;       // no fraction or exponent
  bool has_fraction = false;  // written with a non-zero fraction
  int64_t ival = 0;           // integer part (when integral)
  int64_t milli = 0;          // value * 1000, rounded (µs -> ns)
  bool out_of_range = false;  // |value * 1000| does not fit in int64 (or is not finite): milli is 0
};

inline bool is_num_char(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// SWAR digit parsing on one 64-bit word of 8 characters (little-endian: the first character in
// the low byte). digit_run_mask has a zero byte for each decimal digit; digits_value converts a
// word of 8 digit values (0-9, the first the most significant) by pairing digits, then pairs,
// then quadruples with multiply-shift steps.
inline uint64_t load8(const char* s) {
  uint64_t x;
  std::memcpy(&x, s, 8);
  if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
  return x;
}
inline uint64_t digit_run_mask(uint64_t x) {
  // '0'..'9' are 0x30..0x39: high nibble 3, and adding 6 leaves the high nibble 3. A carry out of
  // a byte (only from bytes >= 0xFA, never from a digit) changes only the bytes after it, which
  // are after the first non-digit and not used.
  return ((x & 0xF0F0F0F0F0F0F0F0ull) | (((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) ^
         0x3333333333333333ull;
}
inline uint64_t digits_value(uint64_t v) {
  v = (v * 10) + (v >> 8);
  v = (((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
       (((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
      32;
  return static_cast<uint32_t>(v);
}

// p at the first character of a number. Returns nullptr when the number may continue past e.
inline const char* parse_number(const char* p, const char* e, Number& n) {
  const char* s = p;
  bool neg = false;
  if (s < e && *s == '-') {
    neg = true;
    ++s;
  }
  uint64_t ip = 0;
  const char* d0 = s;
  // Integer digits 8 at a time: a word of 8 digits is added whole; a shorter run (pid, dur, the
  // tail of a 16-digit µs timestamp) is shifted so that zeros lead, then converted the same way,
  // without a loop whose exit depends on the length. Past 19 digits ip wraps, as a byte loop's
  // would: such values are flagged below. The last 7 bytes of the text are read byte by byte.
  static constexpr uint64_t kPow10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
  while (e - s >= 8) {
    const uint64_t x = load8(s);
    const uint64_t t = digit_run_mask(x);
    if (t == 0) {
      ip = ip * 100000000u + digits_value(x - 0x3030303030303030ull);
      s += 8;
      continue;
    }
    const unsigned k = static_cast<unsigned>(__builtin_ctzll(t)) >> 3;  // digits before the first other byte
    if (k) {
      ip = ip * kPow10[k] + digits_value((x - 0x3030303030303030ull) << (8 * (8 - k)));
      s += k;
    }
    break;  // at a non-digit: the byte loop below stops at once
  }
  while (s < e && *s >= '0' && *s <= '9') ip = ip * 10 + static_cast<uint64_t>(*s++ - '0');
  if (s >= e) return nullptr;
  if (s == d0) throw SyntaxError{p, "invalid number"};
  const ptrdiff_t int_digits = s - d0;
  int64_t frac3 = 0;
  int frac_digits = 0;
  bool round_up = false;
  bool nonzero_frac = false;
  if (*s == '.') {
    ++s;
    const char* f0 = s;
    // Kineto's ns-resolution timestamps and durations have 3 fraction digits: a run of 1 to 7
    // fraction digits followed by another byte within one word is read whole (the first 3 digits,
    // unpadded, give frac3; the 4th decides the rounding; any non-zero digit sets nonzero_frac),
    // exactly as the byte loop below reads it. Longer runs and the text's last bytes take the loop.
    if (e - s >= 8) {
      const uint64_t x = load8(s);
      const uint64_t t = digit_run_mask(x);
      const unsigned k = t ? static_cast<unsigned>(__builtin_ctzll(t)) >> 3 : 8;
      if (k >= 1 && k <= 7) {
        const uint64_t v = (x - 0x3030303030303030ull) & ((uint64_t{1} << (8 * k)) - 1);
        const unsigned k3 = k < 3 ? k : 3;  // unpadded, as the loop leaves it (padded below)
        frac3 = static_cast<int64_t>(digits_value((v & ((uint64_t{1} << (8 * k3)) - 1)) << (8 * (8 - k3))));
        round_up = k >= 4 && ((v >> 24) & 0xFF) >= 5;
        nonzero_frac = v != 0;
        frac_digits = static_cast<int>(k);
        s += k;
        goto fraction_done;
      }
    }
    while (s < e && *s >= '0' && *s <= '9') {
      int d = *s - '0';
      if (d) nonzero_frac = true;
      if (frac_digits < 3) {
        frac3 = frac3 * 10 + d;
      } else if (frac_digits == 3) {
        round_up = d >= 5;
      }
      ++frac_digits;
      ++s;
    }
    if (s >= e) return nullptr;
    if (s == f0) throw SyntaxError{p, "invalid number"};
  }
fraction_done:
  if (*s == 'e' || *s == 'E') {
    // Rare (Python's json writes floats from 1e16 so): read exactly, digit by digit, as the plain
    // form is. It had gone through a double, which at 1.69e15 µs steps every 256 ns (a kernel's ts
    // 68 ns off; review of 2026-12-05).
    const char* t = s + 1;
    bool eneg = false;
    if (t < e && (*t == '+' || *t == '-')) eneg = *t++ == '-';
    const char* x0 = t;
    int64_t ex = 0;
    while (t < e && *t >= '0' && *t <= '9') {
      if (ex < 100000) ex = ex * 10 + (*t - '0');
      ++t;
    }
    if (t >= e) return nullptr;
    if (t == x0) throw SyntaxError{p, "invalid number"};
    if (eneg) ex = -ex;
    // The mantissa's digits (leading zeros dropped) and the power of ten of the last one, in ns.
    std::string digits;
    int frac_len = 0;
    bool in_frac = false;
    for (const char* q = d0; q < s; ++q) {
      if (*q == '.') {
        in_frac = true;
        continue;
      }
      if (in_frac) ++frac_len;
      if (digits.empty() && *q == '0') continue;
      digits.push_back(*q);
    }
    const int64_t shift = ex - frac_len + 3;  // value x 1000 = digits x 10^shift
    n.ok = true;
    if (digits.empty()) {  // zero
      n.integral = true;
      return t;
    }
    // Digits kept at the ns resolution, the first dropped one rounding half up (as the plain form).
    const int64_t keep = static_cast<int64_t>(digits.size()) + std::min<int64_t>(shift, 0);
    // At most 19 digits fit in uint64 (and the value x 1000 must then fit in int64).
    if (keep + std::max<int64_t>(shift, 0) > 19) {
      n.out_of_range = true;
      n.integral = false;
      return t;
    }
    uint64_t m = 0;
    for (int64_t i = 0; i < keep; ++i) m = m * 10 + static_cast<uint64_t>(digits[static_cast<size_t>(i)] - '0');
    for (int64_t i = 0; i < shift; ++i) m *= 10;
    bool dropped_nonzero = false;
    for (size_t i = static_cast<size_t>(std::max<int64_t>(keep, 0)); i < digits.size(); ++i) dropped_nonzero |= digits[i] != '0';
    if (keep >= 0 && keep < static_cast<int64_t>(digits.size()) && digits[static_cast<size_t>(keep)] >= '5') ++m;
    if (m > static_cast<uint64_t>(INT64_MAX) - 1000) {
      n.out_of_range = true;
      n.integral = false;
      return t;
    }
    const int64_t mi = static_cast<int64_t>(m);
    n.integral = !dropped_nonzero && mi % 1000 == 0;
    n.has_fraction = !n.integral;
    n.ival = neg ? -(mi / 1000) : mi / 1000;
    n.milli = neg ? -mi : mi;
    return t;
  }
  for (int k = frac_digits; k < 3; ++k) frac3 *= 10;
  // More than 18 integer digits, or a value whose x1000 overflows int64: flagged, never wrapped.
  // (The fraction's digits do not count: 1683564901552538.125, an epoch µs timestamp with ns
  // resolution, fits; counting them flagged every such value with 15 and more integer digits.)
  constexpr uint64_t kMaxIntegral = (static_cast<uint64_t>(INT64_MAX) - 1000) / 1000;
  if (int_digits > 18 || ip > kMaxIntegral) {
    n.ok = true;
    n.out_of_range = true;
    // As an integer (a stream, a correlation id) up to 18 digits still fits; beyond, it is not an
    // integer the columns can hold (before 2026-12-03 ival stayed 0: stream 2^63 became stream 0).
    n.integral = frac_digits == 0 && int_digits <= 18;
    n.ival = n.integral ? (neg ? -static_cast<int64_t>(ip) : static_cast<int64_t>(ip)) : 0;
    return s;
  }
  int64_t m = static_cast<int64_t>(ip) * 1000 + frac3 + (round_up ? 1 : 0);
  n.ok = true;
  n.integral = frac_digits == 0;
  n.has_fraction = nonzero_frac;
  n.ival = neg ? -static_cast<int64_t>(ip) : static_cast<int64_t>(ip);
  n.milli = neg ? -m : m;
  return s;
}

// Skips any JSON value starting at p (after whitespace). nullptr when incomplete.
const char* skip_value(const char* p, const char* e) {
  p = skip_ws(p, e);
  if (p >= e) return nullptr;
  char c = *p;
  if (c == '"') return skip_string(p, e);
  if (c == '{' || c == '[') {
    int depth = 0;
    const char* s = p;
    for (;;) {
      s = find_structural(s, e);
      if (s >= e) return nullptr;
      const char ch = *s;
      if (ch == '"') {
        s = skip_string(s, e);
        if (!s) return nullptr;
        continue;
      }
      if (ch == '{' || ch == '[') {
        ++depth;
      } else if (--depth == 0) {
        return s + 1;
      }
      ++s;
    }
  }
  // NaN and the infinities are not JSON, but Python's json module writes them and older Kineto
  // wrote "memory bandwidth (GB/s)": inf for a copy of zero duration (pytorch/kineto#105): a value
  // that is skipped (or read as no value) is no reason to refuse the file, as it was before
  // 2026-12-02 ("unexpected character 'I'").
  auto non_finite = [](std::string_view w) {
    return w == "NaN" || w == "nan" || w == "Infinity" || w == "inf" || w == "-Infinity" || w == "-inf" || w == "-nan";
  };
  if (c == 't' || c == 'f' || c == 'n' || c == 'N' || c == 'I' || c == 'i' ||
      (c == '-' && p + 1 < e && (p[1] == 'I' || p[1] == 'i' || p[1] == 'n'))) {
    const char* s = p + (c == '-' ? 1 : 0);
    while (s < e && ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) ++s;
    if (s >= e) return nullptr;
    std::string_view w(p, static_cast<size_t>(s - p));
    if (w != "true" && w != "false" && w != "null" && !non_finite(w)) throw SyntaxError{p, "invalid literal"};
    return s;
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    const char* s = p + 1;
    // Skipped args values are mostly short integers ("Ev Idx": 2777): their digits are passed a
    // word at a time, the rest (sign, fraction, exponent, the text's last bytes) byte by byte.
    while (e - s >= 8) {
      const uint64_t t = digit_run_mask(load8(s));
      if (t) {
        s += static_cast<unsigned>(__builtin_ctzll(t)) >> 3;
        break;
      }
      s += 8;
    }
    while (s < e && is_num_char(*s)) ++s;
    if (s >= e) return nullptr;
    return s;
  }
  throw SyntaxError{p, std::string("unexpected character '") + c + "'"};
}

// Operators whose shapes the roofline analysis uses (aten::mm, addmm, bmm, baddbmm, linear,
// matmul, convolution, attention).
inline bool is_shape_op(std::string_view n) {
  if (n.substr(0, 6) != "aten::") return false;
  return n.find("mm") != std::string_view::npos || n.find("linear") != std::string_view::npos ||
         n.find("matmul") != std::string_view::npos || n.find("conv") != std::string_view::npos ||
         n.find("attention") != std::string_view::npos;
}

// Fields of one event, filled before committing it to the columns: the plain values here (reset
// by one assignment from a fresh copy, no zeroing of a temporary), the owned strings below.
struct EventScalars {
  char ph = 0;
  bool has_ph = false;
  std::string_view cat;
  bool has_cat = false;
  std::string_view name;
  bool has_name = false;
  Number ts, dur;
  int64_t pid = kNoInt, tid = kNoInt;
  // A pid or tid given as a string (pid_is_text / tid_is_text); or, when not a text, the raw JSON
  // text of a number that is not an integer of at most 18 digits (7.5, 1e20, 2^64 - 1): pid/tid
  // then stay kNoInt, and the number is kept apart under a code keyed by its text (2026-12-06
  // review: such ids had read as no value, so that two GPU streams merged into one).
  std::string_view pid_text, tid_text;
  bool pid_is_text = false, tid_is_text = false;
  int64_t stream = -1;
  bool stream_not_int = false;
  bool bad_escape = false;  // a key or string of the event had an escape that is not JSON
  int64_t correlation = -1, external_id = -1, bytes = -1, device = -1;
  double bandwidth_gbps = -1;  // "memory bandwidth (GB/s)" of memcpy/memset events
  int64_t wait_stream = -1, wait_record_corr = -1;  // a cuda_sync Stream Wait Event's producer
  bool has_coll = false;       // collective args (coll) seen
  // shapes ("Input Dims", "Input type"), raw JSON text
  std::string_view dims, types;
  // memory
  int64_t mem_bytes = kNoInt, mem_alloc = -1, mem_reserved = -1, mem_device = -1;
};

struct EventFields : EventScalars {
  std::string name_storage;  // name / cat with escapes, decoded
  std::string cat_storage;
  std::string pid_storage, tid_storage;  // pid / tid texts with escapes, decoded
  CollectiveArgs coll;
  bool coll_dirty = false;  // a field of coll was written (or coll moved from) since the last reset

  // Clears the fields but keeps the capacity of the string buffers. The plain values are set one
  // by one: an assignment from EventScalars{} compiles to a block copy or fill (`rep movs`/`rep
  // stos`), which takes longer to start than the stores, once per event. The size check below
  // fails when a field is added to EventScalars: add it here too, then update the size.
  void reset() {
    static_assert(sizeof(void*) != 8 || sizeof(EventScalars) == 320, "a field was added to EventScalars: reset it in EventFields::reset");
    ph = 0;
    has_ph = false;
    cat = {};
    has_cat = false;
    name = {};
    has_name = false;
    ts = Number{};
    dur = Number{};
    pid = tid = kNoInt;
    pid_text = tid_text = {};
    pid_is_text = tid_is_text = false;
    stream = -1;
    stream_not_int = false;
    bad_escape = false;
    correlation = external_id = bytes = device = -1;
    bandwidth_gbps = -1;
    wait_stream = wait_record_corr = -1;
    has_coll = false;
    dims = types = {};
    mem_bytes = kNoInt;
    mem_alloc = mem_reserved = mem_device = -1;
    name_storage.clear();
    cat_storage.clear();
    if (coll_dirty) {  // most events have no collective args: their coll is still the default
      coll = CollectiveArgs{};
      coll_dirty = false;
    }
  }
};

// A direct-mapped cache in front of StringTable::intern for event names (most events repeat a
// name seen shortly before): a hit costs a multiply-shift of the name's length and first and last
// 8 bytes and a compare of those words (names of more than 16 bytes compare the middle too), not
// the table's byte hash, bucket division and node walk. It only returns ids the table returned for
// the same text, so the ids, and their order of first appearance, are the table's.
class InternCache {
 public:
  InternCache() : slots_(kSlots) {}
  uint32_t intern(StringTable& table, std::string_view s) {
    const size_t n = s.size();
    if (n >= UINT32_MAX) return table.intern(s);
    uint64_t first = 0, last = 0;
    if (n >= 8) {
      first = load8(s.data());
      last = load8(s.data() + n - 8);
    } else if (n > 0) {
      std::memcpy(&first, s.data(), n);  // the first n bytes in the low bytes, zeros above
    }
    const uint64_t h = (first * 0x9E3779B97F4A7C15ull) ^ (last * 0xC2B2AE3D27D4EB4Full) ^ (n * 0x165667B19E3779F9ull);
    Slot& slot = slots_[h >> (64 - kSlotBits)];
    if (slot.size == n && slot.first == first && slot.last == last &&
        (n <= 16 || std::memcmp(table.str(slot.id).data() + 8, s.data() + 8, n - 16) == 0))
      return slot.id;
    const uint32_t id = table.intern(s);
    slot = Slot{first, last, static_cast<uint32_t>(n), id};
    return id;
  }

 private:
  static constexpr unsigned kSlotBits = 11;
  static constexpr size_t kSlots = size_t{1} << kSlotBits;
  struct Slot {
    uint64_t first = 0, last = 0;
    uint32_t size = UINT32_MAX;  // UINT32_MAX: empty
    uint32_t id = 0;
  };
  std::vector<Slot> slots_;
};

class Scanner {
 public:
  // A scanner of the tail of traceEvents, from the element at `start` of an in-memory text to the
  // array's end (see events_array): it never hands pages back, the other scanner may still read them.
  Scanner(ByteSource& src, std::string_view whole, size_t start, const std::string& file, RankTrace& out)
      : src_(src), file_(file), out_(out) {
    data_ = whole.data();
    end_ = whole.size();
    pos_ = start;
    eof_ = true;
    in_place_ = true;
    may_release_ = false;
    part_ = true;
  }

  Scanner(ByteSource& src, const std::string& file, RankTrace& out, const ScanOptions& opt)
      : src_(src), file_(file), out_(out), threads_(opt.threads), split_min_bytes_(opt.split_min_bytes) {
    const std::string_view whole = src.contiguous();
    if (src.progressive_data()) {
      // The text is being written into one buffer by the source's thread: read it in place as it
      // grows (fill() waits for more), as a window that never moves.
      data_ = src.progressive_data();
      total_ = src.progressive_size();
      growing_ = true;
    } else if (!whole.empty()) {
      // The whole text is in memory already: scan it in place (no window, no copy).
      data_ = whole.data();
      end_ = whole.size();
      eof_ = true;
      in_place_ = true;
    } else {
      buf_.resize(opt.chunk_bytes + 1);
      data_ = buf_.data();
    }
  }

  void run() {
    out_.file = file_;
    if (!in_place_) fill();
    try {
      top_level();
    } catch (const SyntaxError& se) {
      uint64_t off = se.offset != UINT64_MAX ? se.offset : base_ + static_cast<uint64_t>(se.at - data_);
      // A gzip member damaged mid-stream inflates to garbage before its checksum fails at the end:
      // read the rest, and name the corruption where zlib finds it rather than the first byte of
      // garbage (a flipped byte in a 9 MB .json.gz had read as "expected a key in args at byte
      // offset 5891624", where a 1 MB file named the bad gzip data; review of 2026-12-05).
      // At most 64 MiB further: a multi-GB trace broken near its start is not inflated whole to
      // say so, and only the gzip stream's own damage replaces the JSON error (the decompression
      // limit, reached while looking, had been reported as a gzip bomb).
      if (src_.compressed() && !in_place_) {
        std::vector<char> sink(1 << 16);
        try {
          for (uint64_t more = 0; more < (uint64_t{64} << 20);) {
            const size_t got = src_.read(sink.data(), sink.size());
            if (got == 0) break;
            more += got;
          }
        } catch (const Error& e) {
          const std::string m = e.message();
          if (m.rfind("corrupt gzip data", 0) == 0 || m.rfind("truncated gzip data", 0) == 0) throw;
        }
      }
      throw JsonSyntaxError(SourceLocation{file_, 0, 0, ""},
                            "not a readable JSON trace: " + se.what + " at byte offset " + std::to_string(off),
                            "the file must be a PyTorch profiler (Kineto) Chrome-trace JSON, plain or gzip", off);
    }
    // Text after the top-level value: whitespace is allowed; anything else (a second document
    // appended, garbage) is not part of the trace and is a warning with its size, as a JSON
    // parser would refuse it (it was dropped silently before 2026-12-02). It is read to its end
    // either way, so that raw_bytes is the file's size whichever way it was read.
    // NUL bytes count too: no JSON text holds one, and a complete trace followed by zeros (a
    // file preallocated or extended, its tail never written) had been accepted without a word
    // (review of 2026-12-06). The example names where the first such byte is.
    uint64_t trailing = 0, nuls = 0, first = UINT64_MAX;
    for (;;) {
      for (size_t i = pos_; i < end_; ++i) {
        const char c = data_[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (first == UINT64_MAX) first = base_ + i;
        ++trailing;
        nuls += c == '\0';
      }
      pos_ = end_;
      if (in_place_ || !fill()) break;
    }
    out_.raw_bytes = growing_ ? total_ : base_ + end_;
    if (trailing > 0) {
      const std::string after = std::string(" after the trace's closing ") + (bare_array_ ? "bracket" : "brace") +
                                ", from byte offset " + std::to_string(first);
      out_.diagnostics.add("text after the top-level JSON value: ignored", "warning",
                           nuls == trailing
                               ? std::to_string(nuls) + (nuls == 1 ? " NUL byte" : " NUL bytes") + after +
                                     " (a zero-filled tail: the file was extended or preallocated and not written, or damaged)"
                               : std::to_string(trailing) + " non-whitespace bytes" +
                                     (nuls > 0 ? " (" + std::to_string(nuls) + " of them NUL)" : std::string()) + after +
                                     " (a second document appended, or a damaged file)");
    }
  }

 private:
  // --- buffer ---
  const char* cur() const { return data_ + pos_; }
  const char* lim() const { return data_ + end_; }

  // Moves the unread tail to the front and reads more; grows the window when it is full.
  bool fill() {
    if (eof_) return false;
    if (growing_) {
      const size_t r = src_.wait_ready(end_);  // throws InflateRetry when the writer failed
      if (r == total_) eof_ = true;
      if (r <= end_) return false;
      end_ = r;
      return true;
    }
    if (pos_ > 0) {
      std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
      base_ += pos_;
      end_ -= pos_;
      pos_ = 0;
    }
    if (end_ + 1 >= buf_.size()) {
      buf_.resize(buf_.size() * 2);
      data_ = buf_.data();
    }
    size_t n = src_.read(buf_.data() + end_, buf_.size() - 1 - end_);
    if (n == 0) {
      eof_ = true;
      buf_[end_] = '\0';
      return false;
    }
    end_ += n;
    buf_[end_] = '\0';
    return true;
  }

  [[noreturn]] void truncated() {
    // Text that ends in NUL bytes is a file whose tail was never written (a crash or a full disk
    // leaves the file's length with zeros behind it): said so, from where the zeros start (in the
    // window; review of 2026-12-06).
    const char* z = lim();
    while (z > data_ && z[-1] == '\0') --z;
    if (z < lim())
      throw SyntaxError{z, "the text ends in " + std::to_string(lim() - z) +
                               " NUL bytes from here (a zero-filled tail: the file was not fully written; damaged, not JSON)"};
    throw SyntaxError{lim(), "unexpected end of data (truncated file?)"};
  }

  // Whether the scan is at the end of the text (peek_nonws returned '\0' there, not at a NUL byte).
  bool at_end() const { return pos_ >= end_; }

  // peek_nonws returned '\0': the end of the text (truncated), or a NUL byte, which no JSON text
  // holds (a zero-filled or binary file). Both had read as the end: a file of zeros was an
  // "empty file", a NUL inside one "unexpected end of data" (review of 2026-12-06).
  [[noreturn]] void end_or_nul() {
    if (at_end()) truncated();
    nul_error();
  }
  // A NUL byte at cur(): the start of zeros that run to the end of the text (a zero-filled file or
  // stretch), or a NUL among other bytes (binary data). The zeros are read on, up to 64 MiB.
  [[noreturn]] void nul_error() {
    const uint64_t at = base_ + pos_;
    constexpr uint64_t kLookBytes = uint64_t{64} << 20;
    uint64_t zeros = 0;
    bool to_end = false, limited = false;
    for (;;) {
      const char* p = cur();
      while (p < lim() && *p == '\0') ++p;
      zeros += static_cast<uint64_t>(p - cur());
      pos_ = static_cast<size_t>(p - data_);
      if (p < lim()) break;
      if (!fill()) {
        to_end = true;
        break;
      }
      if (zeros >= kLookBytes) {  // more to read: "at least"
        limited = true;
        break;
      }
    }
    const std::string n = std::to_string(zeros);
    if (to_end)
      throw SyntaxError{cur(),
                        at == 0 ? "the file is zero-filled (" + n + " NUL bytes: damaged, not JSON)"
                                : n + " NUL bytes from here to the end of the file (a zero-filled stretch: damaged, not JSON)",
                        at};
    throw SyntaxError{cur(),
                      (limited ? "at least " : "") + n + " NUL byte" + (zeros > 1 ? "s" : "") +
                          (zeros >= 512 ? " in a row (a zero-filled stretch: damaged, not JSON)"
                                        : " (no JSON text holds one): binary data or a damaged file, not JSON"),
                      at};
  }

  // Runs f(p, e) -> new position or nullptr (needs more data), refilling until it succeeds.
  template <class F>
  void step(F&& f) {
    for (;;) {
      const char* r = f(cur(), lim());
      if (r) {
        pos_ = static_cast<size_t>(r - data_);
        return;
      }
      if (!fill()) {
        // At EOF: let f see the sentinel-terminated end as final.
        truncated();
      }
    }
  }

  char peek_nonws() {
    for (;;) {
      const char* p = skip_ws(cur(), lim());
      pos_ = static_cast<size_t>(p - data_);
      if (p < lim()) return *p;
      if (!fill()) return '\0';
    }
  }

  void expect(char c) {
    char got = peek_nonws();
    if (got != c) {
      if (got == '\0') end_or_nul();
      throw SyntaxError{cur(), std::string("expected '") + c + "'"};
    }
    ++pos_;
  }

  std::string read_key() {
    const char c = peek_nonws();
    if (c != '"') {
      // The end of the text after a top-level '{' or ',' is a truncation, as expect() says (it
      // had read "expected a key string"; review of 2026-12-06).
      if (c == '\0') end_or_nul();
      throw SyntaxError{cur(), "expected a key string"};
    }
    std::string key;
    step([&](const char* p, const char* e) -> const char* {
      std::string_view sv;
      std::string scratch;
      bool bad = false;
      const char* r = parse_string(p, e, sv, scratch, &bad);
      if (r) key.assign(sv);
      if (r && bad) out_.diagnostics.add("string escape that is not JSON in a top-level key: kept as written", "warning", key);
      return r;
    });
    expect(':');
    return key;
  }

  void top_level() {
    char c = peek_nonws();
    // A UTF-8 byte-order mark (an editor's save) is no JSON text but says nothing either: skipped,
    // as RFC 8259 lets a parser (it was "expected a JSON object or array at byte offset 0").
    if (c == '\xEF') {
      while (lim() - cur() < 3 && fill()) {
      }
      if (lim() - cur() >= 3 && cur()[1] == '\xBB' && cur()[2] == '\xBF') {
        pos_ += 3;
        c = peek_nonws();
      }
    }
    if (c == '[') {
      ++pos_;
      out_.has_trace_events = true;
      bare_array_ = true;
      events_array();
      return;
    }
    if (c != '{') {
      if (c == '\0') {
        if (at_end()) throw SyntaxError{cur(), "empty file"};
        nul_error();  // a NUL byte is no end of the file
      }
      throw SyntaxError{cur(), "expected a JSON object or array"};
    }
    ++pos_;
    if (peek_nonws() == '}') {
      ++pos_;
      return;
    }
    int64_t trace_events_keys = 0;
    for (;;) {
      std::string key = read_key();
      if (key == "traceEvents") {
        // A repeated key: every copy's events are read, merged, as the scan streams them (Python's
        // json, and so HTA, keeps only the last copy). Said, never silent (before 2026-12-05 the
        // merge was; review of that day).
        if (++trace_events_keys > 1)
          out_.diagnostics.add("top-level key traceEvents repeated: the events of every copy are read (Python's json, and so HTA, "
                               "keeps only the last)",
                               "warning", "traceEvents copy " + std::to_string(trace_events_keys));
        if (peek_nonws() != '[') {
          out_.diagnostics.add("traceEvents is not an array", "warning", "top-level key traceEvents");
          step([](const char* p, const char* e) { return skip_value(p, e); });
        } else {
          ++pos_;
          out_.has_trace_events = true;
          events_array();
        }
      } else if (key == "distributedInfo" || key == "deviceProperties" || key == "baseTimeNanoseconds" || key == "otherData") {
        std::string text;
        peek_nonws();
        step([&](const char* p, const char* e) -> const char* {
          const char* r = skip_value(p, e);
          if (r) text.assign(p, static_cast<size_t>(r - p));
          return r;
        });
        metadata(key, text);
      } else {
        peek_nonws();
        step([](const char* p, const char* e) { return skip_value(p, e); });
      }
      char d = peek_nonws();
      if (d == ',') {
        ++pos_;
        continue;
      }
      if (d == '}') {
        ++pos_;
        break;
      }
      if (d == '\0') end_or_nul();
      throw SyntaxError{cur(), "expected ',' or '}' in the top-level object"};
    }
  }

  void metadata(const std::string& key, const std::string& text) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) {
      out_.diagnostics.add("unparsable " + key, "warning", shorten_utf8(text, 120));
      return;
    }
    try {
      if (key == "baseTimeNanoseconds") {
        // An integer, or a float within int64 (a float outside it would overflow the conversion).
        if (j.is_number_integer()) {
          out_.base_time_ns = j.get<int64_t>();
        } else if (j.is_number_float()) {
          const double v = j.get<double>();
          if (std::isfinite(v) && v >= -9.2e18 && v <= 9.2e18)
            out_.base_time_ns = static_cast<int64_t>(std::llround(v));
          else
            out_.diagnostics.add("baseTimeNanoseconds out of range (ignored)", "warning", shorten_utf8(text, 120));
        }
      } else if (key == "otherData" && j.is_object()) {
        if (j.contains("generator") && j["generator"].is_string()) out_.generator = j["generator"].get<std::string>();
      } else if (key == "deviceProperties" && j.is_array()) {
        for (const auto& d : j)
          if (d.is_object() && d.contains("name") && d["name"].is_string())
            out_.device_names.push_back(d["name"].get<std::string>());
      } else if (key == "distributedInfo" && j.is_object()) {
        if (j.contains("rank")) {
          // A rank is a whole number from 0 below 2^31; anything else is reported (and the file
          // name or rank 0 used), never taken as a rank of its own.
          const auto& r = j["rank"];
          if (r.is_number_integer() && r.get<int64_t>() >= 0 && r.get<int64_t>() < (int64_t{1} << 31)) {
            out_.rank = r.get<int64_t>();
            out_.rank_source = "distributedInfo";
          } else {
            out_.diagnostics.add("distributedInfo.rank is not a rank (a whole number >= 0)", "warning", r.dump());
          }
        }
        if (j.contains("world_size") && j["world_size"].is_number_integer())
          out_.world_size = j["world_size"].get<int64_t>();
        if (j.contains("backend") && j["backend"].is_string()) out_.backend = j["backend"].get<std::string>();
        if (j.contains("pg_config") && j["pg_config"].is_array()) {
          for (const auto& g : j["pg_config"]) {
            if (!g.is_object()) continue;
            ProcessGroup pg;
            if (g.contains("pg_name") && g["pg_name"].is_string()) pg.name = g["pg_name"].get<std::string>();
            if (g.contains("pg_desc") && g["pg_desc"].is_string()) pg.desc = g["pg_desc"].get<std::string>();
            if (g.contains("pg_size") && g["pg_size"].is_number_integer()) pg.size = g["pg_size"].get<int64_t>();
            if (g.contains("ranks") && g["ranks"].is_array())
              for (const auto& r : g["ranks"])
                if (r.is_number_integer()) pg.ranks.push_back(r.get<int64_t>());
            out_.process_groups.push_back(std::move(pg));
          }
        }
      }
    } catch (const nlohmann::json::exception& ex) {
      out_.diagnostics.add("unexpected " + key, "warning", ex.what());
    }
  }

  void events_array() {
    if (peek_nonws() == ']') {
      ++pos_;
      return;
    }
    if (growing_) {
      events_array_growing();
      return;
    }
    const size_t split = split_point();
    if (in_place_ && end_ <= kParallelMaxBytes) {
      // Columns sized once for the text (a kept event takes 120 bytes of JSON and more), instead
      // of copied at each doubling; pages past the last row are never written, so never resident.
      out_.reserve(((split == kNoSplit ? end_ : split) - pos_) / kMinEventBytes + 1024);
    }
    if (split == kNoSplit) {
      events_elements(kNoSplit);
      return;
    }
    // Two halves at once: a second scanner reads the elements from `split` (the start of an
    // element near the middle, found by its look: '}' ',' '{' between whitespace) to the end of
    // the array into its own RankTrace, while this one reads up to `split`. The look can lie (the
    // text inside a string): the split is used only when this scanner, reading serially, arrives
    // at an element starting exactly there; otherwise, or when the second scanner refused its part
    // (so that errors are the serial scan's, at the same offsets), its work is dropped and this
    // scanner reads on alone. The part is then appended with its string ids, event indexes and
    // diagnostics renumbered as a serial scan would have numbered them: the RankTrace is the same.
    RankTrace tail;
    tail.reserve((end_ - split) / kMinEventBytes + 1024);
    size_t tail_end = 0;
    bool tail_ok = false;
    NoClose tail_no_close;
    std::thread reader;
    try {
      reader = start_worker([&] {
        try {
          Scanner s(src_, std::string_view(data_, end_), split, file_, tail);
          s.bare_array_ = bare_array_;
          tail_end = s.events_tail();
          tail_no_close = s.no_close_;
          tail_ok = true;
        } catch (...) {  // SyntaxError, Error, bad_alloc: this scanner reads that part itself
        }
      });
    } catch (const std::exception&) {
      // No second thread (a thread or memory limit): one scanner reads the whole array, the
      // same RankTrace (it had ended the run as an internal error before 2026-12-03).
      events_elements(kNoSplit);
      return;
    }
    struct Join {
      std::thread& t;
      ~Join() {
        if (t.joinable()) t.join();
      }
    } join{reader};
    const bool ended = events_elements(split);
    reader.join();
    if (ended) return;  // the split point was not an element of traceEvents
    if (!tail_ok) {
      events_elements(kNoSplit);
      return;
    }
    append_part(std::move(tail));
    if (tail_no_close.seen) note_array_without_close(tail_no_close);  // with both halves' count
    pos_ = tail_end;
  }

  // events_array on a growing text (a progressive source): this scanner reads from the start,
  // behind the writer, while a second thread waits until the whole text is written, then takes
  // the second half of what this scanner has not read yet: it picks the split as split_point does,
  // in the middle of [this scanner's last published position, end), publishes it in `stop`, and
  // reads from there as events_array's second scanner does. This scanner stops when it arrives at
  // an element starting exactly at `stop`; the rules (a split that lies, a refused part) and the
  // joined RankTrace are events_array's. With 2 cores the inflate and both halves of the scan
  // overlap: 25 MB of text took ~19 ms of inflate, then ~16 ms of two-thread scan.
  void events_array_growing() {
    out_.reserve((total_ - pos_) / kMinEventBytes + 1024);
    if (threads_ < 2 || total_ - pos_ < std::max<size_t>(split_min_bytes_, 2)) {
      events_elements(kNoSplit);
      return;
    }
    std::atomic<size_t> stop{kNoSplit}, progress{pos_};
    std::atomic<bool> done{false};  // the second scanner's work has ended (release: its results)
    RankTrace tail;
    size_t tail_end = 0;
    bool tail_ok = false;
    NoClose tail_no_close;
    std::function<void()> second = [&] {
      try {
        for (size_t r = 0; r < total_;) r = src_.wait_ready(r);  // InflateRetry: this scanner sees it too
        const size_t from = progress.load(std::memory_order_relaxed);
        const size_t split = find_split(data_, from + (total_ - from) / 2, total_);
        if (split != kNoSplit) {
          tail.reserve((total_ - split) / kMinEventBytes + 1024);
          stop.store(split, std::memory_order_relaxed);
          if (progress.load(std::memory_order_relaxed) < split) {  // else passed it already: reads on alone
            Scanner s(src_, std::string_view(data_, total_), split, file_, tail);
            s.bare_array_ = bare_array_;
            tail_end = s.events_tail();
            tail_no_close = s.no_close_;
            tail_ok = true;
          }
        }
      } catch (...) {  // InflateRetry, SyntaxError, Error, bad_alloc: this scanner reads that part itself
      }
      done.store(true, std::memory_order_release);
      done.notify_all();
    };
    // On the inflating thread once it has written the text (ByteSource::run_when_written), else on
    // a thread of its own.
    std::thread reader;
    if (!src_.run_when_written(second)) {
      try {
        reader = start_worker(std::move(second));
      } catch (const std::exception&) {  // no second thread: its part is this scanner's (tail_ok stays false)
        done.store(true, std::memory_order_release);
      }
    }
    struct Join {  // also when this scanner throws: the second one's work refers to this frame
      std::thread& t;
      std::atomic<bool>& done;
      ~Join() {
        if (t.joinable()) t.join();
        while (!done.load(std::memory_order_acquire)) done.wait(false, std::memory_order_acquire);
      }
    } join{reader, done};
    const bool ended = events_elements(kNoSplit, &stop, &progress);
    if (reader.joinable()) reader.join();
    while (!done.load(std::memory_order_acquire)) done.wait(false, std::memory_order_acquire);
    if (ended) return;  // the split point was not an element of traceEvents, or came too late
    if (!tail_ok) {
      events_elements(kNoSplit);
      return;
    }
    append_part(std::move(tail));
    if (tail_no_close.seen) note_array_without_close(tail_no_close);  // with both halves' count
    end_ = total_;  // the second scanner saw all of it written (and `done` orders this thread after it)
    eof_ = true;
    pos_ = tail_end;
  }

  // Where a second thread may start reading traceEvents (the position of an element's '{'), or
  // kNoSplit: only for a text in memory, of split_min_bytes and more left in the array, up to
  // kParallelMaxBytes (above it, memory is bounded by handing pages back behind one scanner).
  static constexpr size_t kNoSplit = SIZE_MAX;
  static constexpr size_t kMinEventBytes = 120;
  static constexpr size_t kParallelMaxBytes = size_t{48} << 20;
  size_t split_point() const {
    if (!in_place_ || threads_ < 2 || end_ > kParallelMaxBytes || end_ - pos_ < std::max<size_t>(split_min_bytes_, 2))
      return kNoSplit;
    return find_split(data_, pos_ + (end_ - pos_) / 2, end_);
  }
  // The first element start ('{' after '}' ',' with only whitespace between) at or after offset
  // lo_off of data[0, end), or kNoSplit.
  static size_t find_split(const char* text, size_t lo_off, size_t end) {
    const char* lo = text + lo_off;
    const char* e = text + end;
    for (const char* c = lo; (c = static_cast<const char*>(std::memchr(c, ',', static_cast<size_t>(e - c))));
         ++c) {
      const char* a = c;
      while (a > lo && is_ws(a[-1])) --a;
      const char* b = skip_ws(c + 1, e);
      if (a > lo && a[-1] == '}' && b < e && *b == '{') return static_cast<size_t>(b - text);
    }
    return kNoSplit;
  }

  // The second scanner's part: elements from pos_ (an element's '{') to the array's end.
  // Returns the position after the closing ']'.
  size_t events_tail() {
    events_elements(kNoSplit);
    return pos_;
  }

  // Elements of traceEvents from pos_ (after '[' or ','). Returns true after reading the closing
  // ']'; false when the next element starts exactly at stop_at, or at *dyn_stop when given (read
  // at each element: another thread may set it), which is not read. With `progress`, the position
  // is published there every 64 elements.
  bool events_elements(size_t stop_at, const std::atomic<size_t>* dyn_stop = nullptr,
                       std::atomic<size_t>* progress = nullptr) {
    EventFields ev;
    for (uint32_t n = 0;; ++n) {
      char c = peek_nonws();
      if (pos_ == (dyn_stop ? dyn_stop->load(std::memory_order_relaxed) : stop_at)) return false;
      if (progress && (n & 63) == 0) progress->store(pos_, std::memory_order_relaxed);
      if (c == '{') {
        step([&](const char* p, const char* e) -> const char* {
          ev.reset();
          return parse_event(p, e, ev);
        });
        ++out_.json_events;
        commit(ev);
        if (in_place_ && may_release_ && pos_ - released_ >= kReleaseBytes) {
          // Nothing before this event is looked at again (the committed rows hold copies).
          src_.release_before(pos_);
          released_ = pos_;
        }
      } else {
        if (c == '\0') {
          // After a ',' (n > 0) or '[': the end of a JSON Array Format trace may come without ']'.
          if (at_end() && bare_array_) {
            array_without_close(n > 0);
            return true;
          }
          end_or_nul();
        }
        if (c == ']' && n > 0 && bare_array_) {
          // A comma after the last event ("...},]"), as a writer that appends "event," leaves:
          // the Trace Event Format's array form is read by viewers that take it (review of 2026-12-06).
          out_.diagnostics.add("trailing comma after the last event of a JSON Array Format trace: ignored", "info",
                               "at byte offset " + std::to_string(base_ + pos_));
          ++pos_;
          return true;
        }
        ++out_.json_events;
        out_.diagnostics.add("event is not an object", "warning",
                             "at byte offset " + std::to_string(base_ + pos_));
        step([](const char* p, const char* e) { return skip_value(p, e); });
      }
      char d = peek_nonws();
      if (d == ',') {
        ++pos_;
        continue;
      }
      if (d == ']') {
        ++pos_;
        return true;
      }
      if (d == '\0') {
        if (at_end() && bare_array_) {
          array_without_close(false);
          return true;
        }
        end_or_nul();
      }
      throw SyntaxError{cur(), "expected ',' or ']' in traceEvents"};
    }
  }

  // The text ended after a complete element (or the ',' after one) of a bare-array trace. The
  // Trace Event Format says the JSON Array Format's closing ']' is optional, so that the trace of
  // a writer that stopped (a crashed process) still loads: read to the last complete event, with
  // a note (it had been refused as truncated; review of 2026-12-06). A cut inside an event is
  // still a truncation (the step reading the event fails first).
  // Where a bare array ended without its ']' (array_without_close), recorded by a part_ scanner.
  struct NoClose {
    uint64_t offset = 0;
    bool after_comma = false;
    bool seen = false;
  };
  // The second scanner of a split (part_) only records where: its json_events count its half
  // alone, and the note, written when the halves are joined, counts the whole array (it had
  // said 49919 elements of a 100000-event file read in two halves; review of 2026-12-06).
  void array_without_close(bool after_comma) {
    const NoClose at{base_ + pos_, after_comma, true};
    if (part_)
      no_close_ = at;
    else
      note_array_without_close(at);
  }
  void note_array_without_close(const NoClose& at) {
    out_.diagnostics.add("JSON Array Format trace without its closing ']' (optional in the Trace Event Format: a writer that "
                         "stopped?): read to the last complete event",
                         "info",
                         std::to_string(out_.json_events) + " elements, the text ends at byte offset " +
                             std::to_string(at.offset) + (at.after_comma ? " after a trailing comma" : ""));
  }

  // Appends the events the second scanner read (see events_array).
  void append_part(RankTrace&& p) {
    RankTrace& t = out_;
    const auto first = static_cast<uint32_t>(t.size());
    std::vector<uint32_t> name_id(p.strings.size());
    for (uint32_t id = 0; id < p.strings.size(); ++id) name_id[id] = t.strings.intern(p.strings.str(id));
    t.ts_ns.insert(t.ts_ns.end(), p.ts_ns.begin(), p.ts_ns.end());
    t.dur_ns.insert(t.dur_ns.end(), p.dur_ns.begin(), p.dur_ns.end());
    for (uint32_t id : p.name) t.name.push_back(name_id[id]);
    t.cat.insert(t.cat.end(), p.cat.begin(), p.cat.end());
    t.pid.insert(t.pid.end(), p.pid.begin(), p.pid.end());
    t.tid.insert(t.tid.end(), p.tid.begin(), p.tid.end());
    if (p.id_labels.size() > 0) [[unlikely]] {  // the part's codes renumbered into this trace's
      std::vector<int32_t> code(p.id_labels.size());
      for (uint32_t k = 0; k < p.id_labels.size(); ++k) code[k] = t.id_code(p.id_labels.str(k));
      for (auto* col : {&t.pid, &t.tid})
        for (size_t i = first; i < col->size(); ++i)
          if (RankTrace::is_id_code((*col)[i])) (*col)[i] = code[static_cast<size_t>((*col)[i] - RankTrace::kIdCodeBase)];
    }
    t.stream.insert(t.stream.end(), p.stream.begin(), p.stream.end());
    t.correlation.insert(t.correlation.end(), p.correlation.begin(), p.correlation.end());
    for (auto& c : p.collectives) {
      c.event += first;
      t.collectives.push_back(std::move(c));
    }
    for (auto x : p.transfers) {
      x.event += first;
      t.transfers.push_back(x);
    }
    for (auto x : p.stream_waits) {
      x.event += first;
      t.stream_waits.push_back(x);
    }
    for (auto x : p.tied_external_ids) {
      x.event += first;
      t.tied_external_ids.push_back(x);
    }
    std::vector<uint32_t> shape_id(p.shape_strings.size());
    for (uint32_t id = 0; id < p.shape_strings.size(); ++id)
      shape_id[id] = t.shape_strings.intern(p.shape_strings.str(id));
    for (const auto& s : p.op_shapes) t.op_shapes.push_back(OpShape{s.event + first, shape_id[s.dims], shape_id[s.types]});
    t.memory.insert(t.memory.end(), p.memory.begin(), p.memory.end());
    t.diagnostics.merge(p.diagnostics);
    t.float_timestamps = t.float_timestamps || p.float_timestamps;
    t.legacy_schema = t.legacy_schema || p.legacy_schema;
    t.json_events += p.json_events;
  }

  // --- one event ---
  static bool key_is(std::string_view k, const char* lit, size_t n) { return k.size() == n && std::memcmp(k.data(), lit, n) == 0; }
#define KEY(k, lit) key_is(k, lit, sizeof(lit) - 1)

  // Reads a value that should be an integer. Returns nullptr if incomplete.
  static const char* int_value(const char* p, const char* e, int64_t& out, bool* not_int = nullptr) {
    p = skip_ws(p, e);
    if (p >= e) return nullptr;
    // pid, tid, ids: 1 to 7 digits ended, within the same word, by a byte that does not continue
    // the number (not '.', 'e' or 'E') are converted whole, as parse_number would convert them.
    if (e - p >= 8) {
      const uint64_t x = load8(p);
      const uint64_t t = digit_run_mask(x);
      const unsigned k = t ? static_cast<unsigned>(__builtin_ctzll(t)) >> 3 : 8;
      if (k >= 1 && k <= 7 && p[k] != '.' && p[k] != 'e' && p[k] != 'E') {
        out = static_cast<int64_t>(digits_value((x - 0x3030303030303030ull) << (8 * (8 - k))));
        return p + k;
      }
    }
    // A '-' not followed by a digit starts no JSON number: "-Infinity" (Python's json writes it),
    // skipped like "Infinity" below (it had been parsed as a number, which refused the whole file).
    if (*p == '-' && p + 1 >= e) return nullptr;
    if ((*p == '-' && p[1] >= '0' && p[1] <= '9') || (*p >= '0' && *p <= '9')) {
      Number n;
      const char* r = parse_number(p, e, n);
      if (!r) return nullptr;
      if (n.integral) {
        out = n.ival;
      } else if (not_int) {
        *not_int = true;
      }
      return r;
    }
    if (not_int) *not_int = true;
    return skip_value(p, e);
  }

  // A pid or tid that is not a string (p after whitespace): an integer written in digits alone
  // (at most 18) into out, as int_value reads it; any other JSON number (7.5, 7.0, 1e3, 1e20,
  // 18446744073709551615) leaves out at kNoInt and its raw text in raw, by which it is coded: the
  // same text, the same code, in any chunking, and one rule for every number with a fraction or
  // an exponent (1e3 had read as 1000, 7.0 as no value). Anything else (Infinity, null, an
  // object) is no value, as before. A repeated key is read as its last value. (2026-12-06
  // review: a number that was not an int64 integer had read as no value without a diagnostic.)
  static const char* id_number(const char* p, const char* e, int64_t& out, std::string_view& raw, bool& is_text) {
    out = kNoInt;
    raw = {};
    is_text = false;
    bool not_int = false;
    const char* r = int_value(p, e, out, &not_int);
    if (r && ((*p == '-' && p[1] >= '0' && p[1] <= '9') || (*p >= '0' && *p <= '9'))) {
      const std::string_view text(p, static_cast<size_t>(r - p));
      if (not_int || text.find_first_of(".eE") != std::string_view::npos) {
        out = kNoInt;
        raw = text;
      }
    }
    return r;
  }

  static const char* str_value(const char* p, const char* e, std::string& out, bool* bad_escape = nullptr) {
    p = skip_ws(p, e);
    if (p >= e) return nullptr;
    if (*p == '"') {
      std::string_view sv;
      std::string scratch;
      const char* r = parse_string(p, e, sv, scratch, bad_escape);
      if (r) out.assign(sv);
      return r;
    }
    return skip_value(p, e);
  }

  static const char* num_value(const char* p, const char* e, Number& n) {
    p = skip_ws(p, e);
    if (p >= e) return nullptr;
    // A time that is NaN or infinite (Python's json writes them) is corrupt like an overflowing
    // one: read as out of range, so that the event is dropped and counted with severity error
    // (before 2026-12-05 the file was refused, and with it a whole rank of a job; "-Infinity" was
    // "invalid number").
    const bool minus = *p == '-' && p + 1 < e;
    const char c = minus ? p[1] : *p;
    const char* after = p + (minus ? 2 : 1);
    if (c == 'N' || c == 'I' || c == 'i' || (c == 'n' && after < e && *after == 'a')) {  // not null
      const char* r = skip_value(p, e);
      if (r) {
        n = Number{};
        n.ok = true;
        n.out_of_range = true;
      }
      return r;
    }
    if (*p == '-' || (*p >= '0' && *p <= '9')) return parse_number(p, e, n);
    n.ok = false;
    return skip_value(p, e);
  }

  static const char* parse_args(const char* p, const char* e, EventFields& ev) {
    p = skip_ws(p, e);
    if (p >= e) return nullptr;
    if (*p != '{') return skip_value(p, e);
    ++p;
    p = skip_ws(p, e);
    if (p >= e) return nullptr;
    if (*p == '}') return p + 1;
    std::string scratch;
    for (;;) {
      p = skip_ws(p, e);
      if (p >= e) return nullptr;
      if (*p != '"') throw SyntaxError{p, "expected a key in args"};
      // k may view scratch (a key with escapes): no value below is read through scratch (str_value
      // has its own), so it stays valid while the value is read.
      std::string_view k;
      p = parse_string(p, e, k, scratch, &ev.bad_escape);
      if (!p) return nullptr;
      p = skip_ws(p, e);
      if (p >= e) return nullptr;
      if (*p != ':') throw SyntaxError{p, "expected ':' in args"};
      ++p;
      switch (k.size()) {
        case 5:
          if (KEY(k, "bytes")) {
            p = int_value(p, e, ev.bytes);
          } else if (KEY(k, "Bytes")) {
            p = int_value(p, e, ev.mem_bytes);
          } else if (KEY(k, "dtype")) {
            p = str_value(p, e, ev.coll.dtype, &ev.bad_escape);
            ev.coll_dirty = true;
            ev.has_coll = true;
          } else {
            p = skip_value(p, e);
          }
          break;
        case 6:
          if (KEY(k, "stream")) {
            p = int_value(p, e, ev.stream, &ev.stream_not_int);
          } else if (KEY(k, "device")) {
            p = int_value(p, e, ev.device);
          } else {
            p = skip_value(p, e);
          }
          break;
        case 3:
          if (KEY(k, "Seq") || KEY(k, "seq")) {
            p = int_value(p, e, ev.coll.seq);
            ev.coll_dirty = true;
          } else {
            p = skip_value(p, e);
          }
          break;
        case 9:
          if (KEY(k, "Device Id")) {
            p = int_value(p, e, ev.mem_device);
          } else {
            p = skip_value(p, e);
          }
          break;
        case 10:
          if (KEY(k, "Group size")) {
            p = int_value(p, e, ev.coll.group_size);
            ev.coll_dirty = true;
          } else if (KEY(k, "Input Dims") || KEY(k, "Input type")) {
            // Kept as raw JSON text (views into the window, valid until the event is committed).
            const char* v0 = skip_ws(p, e);
            p = skip_value(v0, e);
            if (p) (k[6] == 'D' ? ev.dims : ev.types) = std::string_view(v0, static_cast<size_t>(p - v0));
          } else {
            p = skip_value(p, e);
          }
          break;
        case 11:
          if (KEY(k, "correlation")) {
            p = int_value(p, e, ev.correlation);
          } else if (KEY(k, "External id") || KEY(k, "external id")) {
            p = int_value(p, e, ev.external_id);
          } else {
            p = skip_value(p, e);
          }
          break;
        case 13:
          if (KEY(k, "In msg nelems")) {
            p = int_value(p, e, ev.coll.in_msg_nelems);
            ev.coll_dirty = true;
          } else {
            p = skip_value(p, e);
          }
          break;
        case 14:
          if (KEY(k, "wait_on_stream")) {
            p = int_value(p, e, ev.wait_stream);
          } else if (KEY(k, "Out msg nelems")) {
            p = int_value(p, e, ev.coll.out_msg_nelems);
            ev.coll_dirty = true;
          } else if (KEY(k, "Total Reserved")) {
            p = int_value(p, e, ev.mem_reserved);
          } else {
            p = skip_value(p, e);
          }
          break;
        case 15:
          if (KEY(k, "Collective name")) {
            p = str_value(p, e, ev.coll.collective_name, &ev.bad_escape);
            ev.coll_dirty = true;
            ev.has_coll = true;
          } else if (KEY(k, "Total Allocated")) {
            p = int_value(p, e, ev.mem_alloc);
          } else {
            p = skip_value(p, e);
          }
          break;
        case 23:
          if (KEY(k, "memory bandwidth (GB/s)")) {
            // Kept as a double (Kineto computes it from the exact ns duration; integer-µs traces
            // round the duration itself). Read from the token's text only for these events.
            const char* v0 = skip_ws(p, e);
            p = skip_value(v0, e);
            if (p) {
              double v = -1;
              auto res = std::from_chars(v0, p, v);
              ev.bandwidth_gbps = (res.ec == std::errc() && res.ptr == p && std::isfinite(v)) ? v : -1;
            }
          } else {
            p = skip_value(p, e);
          }
          break;
        case 33:
          if (KEY(k, "wait_on_cuda_event_record_corr_id")) {
            p = int_value(p, e, ev.wait_record_corr);
          } else {
            p = skip_value(p, e);
          }
          break;
        case 18:
          if (KEY(k, "Process Group Name")) {
            p = str_value(p, e, ev.coll.pg_name, &ev.bad_escape);
            ev.coll_dirty = true;
          } else {
            p = skip_value(p, e);
          }
          break;
        default:
          p = skip_value(p, e);
          break;
      }
      if (!p) return nullptr;
      p = skip_ws(p, e);
      if (p >= e) return nullptr;
      if (*p == ',') {
        ++p;
        continue;
      }
      if (*p == '}') return p + 1;
      throw SyntaxError{p, "expected ',' or '}' in args"};
    }
  }

  // The event keys the scanner reads, told apart by length and first byte.
  enum class EventKey : uint8_t { Other, Ph, Ts, Dur, Name, Cat, Pid, Tid, Args };
  static EventKey event_key(std::string_view k) {
    switch (k.size()) {
      case 2:
        if (KEY(k, "ph")) return EventKey::Ph;
        if (KEY(k, "ts")) return EventKey::Ts;
        break;
      case 3:
        switch (k[0]) {
          case 'd': return KEY(k, "dur") ? EventKey::Dur : EventKey::Other;
          case 'c': return KEY(k, "cat") ? EventKey::Cat : EventKey::Other;
          case 'p': return KEY(k, "pid") ? EventKey::Pid : EventKey::Other;
          case 't': return KEY(k, "tid") ? EventKey::Tid : EventKey::Other;
          default: break;
        }
        break;
      case 4:
        if (KEY(k, "name")) return EventKey::Name;
        if (KEY(k, "args")) return EventKey::Args;
        break;
      default:
        break;
    }
    return EventKey::Other;
  }

  // A string value of an event (name, cat) into v, copied into storage when it had escapes (the
  // decoded text is in scratch, which the next string overwrites).
  static const char* event_string(const char* p, const char* e, std::string_view& v, bool& has,
                                  std::string& storage, std::string& scratch, bool& bad_escape) {
    if (*p != '"') return skip_value(p, e);
    std::string_view sv;
    p = parse_string(p, e, sv, scratch, &bad_escape);
    if (p) {
      if (sv.data() == scratch.data()) {
        storage.assign(sv);
        sv = storage;
      }
      v = sv;
      has = true;
    }
    return p;
  }

  static const char* parse_event(const char* p, const char* e, EventFields& ev) {
    ++p;  // '{'
    p = skip_ws(p, e);
    if (p >= e) return nullptr;
    if (*p == '}') return p + 1;
    std::string scratch;
    for (;;) {
      p = skip_ws(p, e);
      if (p >= e) return nullptr;
      if (*p != '"') throw SyntaxError{p, "expected a key in an event"};
      std::string_view k;
      p = parse_string(p, e, k, scratch, &ev.bad_escape);
      if (!p) return nullptr;
      const EventKey key = event_key(k);  // k (maybe in scratch) is not used after this
      p = skip_ws(p, e);
      if (p >= e) return nullptr;
      if (*p != ':') throw SyntaxError{p, "expected ':' in an event"};
      ++p;
      p = skip_ws(p, e);
      if (p >= e) return nullptr;
      switch (key) {
        case EventKey::Ph:
          if (*p == '"') {
            std::string_view v;
            p = parse_string(p, e, v, scratch, &ev.bad_escape);
            if (p && !v.empty()) {
              // A phase is one character; "Xjunk" is no phase (its first letter had made it a
              // complete event: a 400 us phantom kernel before 2026-12-02).
              ev.ph = v.size() == 1 ? v[0] : '\0';
              ev.has_ph = true;
            }
          } else {
            p = skip_value(p, e);
          }
          break;
        case EventKey::Ts: p = num_value(p, e, ev.ts); break;
        case EventKey::Dur: p = num_value(p, e, ev.dur); break;
        case EventKey::Name: p = event_string(p, e, ev.name, ev.has_name, ev.name_storage, scratch, ev.bad_escape); break;
        case EventKey::Cat: p = event_string(p, e, ev.cat, ev.has_cat, ev.cat_storage, scratch, ev.bad_escape); break;
        case EventKey::Pid:
          p = *p == '"' ? event_string(p, e, ev.pid_text, ev.pid_is_text, ev.pid_storage, scratch, ev.bad_escape)
                        : id_number(p, e, ev.pid, ev.pid_text, ev.pid_is_text);
          break;
        case EventKey::Tid:
          p = *p == '"' ? event_string(p, e, ev.tid_text, ev.tid_is_text, ev.tid_storage, scratch, ev.bad_escape)
                        : id_number(p, e, ev.tid, ev.tid_text, ev.tid_is_text);
          break;
        case EventKey::Args: p = parse_args(p, e, ev); break;
        case EventKey::Other: p = skip_value(p, e); break;
      }
      if (!p) return nullptr;
      p = skip_ws(p, e);
      if (p >= e) return nullptr;
      if (*p == ',') {
        ++p;
        continue;
      }
      if (*p == '}') return p + 1;
      throw SyntaxError{p, "expected ',' or '}' in an event"};
    }
  }
#undef KEY

  // Commits one parsed event: a row of the columns, a memory sample, or diagnostics. The common
  // case (a complete event with a name, a category and in-range ts and dur, which commit_checked would
  // keep without a diagnostic) is tested inline; everything else takes commit_checked.
  void commit(EventFields& ev) {
    if (ev.bad_escape) [[unlikely]]
      out_.diagnostics.add("string escape that is not JSON (an unknown letter, \\u without four hex digits or an unpaired surrogate): kept as written",
                           "warning", ev.has_name ? std::string(ev.name) : std::string("(no name)"));
    if (ev.has_ph && ev.ph == 'X' && ev.has_cat && ev.has_name && ev.ts.ok && ev.dur.ok && !ev.ts.out_of_range &&
        !ev.dur.out_of_range && ev.ts.milli >= 0 && ev.dur.milli >= 0 && ev.ts.milli <= INT64_MAX - ev.dur.milli) {
      if (ev.ts.has_fraction || ev.dur.has_fraction) out_.float_timestamps = true;
      push_row(ev, category_from_string(ev.cat));
      return;
    }
    commit_checked(ev);
  }

  [[gnu::noinline]] void commit_checked(EventFields& ev) {
    RankTrace& t = out_;
    if (!ev.has_ph) {
      t.diagnostics.add("event without ph", "warning", ev.has_name ? std::string(ev.name) : "(no name)");
      return;
    }
    if (ev.ts.has_fraction || ev.dur.has_fraction) t.float_timestamps = true;
    switch (ev.ph) {
      case 'X':
        break;
      case 'i':
      case 'I':
      case 'n':
        // PyTorch writes memory events as name "[memory]", cat "cpu_instant_event" (older or
        // hand-written traces use the category "[memory]").
        if ((ev.has_name && ev.name == "[memory]") || (ev.has_cat && ev.cat == "[memory]")) {
          if (!ev.ts.ok || ev.ts.out_of_range) {
            t.diagnostics.add("memory event without ts", "warning", std::string(ev.name));
            return;
          }
          // A negative ts is as corrupt here as on a complete event, and counted under the same
          // name (before 2026-12-05 the sample was kept silently and counted in memory_summary;
          // review of that day).
          if (ev.ts.milli < 0) {
            t.diagnostics.add("negative ts: event dropped", "error",
                              (ev.has_name ? std::string(ev.name) : std::string(ev.cat)) + " ts=" + std::to_string(ev.ts.milli / 1000) + " us");
            return;
          }
          MemorySample m;
          m.ts_ns = ev.ts.milli;
          m.bytes = ev.mem_bytes == kNoInt ? 0 : ev.mem_bytes;
          m.total_allocated_bytes = ev.mem_alloc;
          m.total_reserved_bytes = ev.mem_reserved;
          m.device = ev.mem_device;
          t.memory.push_back(m);
        }
        return;
      case 'M':
      case 's':
      case 'f':
      case 't':
      case 'C':
        return;
      case 'B':
      case 'E':
        t.diagnostics.add("unsupported phase B/E (duration begin/end pairs)", "info", std::string(ev.name));
        return;
      case '\0':
        t.diagnostics.add("ph of more than one character (not a trace-event phase)", "warning", std::string(ev.name));
        return;
      default:
        t.diagnostics.add(std::string("unknown phase '") + ev.ph + "'", "info", std::string(ev.name));
        return;
    }
    if (!ev.ts.ok) {
      t.diagnostics.add("complete event without numeric ts", "warning", ev.has_name ? std::string(ev.name) : std::string("(no name)"));
      return;
    }
    if (!ev.dur.ok) {
      t.diagnostics.add("complete event without numeric dur", "warning", ev.has_name ? std::string(ev.name) : std::string("(no name)"));
      return;
    }
    // Values no profiler writes (overflowing, non-finite, a negative ts) mark a corrupt event:
    // severity "error", dropped and counted; the rest of the file is analysed and analyze notes
    // the loss (the whole file had been rejected before 2026-12-04). A negative dur is written by
    // PyTorch itself (below).
    if (ev.ts.out_of_range || ev.dur.out_of_range) {
      t.diagnostics.add(std::string(ev.ts.out_of_range ? "ts" : "dur") +
                            " out of range (does not fit in 64-bit nanoseconds, or not finite): event dropped",
                        "error", ev.has_name ? std::string(ev.name) : std::string("(no name)"));
      return;
    }
    if (ev.ts.milli < 0) {
      t.diagnostics.add("negative ts: event dropped", "error",
                        (ev.has_name ? std::string(ev.name) : std::string("(no name)")) +
                            " ts=" + std::to_string(ev.ts.milli / 1000) + " us");
      return;
    }
    if (ev.ts.milli > INT64_MAX - (ev.dur.milli > 0 ? ev.dur.milli : 0)) {
      t.diagnostics.add("ts + dur out of range (does not fit in 64-bit nanoseconds): event dropped", "error",
                        ev.has_name ? std::string(ev.name) : std::string("(no name)"));
      return;
    }
    if (ev.dur.milli < 0) {
      // PyTorch writes dur -1 for a CPU event still open when the profiler stopped (pytorch/pytorch
      // #150131): a real trace has them. Counted and dropped, not a corrupt file.
      t.diagnostics.add("negative dur (an event unfinished when the profiler stopped): event dropped", "warning",
                        (ev.has_name ? std::string(ev.name) : std::string("(no name)")) +
                            " dur=" + std::to_string(ev.dur.milli / 1000) + " us");
      return;
    }
    Category c = ev.has_cat ? category_from_string(ev.cat) : Category::None;
    if (!ev.has_cat) t.diagnostics.add("complete event without cat", "info", std::string(ev.name));
    // Kept (its time counts) under the empty name, and counted: it had been kept silently (review
    // of 2026-12-03), where a missing ts, dur, ph or cat is a diagnostic.
    if (!ev.has_name) [[unlikely]]
      t.diagnostics.add("complete event without a string name (kept under the empty name)", "info",
                        ev.has_cat ? "cat " + std::string(ev.cat) : std::string("(no cat)"));
    push_row(ev, c);
  }

  // Appends a kept complete event of category c (after commit's checks).
  void push_row(EventFields& ev, Category c) {
    RankTrace& t = out_;
    if (ev.has_cat && !ev.cat.empty() && ev.cat[0] >= 'A' && ev.cat[0] <= 'Z' && c != Category::Trace &&
        c != Category::Other)
      t.legacy_schema = true;
    if (ev.stream_not_int && is_gpu_category(c)) [[unlikely]]
      t.diagnostics.add("GPU event with a non-integer stream", "warning", std::string(ev.name));
    else if (ev.stream == -1 && is_gpu_category(c)) [[unlikely]]
      t.diagnostics.add("GPU event without a stream arg: its tid is taken as the stream (Sextant rules; HTA leaves it out)", "info",
                        std::string(ev.name));
    auto idx = static_cast<uint32_t>(t.ts_ns.size());
    t.ts_ns.push_back(ev.ts.milli);
    t.dur_ns.push_back(ev.dur.milli);
    t.name.push_back(name_cache_.intern(t.strings, ev.name));
    t.cat.push_back(c);
    // pid and tid: a 32-bit integer as it is, anything else under its own code (RankTrace::id_code).
    // A text id repeats on every event of its thread or stream (legacy exports name every GPU
    // event's tid so): the last one's code is kept per column, and the diagnostic only counted
    // after its first example (the lookup and the strings per event had slowed loading by 60%).
    // A number that is not an integer of at most 18 digits comes as its raw JSON text (v is then
    // kNoInt and text not empty): it is coded by that text, under the prefix of the integers (no
    // such text is also the decimal of an integer id), and named as written (2026-12-06 review:
    // tids 7.5 and 8.5, or 2^64 - 1 and 2^64, had read as no value and merged into one stream).
    auto id = [&t](int64_t v, bool is_text, std::string_view text, LastId& last) -> int32_t {
      const bool is_number_text = !is_text && v == kNoInt && !text.empty();
      if (!is_text && v == kNoInt && !is_number_text) return INT32_MIN;
      if (!is_text && !is_number_text && v <= INT32_MAX && v >= RankTrace::kIdCodeEnd) [[likely]]
        return static_cast<int32_t>(v);
      static const std::string kCoded =
          "pid or tid not a 32-bit integer (a text, a wide integer or a number with a fraction or exponent): kept apart under its own code";
      int32_t c;
      if (is_text && last.valid && last.text == text) {
        c = last.code;
      } else {
        c = is_text ? t.id_code("s:" + std::string(text)) : is_number_text ? t.id_code("i:" + std::string(text)) : t.id_of_int(v);
        if (is_text) {
          last.text.assign(text);
          last.code = c;
          last.valid = true;
        }
      }
      if (c == INT32_MIN)
        t.diagnostics.add("more distinct pid/tid texts and wide or non-integer numbers than codes (2^24 - 1): the rest read as no value", "warning",
                          is_text || is_number_text ? std::string(text) : std::to_string(v));
      else if (!t.diagnostics.bump(kCoded))
        t.diagnostics.add(kCoded, "info",
                          (is_text ? "\"" + std::string(text) + "\"" : is_number_text ? std::string(text) : std::to_string(v)) + " reads as " +
                              std::to_string(c));
      return c;
    };
    t.pid.push_back(id(ev.pid, ev.pid_is_text, ev.pid_text, last_pid_));
    t.tid.push_back(id(ev.tid, ev.tid_is_text, ev.tid_text, last_tid_));
    t.stream.push_back(ev.stream);
    t.correlation.push_back(ev.correlation);
    // Every operator for now, with its External id or -1 (none): scan_trace keeps the ids of tied
    // operators only. Those without an id take part in finding the ties (2026-12-06 review: an
    // operator with an id tied with one without had no partner, lost its id, and the tie went by
    // name instead of "an id before none").
    if (c == Category::CpuOp || c == Category::UserAnnotation)
      t.tied_external_ids.push_back(TiedExternalId{idx, 0, ev.external_id});
    if (c == Category::GpuMemcpy || c == Category::GpuMemset) t.transfers.push_back(TransferArgs{idx, 0, ev.bytes, ev.bandwidth_gbps});
    if (c == Category::CudaSync && ev.wait_stream >= 0 && ev.wait_record_corr >= 0 && ev.stream >= 0 && ev.name == "Stream Wait Event")
      t.stream_waits.push_back(StreamWait{idx, 0, ev.wait_stream, ev.wait_record_corr});
    // cudaEventSynchronize: the host waits for the event recorded on wait_stream (Kineto's
    // "Event Sync"); the replay binds the call to the work recorded before it (2026-12-04 review:
    // it had waited on whatever GPU work ended last).
    if (c == Category::CudaSync && ev.wait_stream >= 0 && ev.wait_record_corr >= 0 && ev.name == "Event Sync")
      t.stream_waits.push_back(StreamWait{idx, 1, ev.wait_stream, ev.wait_record_corr});
    // Shapes of GEMM-like operators (the roofline) and of PyTorch's `nccl:*` record_function
    // annotations (a collective's message size where the kernel has no `In msg nelems`).
    if (!ev.dims.empty() &&
        ((c == Category::CpuOp && is_shape_op(ev.name)) ||
         ((c == Category::CpuOp || c == Category::UserAnnotation) && ev.name.substr(0, 5) == "nccl:")))
      t.add_op_shape(idx, ev.dims, ev.types);
    if (ev.has_coll) {
      ev.coll.event = idx;
      t.collectives.push_back(std::move(ev.coll));
    }
  }

  ByteSource& src_;
  std::string file_;
  RankTrace& out_;
  InternCache name_cache_;
  struct LastId {
    std::string text;
    int32_t code = 0;
    bool valid = false;
  };
  LastId last_pid_, last_tid_;  // the last text pid / tid and its code (codes never change once given)
  static constexpr size_t kReleaseBytes = 1 << 20;
  ByteBuffer buf_;  // uninitialised growth: filled by the source right away
  const char* data_ = nullptr;  // buf_.data(), or the source's whole text when scanning in place
  bool in_place_ = false;
  bool growing_ = false;  // a progressive source: data_ is its buffer, end_ what is written of it
  size_t total_ = 0;      // growing: the text's final size
  size_t released_ = 0;  // in place: offset below which the source was told it may drop pages
  bool may_release_ = true;
  int threads_ = 1;
  size_t split_min_bytes_ = 0;
  size_t pos_ = 0, end_ = 0;
  uint64_t base_ = 0;
  bool eof_ = false;
  bool bare_array_ = false;  // the top level is a JSON Array Format trace (its ']' optional)
  // The second scanner of a split (events_array): its part is joined into the first's RankTrace.
  bool part_ = false;
  NoClose no_close_;
};

class StringSource final : public ByteSource {
 public:
  explicit StringSource(const std::string& s) : s_(s) {}
  size_t read(char* dst, size_t n) override {
    size_t k = std::min(n, s_.size() - pos_);
    std::memcpy(dst, s_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  bool compressed() const override { return false; }

 private:
  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

namespace {
// Whether s is well-formed UTF-8 (no stray continuation byte, overlong form, surrogate or code
// point beyond U+10FFFF).
bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int n = 0;
    uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) n = 1, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) n = 2, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) n = 3, cp = c & 0x07;
    else return false;
    if (i + static_cast<size_t>(n) >= s.size()) return false;  // cut short
    for (int k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += static_cast<size_t>(n) + 1;
  }
  return true;
}
// Prunes out.tied_external_ids (every cpu_op and user_annotation, in event order, with its
// External id or -1, as the scanner pushed them) to the events that have the same category, pid,
// tid, ts and dur as another such event, with or without an id: the ties whose nesting the times
// cannot tell (RankTrace::tied_external_ids). Only ids are kept; a tied event without one stays
// out (it reads -1, after every one with an id: RankTrace::encloses_tied; 2026-12-06 review).
// Linear when each thread's operators come by start, longer first (nearly every file: the ties
// are then neighbours in the thread's order); otherwise one sort of the operators' positions.
void keep_tied_external_ids(RankTrace& out) {
  std::vector<TiedExternalId>& ids = out.tied_external_ids;
  if (ids.empty()) return;
  // The tied events, flagged by their position in ids.
  std::vector<char> tied(ids.size(), 0);
  auto same = [&out](uint32_t a, uint32_t b) {
    return out.ts_ns[a] == out.ts_ns[b] && out.dur_ns[a] == out.dur_ns[b];
  };
  auto before = [&out](uint32_t a, uint32_t b) {  // by start, longer first
    return out.ts_ns[a] != out.ts_ns[b] ? out.ts_ns[a] < out.ts_ns[b] : out.dur_ns[a] > out.dur_ns[b];
  };
  struct Thread {
    int32_t pid, tid;
    Category cat;
    size_t last;  // position in ids of the thread's latest event
  };
  const auto thread_less = [](const Thread& a, const Thread& b) {
    return a.pid != b.pid ? a.pid < b.pid : a.tid != b.tid ? a.tid < b.tid : a.cat < b.cat;
  };
  std::vector<Thread> threads;  // sorted by (pid, tid, cat); the last one found is tried first
  size_t hit = 0;
  bool in_order = true;
  for (size_t k = 0; k < ids.size() && in_order; ++k) {
    const uint32_t e = ids[k].event;
    const Thread probe{out.pid[e], out.tid[e], out.cat[e], k};
    auto is = [&](const Thread& t) { return t.pid == probe.pid && t.tid == probe.tid && t.cat == probe.cat; };
    if (hit >= threads.size() || !is(threads[hit])) {
      const auto at = std::lower_bound(threads.begin(), threads.end(), probe, thread_less);
      hit = static_cast<size_t>(at - threads.begin());
      if (at == threads.end() || !is(*at)) {
        threads.insert(at, probe);
        continue;
      }
    }
    const size_t prev = threads[hit].last;
    const uint32_t p = ids[prev].event;
    if (before(e, p)) in_order = false;
    else if (same(e, p)) tied[prev] = tied[k] = 1;
    threads[hit].last = k;
  }
  if (!in_order) {
    std::fill(tied.begin(), tied.end(), 0);
    std::vector<uint32_t> pos(ids.size());
    for (uint32_t k = 0; k < pos.size(); ++k) pos[k] = k;
    std::sort(pos.begin(), pos.end(), [&](uint32_t x, uint32_t y) {
      const uint32_t a = ids[x].event, b = ids[y].event;
      if (out.pid[a] != out.pid[b]) return out.pid[a] < out.pid[b];
      if (out.tid[a] != out.tid[b]) return out.tid[a] < out.tid[b];
      if (out.cat[a] != out.cat[b]) return out.cat[a] < out.cat[b];
      if (before(a, b) || before(b, a)) return before(a, b);
      return x < y;
    });
    for (size_t i = 1; i < pos.size(); ++i) {
      const uint32_t a = ids[pos[i - 1]].event, b = ids[pos[i]].event;
      if (out.pid[a] == out.pid[b] && out.tid[a] == out.tid[b] && out.cat[a] == out.cat[b] && same(a, b))
        tied[pos[i - 1]] = tied[pos[i]] = 1;
    }
  }
  std::vector<TiedExternalId> kept;
  size_t n = 0;
  for (size_t k = 0; k < ids.size(); ++k) n += static_cast<size_t>(tied[k] && ids[k].id != -1);
  kept.reserve(n);
  for (size_t k = 0; k < ids.size(); ++k)
    if (tied[k] && ids[k].id != -1) kept.push_back(ids[k]);
  ids = std::move(kept);  // the capacity reserved for every event goes with the old vector
}

// GPU events (kernel, gpu_memcpy, gpu_memset) with ts 0 and dur 0 where the rank's other events
// start after 0: CUPTI reports 0 for both the start and the end of an activity whose timestamps it
// could not collect, and Kineto writes them as they are (kineto #109: traces with over a thousand
// such kernels). Kept, one such kernel beside events at epoch times (1.7e15 us) had stretched the
// rank's GPU span over 54 years: 1.7e15 us of idle time in temporal_breakdown and a step's
// gpu_span, findings built on it, and no diagnostic (review of 2026-12-07). They are dropped and
// counted. The rule is the sentinel only: a zero-length event carries no time, so dropping it loses
// none; a trace whose own timeline starts at 0 (a synthetic one) keeps them; and a GPU event a
// little before the first host event or its own launch is no sentinel (the clocks of host and
// device are aligned only so far, and work launched before the profiler started runs into it).
void drop_untimed_gpu_events(RankTrace& out) {
  const size_t n = out.size();
  if (std::find(out.ts_ns.begin(), out.ts_ns.end(), int64_t{0}) == out.ts_ns.end()) return;  // nearly every file
  auto untimed = [&out](size_t i) { return out.ts_ns[i] == 0 && out.dur_ns[i] == 0 && is_gpu_category(out.cat[i]); };
  size_t dropped = 0, first = n;
  int64_t others_start = INT64_MAX;
  for (size_t i = 0; i < n; ++i) {
    if (untimed(i)) {
      if (dropped++ == 0) first = i;
    } else {
      others_start = std::min(others_start, out.ts_ns[i]);
    }
  }
  if (dropped == 0 || others_start == INT64_MAX || others_start <= 0) return;
  out.diagnostics.add_count(
      "GPU event without timestamps (ts 0 and dur 0: CUPTI could not time it) in a trace whose other events start later: event dropped",
      "warning", out.name_of(first) + " (correlation " + std::to_string(out.correlation[first]) + ")", static_cast<int64_t>(dropped));
  // Compacted in place; the side tables lose the dropped events' entries and are renumbered.
  constexpr uint32_t kGone = UINT32_MAX;
  std::vector<uint32_t> to(n, kGone);
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    if (untimed(i)) continue;
    to[i] = static_cast<uint32_t>(k);
    out.ts_ns[k] = out.ts_ns[i];
    out.dur_ns[k] = out.dur_ns[i];
    out.name[k] = out.name[i];
    out.cat[k] = out.cat[i];
    out.pid[k] = out.pid[i];
    out.tid[k] = out.tid[i];
    out.stream[k] = out.stream[i];
    out.correlation[k] = out.correlation[i];
    ++k;
  }
  out.ts_ns.resize(k);
  out.dur_ns.resize(k);
  out.name.resize(k);
  out.cat.resize(k);
  out.pid.resize(k);
  out.tid.resize(k);
  out.stream.resize(k);
  out.correlation.resize(k);
  auto renumber = [&to](auto& v) {
    size_t j = 0;
    for (auto& x : v) {
      if (to[x.event] == kGone) continue;
      x.event = to[x.event];
      if (&v[j] != &x) v[j] = std::move(x);
      ++j;
    }
    v.resize(j);
  };
  renumber(out.collectives);
  renumber(out.transfers);
  renumber(out.stream_waits);
  renumber(out.op_shapes);
  renumber(out.tied_external_ids);
}

}  // namespace

void scan_trace(ByteSource& src, const std::string& file, RankTrace& out, const ScanOptions& opt) {
  Scanner s(src, file, out, opt);
  s.run();
  drop_untimed_gpu_events(out);
  keep_tied_external_ids(out);
  // Event names that are not UTF-8 (a stray byte in a kernel name): counted, once per distinct
  // name, and kept as read (the outputs write the bad bytes as U+FFFD). They had passed without a
  // word (review of 2026-12-05).
  for (uint32_t id = 0; id < out.strings.size(); ++id)
    if (!valid_utf8(out.strings.str(id)))
      out.diagnostics.add("event name that is not valid UTF-8 (distinct names; written with U+FFFD in the outputs)", "warning",
                          out.strings.str(id));
}

void scan_trace_text(const std::string& text, const std::string& file, RankTrace& out) {
  StringSource src(text);
  ScanOptions opt;
  opt.chunk_bytes = 1 << 16;
  scan_trace(src, file, out, opt);
}

}  // namespace sextant::trace
