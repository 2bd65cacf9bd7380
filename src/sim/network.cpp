#include "sim/network.hpp"

#include <algorithm>
#include <limits>

#include "core/error.hpp"

namespace sextant::sim {

int Network::add_link() {
  link_flows_.emplace_back();
  link_mark_.push_back(0);
  return static_cast<int>(link_flows_.size()) - 1;
}

double Network::finish_time(int flow) const {
  const Flow& f = flows_[static_cast<size_t>(flow)];
  if (f.rate <= 0) return std::numeric_limits<double>::infinity();
  return f.last_s + f.remaining_s / f.rate;
}

int Network::start(double now, double work_s, const std::vector<Demand>& demands) {
  int id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<int>(flows_.size());
    flows_.emplace_back();
    flow_mark_.push_back(0);
  }
  Flow& f = flows_[static_cast<size_t>(id)];
  f.demands = demands;
  f.remaining_s = std::max(0.0, work_s);
  f.rate = 0;
  f.last_s = now;
  f.active = true;
  ++active_;
  std::vector<int> seeds;
  seeds.reserve(demands.size());
  for (const auto& d : demands) {
    if (d.link < 0 || d.link >= links_count()) throw Error("network: flow on unknown link " + std::to_string(d.link));
    link_flows_[static_cast<size_t>(d.link)].push_back(id);
    seeds.push_back(d.link);
  }
  changed_.clear();
  if (demands.empty()) {  // a flow on no link runs at solo speed
    f.rate = 1;
    ++f.version;
    changed_.push_back(id);
    return id;
  }
  recompute(now, seeds);
  return id;
}

void Network::finish(int flow, double now) {
  Flow& f = flows_[static_cast<size_t>(flow)];
  f.active = false;
  ++f.version;
  --active_;
  std::vector<int> seeds;
  for (const auto& d : f.demands) {
    auto& v = link_flows_[static_cast<size_t>(d.link)];
    auto it = std::find(v.begin(), v.end(), flow);
    if (it != v.end()) {
      *it = v.back();
      v.pop_back();
    }
    seeds.push_back(d.link);
  }
  free_.push_back(flow);
  changed_.clear();
  recompute(now, seeds);
}

void Network::recompute(double now, const std::vector<int>& seed_links) {
  // Collect the component: links and flows reachable through shared links.
  ++mark_;
  comp_links_.clear();
  comp_flows_.clear();
  for (int l : seed_links)
    if (link_mark_[static_cast<size_t>(l)] != mark_) {
      link_mark_[static_cast<size_t>(l)] = mark_;
      comp_links_.push_back(l);
    }
  for (size_t i = 0; i < comp_links_.size(); ++i) {
    for (int fid : link_flows_[static_cast<size_t>(comp_links_[i])]) {
      if (flow_mark_[static_cast<size_t>(fid)] == mark_) continue;
      flow_mark_[static_cast<size_t>(fid)] = mark_;
      comp_flows_.push_back(fid);
      for (const auto& d : flows_[static_cast<size_t>(fid)].demands)
        if (link_mark_[static_cast<size_t>(d.link)] != mark_) {
          link_mark_[static_cast<size_t>(d.link)] = mark_;
          comp_links_.push_back(d.link);
        }
    }
  }
  if (comp_flows_.empty()) return;
  // Bring progress up to now at the old rates; deterministic order (ascending ids).
  std::sort(comp_flows_.begin(), comp_flows_.end());
  for (int fid : comp_flows_) {
    Flow& f = flows_[static_cast<size_t>(fid)];
    f.remaining_s = std::max(0.0, f.remaining_s - f.rate * (now - f.last_s));
    f.last_s = now;
  }
  // Progressive filling: all unfrozen flows rise at the same rate x until a link saturates
  // (freeze its flows) or x reaches 1 (solo speed).
  if (cap_.size() < link_flows_.size()) {
    cap_.resize(link_flows_.size());
    sum_.resize(link_flows_.size());
  }
  if (frozen_.size() < flows_.size()) frozen_.resize(flows_.size());
  for (int l : comp_links_) cap_[static_cast<size_t>(l)] = 1.0;
  for (int fid : comp_flows_) frozen_[static_cast<size_t>(fid)] = 0;
  size_t unfrozen = comp_flows_.size();
  double x = 0;
  while (unfrozen > 0) {
    for (int l : comp_links_) sum_[static_cast<size_t>(l)] = 0;
    for (int fid : comp_flows_)
      if (!frozen_[static_cast<size_t>(fid)])
        for (const auto& d : flows_[static_cast<size_t>(fid)].demands) sum_[static_cast<size_t>(d.link)] += d.fraction;
    double delta = 1.0 - x;
    for (int l : comp_links_) {
      const double s = sum_[static_cast<size_t>(l)];
      if (s > 0) delta = std::min(delta, std::max(0.0, cap_[static_cast<size_t>(l)]) / s);
    }
    x += delta;
    for (int l : comp_links_) cap_[static_cast<size_t>(l)] -= delta * sum_[static_cast<size_t>(l)];
    const bool top = x >= 1.0 - 1e-12;
    for (int fid : comp_flows_) {
      if (frozen_[static_cast<size_t>(fid)]) continue;
      bool sat = top;
      if (!sat)
        for (const auto& d : flows_[static_cast<size_t>(fid)].demands)
          if (sum_[static_cast<size_t>(d.link)] > 0 && cap_[static_cast<size_t>(d.link)] <= 1e-12) {
            sat = true;
            break;
          }
      if (sat) {
        frozen_[static_cast<size_t>(fid)] = 1;
        --unfrozen;
        Flow& f = flows_[static_cast<size_t>(fid)];
        const double r = std::min(1.0, x);
        if (r != f.rate) {  // unchanged rate: the scheduled finish stays valid
          f.rate = r;
          ++f.version;
          changed_.push_back(fid);
        }
      }
    }
  }
}

}  // namespace sextant::sim
