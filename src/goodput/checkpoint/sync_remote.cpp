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
    s.blocking_s = env.remote_write_s();
    s.levels.push_back({"remote", 0.0, 1, env.remote_read_s(), kAlways});
    return s;
  }
};
}  // namespace

std::unique_ptr<CheckpointStrategy> make_sync_remote(const YamlMap*) { return std::make_unique<SyncRemote>(); }

}  // namespace sextant::goodput
