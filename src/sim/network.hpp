#pragma once
// Flow-level network for the simulator: links of normalised capacity 1 and flows that each need
// a fraction of some links' capacity when running at their solo (idle-network) speed. Rates are
// max-min fair (progressive filling with demand weights), capped at the solo speed, and are
// recomputed only for the connected component of flows that share links with a flow that
// starts or ends. A flow carries `work_s`: seconds of transfer at its solo speed, so a flow
// alone on idle links finishes after exactly work_s, and two identical flows on one link each
// take twice as long.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace sextant::sim {

class Network {
 public:
  struct Demand {
    int link = 0;
    double fraction = 1;  // share of the link's capacity used at solo speed, in (0, 1]
  };
  int add_link();
  int links_count() const { return static_cast<int>(link_flows_.size()); }

  // Starts a flow at time now; returns its id. Rates of every flow in its component change:
  // changed() lists them (with their new finish times) until the next call to start/finish.
  int start(double now, double work_s, const std::vector<Demand>& demands);
  // Removes a finished flow at time now (now must be its finish time).
  void finish(int flow, double now);

  double finish_time(int flow) const;
  double rate(int flow) const { return flows_[static_cast<size_t>(flow)].rate; }
  uint32_t version(int flow) const { return flows_[static_cast<size_t>(flow)].version; }
  const std::vector<int>& changed() const { return changed_; }
  int active_flows() const { return active_; }

 private:
  struct Flow {
    std::vector<Demand> demands;
    double remaining_s = 0, rate = 0, last_s = 0;
    uint32_t version = 0;
    bool active = false;
  };
  void recompute(double now, const std::vector<int>& seed_links);

  std::vector<Flow> flows_;
  std::vector<int> free_;
  std::vector<std::vector<int>> link_flows_;  // active flows on each link
  std::vector<uint32_t> link_mark_, flow_mark_;
  uint32_t mark_ = 0;
  std::vector<int> changed_, comp_links_, comp_flows_;
  std::vector<double> cap_, sum_;
  std::vector<char> frozen_;
  int active_ = 0;
};

}  // namespace sextant::sim
