#pragma once
// Numbers are read and written the same way whatever locale the process is in.
//
// The C library's number functions (strtod, std::stod, snprintf's %f/%g) follow the LC_NUMERIC of
// the calling thread. The command-line tool never calls setlocale, so it runs in the "C" locale;
// a program that loads the Python module may not (Python's `locale.setlocale(LC_ALL, "")` under
// LANG=de_DE sets a decimal comma), and before 2026-12-03 the catalog's "95.7" was then refused
// and a trace's "1.5e3" timestamps read as 1. A CNumericLocale switches the calling thread to the
// "C" locale for its lifetime (POSIX uselocale: per thread, nothing process-wide is touched) and
// restores the thread's previous locale after. Library entry points of the Python module and every
// thread the library starts hold one; tests/core/test_c_locale.cpp checks both.
#include <locale.h>

namespace sextant {

class CNumericLocale {
 public:
  CNumericLocale() noexcept;
  ~CNumericLocale();
  CNumericLocale(const CNumericLocale&) = delete;
  CNumericLocale& operator=(const CNumericLocale&) = delete;

 private:
  locale_t previous_ = static_cast<locale_t>(0);
};

}  // namespace sextant
