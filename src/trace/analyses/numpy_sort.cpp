// numpy 1.24's indirect introsort (npysort/quicksort.cpp, aquicksort_ and aheapsort_), written
// anew from its description: median-of-three quicksort partitions, insertion sort below 16
// elements, heapsort when the recursion depth exceeds 2*log2(n). Used only where HTA parity
// depends on how pandas orders equal timestamps.
#include <utility>

#include "trace/analyses/analysis.hpp"

namespace sextant::trace::stats {

namespace {

int msb(size_t n) {
  int d = 0;
  while (n >>= 1) ++d;
  return d;
}

void aheapsort(const int64_t* v, size_t* tosort, ptrdiff_t n) {
  size_t* a = tosort - 1;  // 1-based
  ptrdiff_t i, j, l;
  size_t tmp;
  for (l = n >> 1; l > 0; --l) {
    tmp = a[l];
    for (i = l, j = l << 1; j <= n;) {
      if (j < n && v[a[j]] < v[a[j + 1]]) j += 1;
      if (v[tmp] < v[a[j]]) {
        a[i] = a[j];
        i = j;
        j += j;
      } else {
        break;
      }
    }
    a[i] = tmp;
  }
  for (; n > 1;) {
    tmp = a[n];
    a[n] = a[1];
    n -= 1;
    for (i = 1, j = 2; j <= n;) {
      if (j < n && v[a[j]] < v[a[j + 1]]) j++;
      if (v[tmp] < v[a[j]]) {
        a[i] = a[j];
        i = j;
        j += j;
      } else {
        break;
      }
    }
    a[i] = tmp;
  }
}

}  // namespace

std::vector<size_t> numpy_argsort(const std::vector<int64_t>& vec) {
  const size_t num = vec.size();
  std::vector<size_t> idx(num);
  for (size_t i = 0; i < num; ++i) idx[i] = i;
  if (num < 2) return idx;
  const int64_t* v = vec.data();
  size_t* tosort = idx.data();
  size_t* pl = tosort;
  size_t* pr = tosort + num - 1;
  size_t* stack[128];
  size_t** sptr = stack;
  int depth[64];
  int* psdepth = depth;
  int cdepth = msb(num) * 2;
  constexpr ptrdiff_t kSmall = 16;
  for (;;) {
    if (cdepth < 0) {
      aheapsort(v, pl, pr - pl + 1);
      goto stack_pop;
    }
    while ((pr - pl) > kSmall) {
      size_t* pm = pl + ((pr - pl) >> 1);
      if (v[*pm] < v[*pl]) std::swap(*pm, *pl);
      if (v[*pr] < v[*pm]) std::swap(*pr, *pm);
      if (v[*pm] < v[*pl]) std::swap(*pm, *pl);
      int64_t vp = v[*pm];
      size_t* pi = pl;
      size_t* pj = pr - 1;
      std::swap(*pm, *pj);
      for (;;) {
        do {
          ++pi;
        } while (v[*pi] < vp);
        do {
          --pj;
        } while (vp < v[*pj]);
        if (pi >= pj) break;
        std::swap(*pi, *pj);
      }
      size_t* pk = pr - 1;
      std::swap(*pi, *pk);
      if (pi - pl < pr - pi) {
        *sptr++ = pi + 1;
        *sptr++ = pr;
        pr = pi - 1;
      } else {
        *sptr++ = pl;
        *sptr++ = pi - 1;
        pl = pi + 1;
      }
      *psdepth++ = --cdepth;
    }
    for (size_t* pi = pl + 1; pi <= pr; ++pi) {
      size_t vi = *pi;
      int64_t vp = v[vi];
      size_t* pj = pi;
      size_t* pk = pi - 1;
      while (pj > pl && vp < v[*pk]) *pj-- = *pk--;
      *pj = vi;
    }
  stack_pop:
    if (sptr == stack) break;
    pr = *(--sptr);
    pl = *(--sptr);
    cdepth = *(--psdepth);
  }
  return idx;
}

}  // namespace sextant::trace::stats
