#include "core/c_locale.hpp"

namespace sextant {

namespace {
// The "C" locale object, made once and never changed (newlocale returns 0 only when out of
// memory; the thread then keeps its locale).
locale_t c_locale() noexcept {
  static const locale_t c = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
  return c;
}
}  // namespace

CNumericLocale::CNumericLocale() noexcept {
  if (const locale_t c = c_locale()) previous_ = uselocale(c);
}

CNumericLocale::~CNumericLocale() {
  if (previous_) uselocale(previous_);
}

}  // namespace sextant
