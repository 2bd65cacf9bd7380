#include "ir/moe_dispatch.hpp"

#include <algorithm>
#include <vector>

#include "core/error.hpp"

namespace sextant::ir {

double moe_miss_probability(int experts, int held, int topk) {
  if (held <= 0) return 1;
  if (experts - held < topk) return 0;
  double q = 1;
  for (int i = 0; i < topk; ++i) q *= static_cast<double>(experts - held - i) / (experts - i);
  return q;
}

bool moe_grouped_hits(const MoeRoute& r, int n, int k, int D, double* member_hit, double* domain_hit) {
  const int E = r.experts, K = r.topk, G = r.groups, M = r.groups_per_token;
  if (G <= 1 || M < 1 || M >= G || E <= 0 || K <= 0 || E % G != 0 || n < 1 || E % n != 0 || k < 1 || D < 1 || k * D != n) return false;
  // C(G, M) group choices, enumerated when at most 5,000 (DeepSeek-V3: C(8, 4) = 70).
  double choices = 1;
  for (int i = 0; i < M; ++i) choices = choices * (G - i) / (i + 1);
  if (choices > 5000) return false;
  const int s = E / G, e = E / n;
  // Experts of group g inside [lo, hi).
  auto overlap = [&](int g, int lo, int hi) { return std::max(0, std::min((g + 1) * s, hi) - std::max(g * s, lo)); };
  std::vector<int> pick(static_cast<size_t>(M));
  for (int i = 0; i < M; ++i) pick[static_cast<size_t>(i)] = i;
  double members = 0, domains = 0, count = 0;
  const int in_choice = M * s;
  while (true) {
    for (int d = 0; d < D; ++d) {
      int held = 0;
      for (int g : pick) held += overlap(g, d * k * e, (d + 1) * k * e);
      domains += 1 - moe_miss_probability(in_choice, held, K);
    }
    for (int i = 0; i < n; ++i) {
      int held = 0;
      for (int g : pick) held += overlap(g, i * e, (i + 1) * e);
      members += 1 - moe_miss_probability(in_choice, held, K);
    }
    count += 1;
    // Next combination of M of G in lexicographic order.
    int i = M - 1;
    while (i >= 0 && pick[static_cast<size_t>(i)] == G - M + i) --i;
    if (i < 0) break;
    ++pick[static_cast<size_t>(i)];
    for (int j = i + 1; j < M; ++j) pick[static_cast<size_t>(j)] = pick[static_cast<size_t>(j - 1)] + 1;
  }
  *member_hit = members / (count * n);
  *domain_hit = domains / (count * D);
  return true;
}

MoeDispatcherRegistry::MoeDispatcherRegistry() : InstanceRegistry("parallel.moe_dispatcher", "MoE dispatcher") {
  add(make_alltoall_dispatcher());
  add(make_dedup_dispatcher("deepep"));
  add(make_dedup_dispatcher("hybridep"));
}

}  // namespace sextant::ir
