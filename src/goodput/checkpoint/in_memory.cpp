// In-memory checkpoints replicated to peers' host memory (Gemini, SOSP'23): every checkpoint is a
// device-to-host snapshot copied to `copies` peer nodes over the back-end network; every
// `remote_every`-th checkpoint is also persisted to remote storage. A failure restores from peer
// memory unless every copy of some shard was lost, then from the last remote checkpoint.
// Placement `ring` puts copies on the next nodes in rank order (a domain failure of more than
// `copies` consecutive nodes loses shards); `cross-domain` puts them in other failure domains.
#include "goodput/checkpoint/strategy.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace sextant::goodput {

namespace {
class InMemory final : public CheckpointStrategy {
 public:
  InMemory(int64_t copies, int64_t remote_every, bool cross_domain)
      : copies_(copies), remote_every_(remote_every), cross_domain_(cross_domain) {}
  std::string name() const override { return "in-memory"; }
  std::string description() const override {
    return "snapshot copied to peer host memory every checkpoint; remote every " + std::to_string(remote_every_) + "th";
  }
  CheckpointSchedule schedule(const CheckpointEnv& env) const override {
    CheckpointSchedule s;
    s.blocking_s = env.snapshot_s();
    // One copy per other node at most: a given count beyond that is refused where the node count
    // is known (config.cpp); the default of 2 (the strategies table's, on a 2-node job) is held
    // to the peers there are, not charged for a copy no node holds (before 2026-12-05 review).
    const int64_t copies = std::min(copies_, std::max<int64_t>(1, env.nodes - 1));
    // The copies are on other nodes of the job: a failure that takes every node of the job takes
    // every copy, whatever the placement (before 2026-12-03 a 1-node job restored from "peer"
    // memory after losing its only node).
    s.levels.push_back({"peer-memory", env.peer_copy_s(copies), 1, env.peer_read_s(),
                        std::min(cross_domain_ ? kAlways : copies, std::max<int64_t>(0, env.nodes - 1))});
    s.levels.push_back({"remote", env.remote_write_s(), remote_every_, env.remote_read_s(), kAlways});
    return s;
  }

 private:
  int64_t copies_, remote_every_;
  bool cross_domain_;
};
}  // namespace

std::unique_ptr<CheckpointStrategy> make_in_memory(const YamlMap* o) {
  int64_t copies = 2, remote_every = 10;
  std::string placement = "ring";
  if (o) {
    copies = o->i64("copies", 2);
    remote_every = o->i64("remote_every", 10);
    placement = o->choice("placement", {"ring", "cross-domain"}, "ring");
    if (copies < 1) o->fail("copies", "need at least one peer copy");
    if (remote_every < 1) o->fail("remote_every", "must be >= 1");
  }
  return std::make_unique<InMemory>(copies, remote_every, placement == "cross-domain");
}

}  // namespace sextant::goodput
