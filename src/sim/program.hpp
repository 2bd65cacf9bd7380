#pragma once
// The per-stage instruction list the simulator executes: the pipeline schedule's order of
// (micro-batch, chunk) passes expanded over the IR's blocks and steps, plus the once-per-step
// work (parameter gather buckets, gradient buckets, optimizer). Built once per pipeline stage;
// every simulated unit of that stage runs the same program (its own program counter).
//
// Rules that turn the IR's `overlappable` collectives into stream work (docs/simulate.md):
//  - not overlappable: blocks the compute stream until the collective completes;
//  - overlappable and the first step of a pass (a parameter gather): prefetched one block
//    repetition ahead on the group's stream; the repetition waits for it before its compute;
//  - overlappable and the last step of a pass (a gradient reduce-scatter): runs on the group's
//    stream; the step waits for it before the optimizer;
//  - overlappable elsewhere: runs on the group's stream; the pass (one block repetition) waits
//    for it at its end.
#include <cstdint>
#include <string>
#include <vector>

#include "estimate/collective.hpp"
#include "estimate/estimate.hpp"
#include "ir/schedule.hpp"
#include "ir/workload.hpp"

namespace sextant::sim {

enum class Ins : uint8_t { Compute, Coll, WaitPass, WaitStep, WaitToken, Recv, Send, Mem, Item, StepEnd };
enum class CollMode : uint8_t { Blocking, AsyncPass, AsyncStep, AsyncToken };
inline constexpr int kGroupKinds = 7;  // ir::GroupKind values

struct OpInfo {
  const char* name = "";
  ir::OpClass cls = ir::OpClass::Gemm;
  double flops = 0, bytes = 0, time_s = 0;
  bool optimizer = false;
};

struct CollInfo {
  const char* name = "";
  ir::CollKind kind = ir::CollKind::AllReduce;
  ir::GroupKind group = ir::GroupKind::TP;
  double bytes = 0;
  double time_s = 0;     // on an idle network (same as estimate's collective_time_s)
  double latency_s = 0;  // of which latency terms (the rest is the bandwidth part)
  double nvlink_fraction = 0, nic_fraction = 0;  // link shares at idle speed (0: link unused)
  double uplink_fraction = 0;  // share of the leaf-uplink link (0: the group stays inside one leaf)
  int32_t calls = 1;     // NCCL calls it stands for (ir::Collective::calls; the per-op table counts calls)
  int32_t row = -1;      // StageProgram::comm_rows entry its simulated time is reported under
};

// A row of the per-op table (estimate's op_table) that the simulated time of collectives is
// reported under: the IR block and pass holding them ("step" for the step's gradient and
// parameter buckets, "pipeline" for the pipeline sends), their name, group and kind.
struct CommRow {
  std::string block, pass, name;
  ir::GroupKind group = ir::GroupKind::TP;
  ir::CollKind kind = ir::CollKind::AllReduce;
  double bytes = 0;  // of one call (the first collective reported under it)
};

struct Instr {
  Ins op = Ins::Compute;
  uint8_t group = 0;  // GroupKind (Coll, waits); direction 0 forward / 1 backward (Send, Recv); chunk (Item)
  CollMode mode = CollMode::Blocking;
  uint8_t flag = 0;   // Item: 0 F, 1 B, 2 W; Coll/Wait: 1 = step-level synchronisation (grad/param buckets);
                      // Send: 0 interleaved layout, 1 / 2 to the next / previous rank, same chunk (V-shaped)
  int32_t token = 0;  // AsyncToken/WaitToken: token; Send/Recv: slot (micro-batch * vpp + chunk); Item: micro-batch
  int32_t ref = 0;    // index into ops (Compute) or colls (Coll, Send)
  double value = 0;   // Mem: bytes added (negative: freed)
};

struct StageProgram {
  int stage = 0;
  std::vector<Instr> code;
  std::vector<OpInfo> ops;
  std::vector<CollInfo> colls;
  std::vector<CommRow> comm_rows;  // CollInfo::row
  int tokens = 0;
  double static_memory_bytes = 0;
};

// Idle-network time, latency part and link shares of one collective (calls equal calls).
CollInfo describe_collective(const ir::Collective& c, const ir::Workload& w, const Estimator& est, const Fabric& f);

// p2p_async: pipeline sends run on their own stream (interleaved schedules, as estimate
// assumes); otherwise the sender's compute stream waits for its send.
std::vector<StageProgram> build_programs(const ir::Workload& w, const Estimator& est, const Fabric& f,
                                         const ir::PipelineSchedule& sched, bool p2p_async);

}  // namespace sextant::sim
