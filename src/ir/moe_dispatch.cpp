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
  const int in_choice = M * s;
  // The hit chance by experts held, and each domain's and member's experts in each group, worked
  // out once (2026-12-07 review: recomputed for every group choice, this function took a third of
  // a DeepSeek-V3 plan search; the sums below add the same values in the same order).
  std::vector<double> hit(static_cast<size_t>(in_choice) + 1);
  for (int h = 0; h <= in_choice; ++h) hit[static_cast<size_t>(h)] = 1 - moe_miss_probability(in_choice, h, K);
  // Members (and domains) whose experts fall alike over the groups share one row: DeepSeek-V3's 64
  // members at EP 64 have 8 distinct rows. Each row's count is summed once per group choice.
  struct Rows {
    std::vector<int> in_group;  // rows x G: experts of the row in each group
    std::vector<int> row_of;    // row of each member or domain
    std::vector<int> held;      // per row, for the current group choice
  };
  auto rows_of = [&](int count, int width) {
    Rows r;
    std::vector<int> row(static_cast<size_t>(G));
    for (int i = 0; i < count; ++i) {
      for (int g = 0; g < G; ++g) row[static_cast<size_t>(g)] = overlap(g, i * width, (i + 1) * width);
      int found = -1;
      for (size_t j = 0; j < r.in_group.size() / static_cast<size_t>(G) && found < 0; ++j)
        if (std::equal(row.begin(), row.end(), r.in_group.begin() + static_cast<std::ptrdiff_t>(j) * G)) found = static_cast<int>(j);
      if (found < 0) {
        found = static_cast<int>(r.in_group.size()) / G;
        r.in_group.insert(r.in_group.end(), row.begin(), row.end());
      }
      r.row_of.push_back(found);
    }
    r.held.resize(r.in_group.size() / static_cast<size_t>(G));
    return r;
  };
  Rows dom = rows_of(D, k * e), mem = rows_of(n, e);
  std::vector<int> pick(static_cast<size_t>(M));
  for (int i = 0; i < M; ++i) pick[static_cast<size_t>(i)] = i;
  double members = 0, domains = 0, count = 0;
  auto held_per_row = [&](Rows& r) {
    for (size_t j = 0; j < r.held.size(); ++j) {
      int held = 0;
      for (int g : pick) held += r.in_group[j * static_cast<size_t>(G) + static_cast<size_t>(g)];
      r.held[j] = held;
    }
  };
  while (true) {
    held_per_row(dom);
    held_per_row(mem);
    for (int d = 0; d < D; ++d) domains += hit[static_cast<size_t>(dom.held[static_cast<size_t>(dom.row_of[static_cast<size_t>(d)])])];
    for (int i = 0; i < n; ++i) members += hit[static_cast<size_t>(mem.held[static_cast<size_t>(mem.row_of[static_cast<size_t>(i)])])];
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
