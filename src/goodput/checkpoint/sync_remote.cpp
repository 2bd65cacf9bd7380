// Synchronous checkpoint to remote storage: training stops while every rank writes its shard;
// the checkpoint is durable when the write ends (torch.save / DCP save, Megatron dist-ckpt sync).
#include "goodput/checkpoint/strategy.hpp"

namespace sextant::goodput {

namespace {
class SyncRemote final : public CheckpointStrategy {
 public:
  std::string name() const override { return "sync-remote"; }
  std::string description() const override { return "synchronous write to remote storage; stall = full write"; }
  CheckpointSchedule schedule(const CheckpointEnv& env) const override {
    CheckpointSchedule s;
    // The write as given, 0 included: the intervals floor at one step (min_interval_s), not the
    // stall. (It was raised to 1 ms, which printed a 0 s write beside a 0.001 s stall and a Young
    // interval of 13 s, before 2026-12-06 review.)
    s.blocking_s = env.remote_write_s();
    s.levels.push_back({"remote", 0.0, 1, env.remote_read_s(), kAlways});
    return s;
  }
};
}  // namespace

std::unique_ptr<CheckpointStrategy> make_sync_remote(const YamlMap*) { return std::make_unique<SyncRemote>(); }

}  // namespace sextant::goodput
