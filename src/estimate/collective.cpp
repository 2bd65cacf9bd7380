#include "estimate/collective.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>

#include "core/error.hpp"

namespace sextant {

static double known_or(const Sourced& s, double dflt) { return s.known ? s.value : dflt; }

// What a network's unknown fields are taken as (nccl-tests-like ring efficiencies and per-step
// latencies of NVLink- and InfiniBand-class fabrics; docs/catalog.md). Named in the result's notes
// by fabric_defaults_assumed: they had been used without a word (review of 2026-12-06).
constexpr double kUpAchievableDefault = 0.8, kUpLatencyDefault_s = 3e-6;
constexpr double kOutAchievableDefault = 0.9, kOutLatencyDefault_s = 6e-6;

Fabric make_fabric(const Scenario& s) {
  Fabric f;
  const auto& up = s.scale_up;
  f.up_busbw_bytes_per_s = up.bandwidth_bytes_per_s.value * known_or(up.achievable_fraction, kUpAchievableDefault);
  if (up.in_network_reduction_fraction.known) {
    f.up_nvls_busbw_bytes_per_s = up.bandwidth_bytes_per_s.value * up.in_network_reduction_fraction.value;
    f.up_nvls_measured_gpus = static_cast<int>(up.in_network_reduction_measured_gpus.value);
    if (up.in_network_reduction_latency_s.known) f.up_nvls_latency_s = up.in_network_reduction_latency_s.value;
  }
  f.up_latency_s = known_or(up.latency_s, kUpLatencyDefault_s);
  f.gpus_per_domain = s.system.scale_up_domain;
  f.up_mesh = up.topology == "mesh";
  f.up_torus_dims = up.topology == "torus" ? up.torus_dims : 0;
  f.up_torus_slice = static_cast<int>(std::min<int64_t>(s.system.scale_up_domain, s.num_gpus));
  f.world_gpus = s.num_gpus;
  f.nic_aggregation = s.plan.collective_nic_aggregation;
  const auto& algos = s.plan.collective_algorithms;
  f.allow_tree = std::find(algos.begin(), algos.end(), "tree") != algos.end();
  f.allow_nvls = std::find(algos.begin(), algos.end(), "nvls") != algos.end();
  if (s.scale_out) {
    const auto& out = *s.scale_out;
    const double port = s.system.nic_bandwidth_bytes_per_s.known ? s.system.nic_bandwidth_bytes_per_s.value
                                                                  : out.bandwidth_bytes_per_s.value;
    const double node_bw = port * s.system.nics_per_node * known_or(out.achievable_fraction, kOutAchievableDefault);
    f.out_busbw_bytes_per_s = node_bw / s.system.gpus_per_node;
    f.out_latency_s = known_or(out.latency_s, kOutLatencyDefault_s);
    // The leaf/spine level (Fabric::domains_per_leaf): whole scale-up domains per leaf, at least one.
    f.oversubscription = std::max(1.0, s.system.oversubscription);
    if (s.system.leaf_nodes.known) {
      const double gpus = s.system.leaf_nodes.value * s.system.gpus_per_node;
      f.domains_per_leaf = std::max(1, static_cast<int>(std::min(gpus / std::max(1, f.gpus_per_domain), 1e9)));
    }
  } else {
    f.out_busbw_bytes_per_s = f.up_busbw_bytes_per_s;
    f.out_latency_s = f.up_latency_s;
  }
  return f;
}

std::vector<std::string> fabric_defaults_assumed(const Scenario& s) {
  std::vector<std::string> out;
  auto fmt = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return std::string(b);
  };
  auto one = [&](const NetworkTech& n, const char* role, double achievable, double latency_s) {
    std::string missing;
    if (!n.achievable_fraction.known) missing += "achievable_fraction " + fmt(achievable);
    if (!n.latency_s.known) missing += std::string(missing.empty() ? "" : ", ") + "latency_us " + fmt(latency_s * 1e6);
    if (!missing.empty()) out.push_back(std::string(role) + " network " + n.id + ": " + missing);
  };
  // Only a network the job's collectives use: the scale-up one from two GPUs, the scale-out one
  // where the job spans scale-up domains.
  if (s.num_gpus > 1) one(s.scale_up, "scale-up", kUpAchievableDefault, kUpLatencyDefault_s);
  if (s.scale_out && s.num_gpus > s.system.scale_up_domain) one(*s.scale_out, "scale-out", kOutAchievableDefault, kOutLatencyDefault_s);
  return out;
}

std::vector<std::string> fabric_settings_without_effect(const Scenario& s) {
  std::vector<std::string> idle;
  if (s.scale_out && s.scale_out->in_network_reduction_fraction.known)
    idle.push_back("in_network_reduction_fraction of scale_out network " + s.scale_out->id +
                   " (in-network reduction, SHARP, is modelled only inside a scale-up domain, as NVLS: collectives across "
                   "domains run as rings or trees)");
  // Review of 2026-12-06: the plan's fabric keys changed nothing on one scale-up domain without a
  // word. A group spans domains only where the job has more GPUs than one domain holds (ir::place
  // puts ranks in domain order): below that no ring leaves its domain, so the NICs' aggregation
  // is never used and a tree (across domains only) never applies; NVLS needs the scale-up
  // network's in-switch reduction. Judged on the job, not on its groups: a note is never given
  // where a setting can matter (tp 4 pp 8 on 1,024 H100s: 8.92 s with aggregation, 9.01 without).
  const ParallelPlan& p = s.plan;
  const int domain = std::max(1, s.system.scale_up_domain);
  const bool one_domain = s.num_gpus <= domain;
  const std::string where = s.num_gpus <= 1 ? "one GPU: no collective"
                                             : "all " + std::to_string(s.num_gpus) + " GPUs in one scale-up domain of " +
                                                   std::to_string(domain) + ": no collective crosses domains";
  if (p.collective_nic_aggregation_changed && one_domain)
    idle.push_back(std::string("parallel.collective_nic_aggregation (") + (p.collective_nic_aggregation ? "true" : "false") + ", with " +
                   where + ", so none uses the NICs)");
  // The algorithms the list leaves out (of ring, tree and nvls, the default): without effect when
  // none of them could have been taken here; a list at the default is no statement to note.
  const auto listed = [&](const char* name) {
    return std::find(p.collective_algorithms.begin(), p.collective_algorithms.end(), name) != p.collective_algorithms.end();
  };
  const bool tree_can = !one_domain;
  const bool nvls_can = s.num_gpus > 1 && s.scale_up.in_network_reduction_fraction.known && s.scale_up.in_network_reduction_fraction.value > 0;
  const bool drops_tree = !listed("tree"), drops_nvls = !listed("nvls");
  if ((drops_tree || drops_nvls) && !(drops_tree && tree_can) && !(drops_nvls && nvls_can)) {
    std::string list;
    for (const auto& a : p.collective_algorithms) list += (list.empty() ? "" : ", ") + a;
    std::string why;
    if (drops_tree) why = "tree runs all-reduces across scale-up domains only, with " + where;
    if (drops_nvls)
      why += (why.empty() ? "" : "; ") +
             (s.num_gpus <= 1 ? std::string("nvls needs a collective, with one GPU")
                              : "nvls needs in-switch reduction, which scale_up network " + s.scale_up.id + " has none of");
    idle.push_back("parallel.collective_algorithms ([" + list + "]: what it leaves out could not have been taken here: " + why + ")");
  }
  return idle;
}

Fabric::LeafShare Fabric::spanning_leaf_share(const ir::Group& g) const {
  LeafShare s;
  s.domains = g.domains;
  s.members = g.size;
  const int64_t D = std::max(1, gpus_per_domain), B = static_cast<int64_t>(std::max(1, domains_per_leaf)) * D;
  const int64_t n = g.size, st = std::max(1, g.stride), L = st * n, c = (n - 1) * st;  // c: last member - first
  if (world_gpus > 0 && world_gpus <= B) return s;  // every rank on the first leaf
  if (st >= B) {  // consecutive members a leaf or more apart: one member (and domain) a leaf
    s.crosses = true;
    s.domains = 1;
    s.members = 1;
    return s;
  }
  // Instances start at offsets o = i + j L (i < len: the instance must fit the world, which the
  // pipeline-ends group's offsets below its stride do not all do; j < instances_j), x = o mod B
  // into their first leaf; their layout on the leaves repeats every B / gcd(L, B) values of j.
  const int64_t len = world_gpus > 0 ? std::min(st, world_gpus - c) : st;
  if (len <= 0) return s;
  const int64_t instances_j = world_gpus > 0 ? std::max<int64_t>(1, world_gpus / L) : 1;
  const int64_t G = std::gcd(L, B), period = B / G;
  // An instance starting x into its first leaf leaves it when x + c >= B; the first leaf then
  // holds ceil((B - x) / st) of its members and B/D - x/D of its domains (st < D: each domain
  // from x's on holds one; st >= D: one member a domain), the last, where the last member sits
  // y = (x + c) mod B into it, floor(y / st) + 1 members and y/D + 1 domains. The largest x and
  // the smallest y are the worst (O(1) per run of offsets: this runs for every collective of
  // every plan the search estimates).
  int64_t fewest_members = n + 1, fewest_domains = n + 1, widest_x = -1;
  auto ends = [&](int64_t x_max, int64_t y_min) {
    const int64_t m0 = (B - x_max + st - 1) / st, m1 = y_min / st + 1;
    fewest_members = std::min({fewest_members, m0, m1});
    fewest_domains = std::min(fewest_domains, st >= D ? std::min(m0, m1) : std::min(B / D - x_max / D, y_min / D + 1));
    widest_x = std::max(widest_x, x_max);
  };
  auto run = [&](int64_t a, int64_t b) {  // offsets [a, b) into the leaf, 0 <= a < b <= B
    a = std::max(a, B - c);
    if (a >= b) return;
    const int64_t t = (a + c) % B;  // y of the first; a multiple of B within the run gives y = 0
    ends(b - 1, t + (b - a) > B ? 0 : t);
  };
  if (instances_j >= period) {
    // Every j: the offsets x with x mod G < w, the largest B - G + w - 1; the smallest y of those
    // leaving their leaf is the smallest y >= 0 with (y - c) mod G < w (B is a multiple of G).
    const int64_t w = std::min(len, G), x_max = B - G + w - 1;
    if (x_max + c >= B) ends(x_max, c % G + w > G ? 0 : c % G);
  } else {
    for (int64_t j = 0; j < instances_j; ++j) {
      const int64_t a = (j * L) % B;
      run(a, std::min(B, a + len));
      if (a + len > B) run(0, a + len - B);
    }
  }
  if (widest_x < 0) return s;  // no instance leaves its leaf
  // The leaves between an instance's first and last hold floor(B / st) or one more members
  // (their domains all of the leaf's when st < D: never the fewest); they matter only when every
  // end leaf holds one more. Then each instance is walked (bounded: far beyond real layouts the
  // floor is taken).
  const int64_t floor_members = B / st;
  if (fewest_members > floor_members && widest_x + c >= 2 * B) {
    const int64_t js = std::min(instances_j, period);
    if (js * len > 200000) {
      fewest_members = floor_members;
      if (st >= D) fewest_domains = std::min(fewest_domains, floor_members);
    } else {
      const int64_t leaf_period = st / std::gcd(B, st);  // middle leaves repeat every this many
      for (int64_t j = 0; j < js; ++j)
        for (int64_t i = 0; i < len; ++i) {
          const int64_t x = (j * L + i) % B, last = (x + c) / B;
          auto first = [&](int64_t l) { return (l * B - x + st - 1) / st; };  // first member on leaf l >= 1
          for (int64_t l = 1; l < last && l <= leaf_period; ++l) {
            const int64_t m = first(l + 1) - first(l);
            fewest_members = std::min(fewest_members, m);
            if (st >= D) fewest_domains = std::min(fewest_domains, m);
          }
        }
    }
  }
  s.crosses = true;
  s.domains = static_cast<int>(fewest_domains);
  s.members = static_cast<int>(fewest_members);
  return s;
}

CollectiveRegistry::CollectiveRegistry() : InstanceRegistry("algorithm", "collective algorithm") {
  add(make_ring());
  add(make_tree());
  add(make_nvls());
  add(make_all_to_all());
  add(make_p2p());
}

CollectiveChoice CollectiveRegistry::best(ir::CollKind k, double bytes, const ir::Group& g, const Fabric& f,
                                          const ir::A2ATraffic& traffic) const {
  CollectiveChoice c;
  if (g.size <= 1 || bytes <= 0) return c;
  c.time_s = std::numeric_limits<double>::infinity();
  for (const auto& a : items()) {
    if (!a->supports(k, g, f)) continue;
    if ((!f.allow_tree && a->name() == "tree") || (!f.allow_nvls && a->name() == "nvls")) continue;
    const double t = a->time_s(k, bytes, g, f, traffic);
    if (t < c.time_s) {
      c.time_s = t;
      c.algorithm = a.get();
    }
  }
  if (!c.algorithm) throw Error("no collective algorithm supports " + ir::to_string(k));
  return c;
}

}  // namespace sextant
