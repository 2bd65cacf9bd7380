#include "estimate/collective.hpp"

#include <limits>

#include "core/error.hpp"

namespace sextant {

static double known_or(const Sourced& s, double dflt) { return s.known ? s.value : dflt; }

Fabric make_fabric(const Scenario& s) {
  Fabric f;
  const auto& up = s.scale_up;
  f.up_busbw_bytes_per_s = up.bandwidth_bytes_per_s.value * known_or(up.achievable_fraction, 0.8);
  if (up.in_network_reduction_fraction.known) {
    f.up_nvls_busbw_bytes_per_s = up.bandwidth_bytes_per_s.value * up.in_network_reduction_fraction.value;
    f.up_nvls_measured_gpus = static_cast<int>(up.in_network_reduction_measured_gpus.value);
    if (up.in_network_reduction_latency_s.known) f.up_nvls_latency_s = up.in_network_reduction_latency_s.value;
  }
  f.up_latency_s = known_or(up.latency_s, 3e-6);
  f.gpus_per_domain = s.system.scale_up_domain;
  f.up_mesh = up.topology == "mesh";
  f.up_torus_dims = up.topology == "torus" ? up.torus_dims : 0;
  f.up_torus_slice = static_cast<int>(std::min<int64_t>(s.system.scale_up_domain, s.num_gpus));
  f.world_gpus = s.num_gpus;
  f.nic_aggregation = s.plan.collective_nic_aggregation;
  if (s.scale_out) {
    const auto& out = *s.scale_out;
    const double port = s.system.nic_bandwidth_bytes_per_s.known ? s.system.nic_bandwidth_bytes_per_s.value
                                                                  : out.bandwidth_bytes_per_s.value;
    const double node_bw = port * s.system.nics_per_node * known_or(out.achievable_fraction, 0.9);
    f.out_busbw_bytes_per_s = node_bw / s.system.gpus_per_node;
    f.out_latency_s = known_or(out.latency_s, 6e-6);
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
