// Multi-level checkpointing (SCR, Moody et al. SC'10; CheckFreq/Check-N-Run tiers): every
// checkpoint goes to a fast level (node-local NVMe, or peer memory) after a short snapshot, and
// every `remote_every`-th also to remote storage in the background. Local NVMe survives software
// failures but not the loss of its node; restore falls back to remote then.
#include "goodput/checkpoint/strategy.hpp"

#include <algorithm>

namespace sextant::goodput {

namespace {
class MultiLevel final : public CheckpointStrategy {
 public:
  MultiLevel(bool nvme, int64_t remote_every) : nvme_(nvme), remote_every_(remote_every) {}
  std::string name() const override { return "multi-level"; }
  std::string description() const override {
    return std::string(nvme_ ? "local NVMe" : "peer memory") + " every checkpoint + remote every " +
           std::to_string(remote_every_) + "th";
  }
  CheckpointSchedule schedule(const CheckpointEnv& env) const override {
    CheckpointSchedule s;
    s.blocking_s = env.snapshot_s();
    if (nvme_)
      s.levels.push_back({"local-nvme", env.nvme_write_s(), 1, env.nvme_read_s(), 0});
    else
      s.levels.push_back({"peer-memory", env.peer_copy_s(1), 1, env.peer_read_s(), std::min<int64_t>(1, std::max<int64_t>(0, env.nodes - 1))});
    s.levels.push_back({"remote", env.remote_write_s(), remote_every_, env.remote_read_s(), kAlways});
    return s;
  }

 private:
  bool nvme_;
  int64_t remote_every_;
};
}  // namespace

std::unique_ptr<CheckpointStrategy> make_multi_level(const YamlMap* o) {
  bool nvme = true;
  int64_t remote_every = 5;
  if (o) {
    nvme = o->choice("fast_level", {"local-nvme", "peer-memory"}, "local-nvme") == "local-nvme";
    remote_every = o->i64("remote_every", 5);
    if (remote_every < 1) o->fail("remote_every", "must be >= 1");
  }
  return std::make_unique<MultiLevel>(nvme, remote_every);
}

}  // namespace sextant::goodput
