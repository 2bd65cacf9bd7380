#include "sim/program.hpp"

#include <algorithm>
#include <tuple>
#include <functional>
#include <cmath>
#include <map>
#include <string_view>

namespace sextant::sim {

using namespace ir;

CollInfo describe_collective(const Collective& c, const Workload& w, const Estimator& est, const Fabric& f) {
  CollInfo ci;
  ci.name = c.name;
  ci.kind = c.kind;
  ci.group = c.group;
  ci.bytes = c.bytes;
  ci.calls = std::max(1, c.calls);
  const Group& g = w.group_of(c);
  if (g.size <= 1 || c.bytes <= 0) return ci;
  const int calls = ci.calls;
  const double per_call = c.bytes / calls;
  const CollectiveChoice ch = est.collectives().best(c.kind, per_call, g, f, c.traffic);
  ci.time_s = calls * ch.time_s;
  ci.latency_s = calls * ch.algorithm->time_s(c.kind, 0.0, g, f, c.traffic);
  // Time each link class would need alone; shares are relative to the slowest one. The leaf
  // uplink is used only by groups spanning leaf switches (Fabric::crosses_leaves).
  const double n = g.size, k = g.per_domain;
  double nv_t = 0, nic_t = 0, up_t = 0;
  // Scale-up bandwidth the group uses (a mesh: the links to its own members; one link for a send).
  const double up = f.up_busbw(c.kind == CollKind::SendRecv ? 2 : g.per_domain), out = f.out_busbw_bytes_per_s;
  switch (c.kind) {
    case CollKind::AllToAll: {
      // The destination split of the bytes: uniform, or a deduplicating MoE dispatcher's.
      if (c.traffic.uniform()) {
        if (k > 1) nv_t = c.bytes * (k - 1) / n / up;
        if (g.domains > 1) nic_t = c.bytes * (n - k) / n / out;
        up_t = c.bytes * f.all_to_all_uplink_weight(g) / out;
      } else {
        const double scale = g.domains > 1 ? c.traffic.inter / ((n - k) / n) : 1.0;
        if (k > 1) nv_t = c.bytes * c.traffic.intra / up;
        if (g.domains > 1) nic_t = c.bytes * c.traffic.inter / out;
        up_t = c.bytes * f.all_to_all_uplink_weight(g) * scale / out;
      }
      break;
    }
    case CollKind::SendRecv:
      if (g.domains <= 1 || (!c.traffic.uniform() && c.traffic.inter <= 0)) nv_t = c.bytes / up;
      else nic_t = c.bytes / out;
      up_t = nic_t * f.send_uplink_ratio(g, c.traffic);
      break;
    default: {
      const double v = c.bytes * bus_factor(c.kind, g.size);
      if (k > 1) nv_t = v / up;
      if (g.domains > 1) nic_t = v / f.domain_out_busbw(g.per_domain);
      up_t = nic_t * f.ring_uplink_ratio(g);
    }
  }
  const double mx = std::max({nv_t, nic_t, up_t});
  if (mx > 0) {
    ci.nvlink_fraction = nv_t / mx;
    ci.nic_fraction = nic_t / mx;
    ci.uplink_fraction = up_t / mx;
  }
  // A point-to-point mesh (MI300X, Gaudi): the group drives only the links to its own members,
  // (members - 1) / (domain - 1) of the GPU's scale-up links, which the engine models as one
  // resource: its demand is that share, so a TP pair and a DP ring on other peers run side by
  // side as on the hardware (they had contended as if on one switch port: +13% against estimate
  // for 8B tp2 dp4 on mi300x-8gpu, 2026-12-04 review).
  // A torus likewise: a group confined to k of its axes drives k/dims of the chip's links.
  const int members = c.kind == CollKind::SendRecv ? 2 : g.per_domain;
  ci.nvlink_fraction *= f.up_share(members);
  return ci;
}

namespace {
// The weight elements a GEMM step reads (forward: n x k per batch entry) or produces the gradient
// of (a weight gradient: its m x n); 0 for any other step. Gradient buckets are released, and gathered
// parameters awaited, by these.
double weight_elements(const ComputeOp& op) {
  if (op.cls != OpClass::Gemm) return 0.0;
  const double batch = static_cast<double>(std::max<int64_t>(1, op.batch));
  if (op.grad == ir::ComputeOp::Grad::Weight) return static_cast<double>(op.m) * static_cast<double>(op.n) * batch;
  if (op.grad == ir::ComputeOp::Grad::Input) return 0.0;
  return static_cast<double>(op.n) * static_cast<double>(op.k) * batch;
}

struct Builder {
  const Workload& w;
  const Estimator& est;
  const Fabric& f;
  const PipelineSchedule& sched;
  bool p2p_async;
  StageProgram prog;
  std::map<const void*, int> op_index, coll_index;
  int p = 1, v = 1;
  int64_t m = 1;
  // A layer's DP/EDP gradient reduce-scatters issued in the current schedule item: waited for when
  // the item's backward ends (FSDP's post-backward callback and DeepSpeed's reduce epilogue wait
  // for them there), not only at the step's end.
  std::vector<std::pair<uint8_t, int32_t>> item_reductions;

  int op_ref(const ComputeOp& op, bool optimizer = false) {
    auto it = op_index.find(&op);
    if (it != op_index.end()) return it->second;
    OpInfo oi;
    oi.name = op.name;
    oi.cls = op.cls;
    oi.flops = op.flops;
    oi.bytes = op.bytes;
    oi.time_s = compute_time_s(op, w.scenario().accelerator);
    oi.optimizer = optimizer;
    prog.ops.push_back(oi);
    const int idx = static_cast<int>(prog.ops.size()) - 1;
    op_index[&op] = idx;
    return idx;
  }
  // The block and pass of each collective of the stage's blocks, as estimate's op_table names
  // them (its rows: block, pass, name, group), filled by build().
  std::map<const Collective*, std::pair<std::string, const char*>> block_pass_of;
  // The comm_rows entry of a collective: the simulated time of each is reported under the per-op
  // table's row of the same block, pass, name and group (the table had shown the idle-network
  // times beside a communication table of the simulated ones; review of 2026-12-05).
  int32_t row_of(const std::string& block, const std::string& pass, const CollInfo& ci) {
    for (size_t i = 0; i < prog.comm_rows.size(); ++i) {
      const CommRow& r = prog.comm_rows[i];
      if (r.group == ci.group && r.name == ci.name && r.pass == pass && r.block == block) return static_cast<int32_t>(i);
    }
    prog.comm_rows.push_back(CommRow{block, pass, ci.name, ci.group, ci.kind, ci.bytes / std::max(1, ci.calls)});
    return static_cast<int32_t>(prog.comm_rows.size()) - 1;
  }
  int coll_ref(const Collective& c) {
    auto it = coll_index.find(&c);
    if (it != coll_index.end()) return it->second;
    CollInfo ci = describe_collective(c, w, est, f);
    const auto at = block_pass_of.find(&c);
    ci.row = at != block_pass_of.end() ? row_of(at->second.first, at->second.second, ci) : row_of("step", "step", ci);
    prog.colls.push_back(ci);
    const int idx = static_cast<int>(prog.colls.size()) - 1;
    coll_index[&c] = idx;
    return idx;
  }
  // A collective made here (a bucket of the step's gradients or parameters: block "step"; a
  // pipeline send: "pipeline").
  int own_coll(CollInfo ci, const char* block) {
    ci.row = row_of(block, block, ci);
    prog.colls.push_back(ci);
    return static_cast<int>(prog.colls.size()) - 1;
  }
  // While an item that neither opens nor closes a run of its chunk is emitted, the root unit's
  // collectives (Collective::per_run) are not issued: the unit stays gathered (ir::run_edges).
  bool skip_per_run = false;
  bool active(const Collective& c) const { return w.group_of(c).size > 1 && c.bytes > 0 && !(c.per_run && skip_per_run); }
  // An overlapped TP reduction in the middle of a pass whose input comes from the step before
  // (the GEMM): it runs as a pipelined GEMM + reduce-scatter. At the end of a pass it keeps the
  // step-level AsyncStep handling (nothing in the pass waits for it).
  bool pipelined_with_producer(const Collective& c, size_t i, size_t n) const {
    return c.overlappable && !c.hides_behind_next && active(c) && c.group == GroupKind::TP && c.waits_for < 0 && i + 1 < n &&
           (c.kind == CollKind::ReduceScatter || c.kind == CollKind::AllReduce);
  }
  void emit(Ins op, uint8_t group = 0, CollMode mode = CollMode::Blocking, int32_t token = 0, int32_t ref = 0,
            double value = 0, uint8_t flag = 0) {
    Instr in;
    in.op = op;
    in.group = group;
    in.mode = mode;
    in.token = token;
    in.ref = ref;
    in.value = value;
    in.flag = flag;
    prog.code.push_back(in);
  }
  void coll(const Collective& c, CollMode mode, int32_t token = 0, uint8_t flag = 0) {
    emit(Ins::Coll, static_cast<uint8_t>(c.group), mode, token, coll_ref(c), 0, flag);
    if (mode == CollMode::AsyncStep) last_step_group = static_cast<uint8_t>(c.group);
  }
  // The group of the last step-level collective issued: the step's final wait names it, but the
  // engine books the wait to the groups whose collectives are still running through each part of
  // it (Engine::book_wait_split; the whole wait went to this group before 2026-12-07, review), and
  // to this group only when none is outstanding.
  uint8_t last_step_group = static_cast<uint8_t>(GroupKind::DP);

  // The ZeRO-3 parameter gathers leading a pass (dense then experts): prefetched.
  static size_t leading_gathers(const std::vector<Step>& steps) {
    size_t lead = 0;
    while (lead < steps.size()) {
      const auto* c = std::get_if<Collective>(&steps[lead]);
      if (!c || !c->overlappable || c->hides_behind_next || c->kind != CollKind::AllGather ||
          (c->group != GroupKind::DP && c->group != GroupKind::EDP))
        break;
      ++lead;
    }
    return lead;
  }
  // A pass kind's prefetched gathers. Each repetition of a block issues the next one's as it
  // starts, and a block's last repetition the next block's first (its `next` steps of the same
  // pass kind in this item): FSDP prefetches the next unit in execution order whatever its kind.
  // Before 2026-12-05 the first repetition of each block gathered only when it began, so the
  // head's gather (2.4 layers of Llama 3 8B at tp 2) and, in the backward, the last layer's (queued
  // behind the head's reduce-scatter) waited whole: ZeRO-3 5-8% slower than estimate.
  struct Prefetch {
    std::vector<int> tokens;                  // this block's, repetition-major
    std::vector<int> ahead;                   // the next block's first repetition's, issued by this block
    const std::vector<Step>* next = nullptr;  // the next block's steps of this pass kind (none: the item's last)
  };

  // One repetition of a pass; `pf` holds the tokens of this block's leading gathers.
  // after_op (optional): called after each compute step is emitted, with that step (the gradient
  // buckets of a weight pass are released op by op).
  void pass(const std::vector<Step>& steps, int rep, int count, Prefetch& pf,
            const std::function<void(const ComputeOp&)>& after_op = {}, const std::function<void(const ComputeOp&)>& before_op = {}) {
    bool pass_async = false;
    uint8_t pass_group = 0;
    size_t lead = leading_gathers(steps);  // leading overlapped DP/EDP gathers: prefetched
    if (lead == 0 && !steps.empty() && std::holds_alternative<Collective>(steps[0])) {
      const auto& c0 = std::get<Collective>(steps[0]);
      // Any other overlapped first step, as before; not a gradient reduce-scatter, which is
      // released, not prefetched (the head's ZeRO-2 reduce-scatter, alone in its weight pass under
      // tp_backward overlap, was issued and waited for at once: 5.5 ms of idle compute, 2026-12-04).
      const bool released = c0.kind == CollKind::ReduceScatter && (c0.group == GroupKind::DP || c0.group == GroupKind::EDP);
      if (c0.overlappable && !c0.hides_behind_next && !released) lead = 1;
    }
    std::vector<int> carried;  // this block's first gathers, issued by the block before
    if (rep == 0) carried.swap(pf.ahead);
    // Sized before the loop: the first leading gather may be inactive (a dense DP group of one
    // beside an expert-data-parallel group: the EDP gather indexed an empty vector and simulate
    // crashed, review of 2026-12-05).
    if (rep == 0 && lead > 0) pf.tokens.assign(static_cast<size_t>(count) * lead, -1);
    // The next block's gathers go out as this block's last repetition starts computing (after its
    // own gathers are waited for and any blocking collective before its compute, so that the
    // stream runs them in order).
    bool ahead_due = pf.next && rep + 1 == count;
    auto issue_ahead = [&] {
      if (!ahead_due) return;
      ahead_due = false;
      const size_t n = leading_gathers(*pf.next);
      pf.ahead.assign(n, -1);
      for (size_t j = 0; j < n; ++j) {
        const auto& c = std::get<Collective>((*pf.next)[j]);
        if (!active(c)) continue;
        pf.ahead[j] = prog.tokens++;
        coll(c, CollMode::AsyncToken, pf.ahead[j]);
      }
    };
    std::vector<std::pair<uint8_t, int32_t>> beside_next;  // exchanges the next compute step hides
    for (size_t i = 0; i < steps.size(); ++i) {
      if (const auto* op = std::get_if<ComputeOp>(&steps[i])) {
        issue_ahead();
        // A TP reduce-scatter / all-reduce overlapped with the GEMM producing its input (Megatron
        // --tp-comm-overlap: the GEMM runs in chunks and each finished chunk is reduced while the
        // next computes) starts with that GEMM, not after it; waited for at the end of the pass.
        if (i + 1 < steps.size() && op->cls == OpClass::Gemm)
          if (const auto* nc = std::get_if<Collective>(&steps[i + 1]); nc && pipelined_with_producer(*nc, i + 1, steps.size())) {
            coll(*nc, CollMode::AsyncPass);
            pass_async = true;
            pass_group = static_cast<uint8_t>(nc->group);
          }
        if (before_op) before_op(*op);
        emit(Ins::Compute, 0, CollMode::Blocking, 0, op_ref(*op));
        for (const auto& [g, tok] : beside_next) emit(Ins::WaitToken, g, CollMode::Blocking, tok);
        beside_next.clear();
        if (after_op) after_op(*op);
        continue;
      }
      const auto& c = std::get<Collective>(steps[i]);
      if (!active(c)) continue;
      const auto g = static_cast<uint8_t>(c.group);
      if (i > 0 && std::holds_alternative<ComputeOp>(steps[i - 1]) &&
          std::get<ComputeOp>(steps[i - 1]).cls == OpClass::Gemm && pipelined_with_producer(c, i, steps.size()))
        continue;  // issued with its producing GEMM above
      if (!c.overlappable) {
        coll(c, CollMode::Blocking);
      } else if (c.hides_behind_next) {
        // Runs beside the next compute step only (ring attention): waited for when that step ends.
        const int32_t tok = prog.tokens++;
        coll(c, CollMode::AsyncToken, tok);
        beside_next.push_back({g, tok});
      } else if (i < lead) {
        // Prefetch: gather i for repetition rep was issued one repetition ahead.
        const size_t L = lead;
        auto& tok = pf.tokens;
        if (rep == 0) {
          if (i < carried.size() && carried[i] >= 0) {
            tok[i] = carried[i];
          } else {
            tok[i] = prog.tokens++;
            coll(c, CollMode::AsyncToken, tok[i]);
          }
        }
        emit(Ins::WaitToken, g, CollMode::Blocking, tok[static_cast<size_t>(rep) * L + i]);
        if (rep + 1 < count) {
          tok[static_cast<size_t>(rep + 1) * L + i] = prog.tokens++;
          coll(c, CollMode::AsyncToken, tok[static_cast<size_t>(rep + 1) * L + i]);
        }
      } else if (c.kind == CollKind::ReduceScatter && (c.group == GroupKind::DP || c.group == GroupKind::EDP)) {
        // A layer's gradient reduce-scatter: beside the rest of the backward, waited for at the
        // end of this micro-batch's backward (item_reductions).
        const int32_t tok = prog.tokens++;
        coll(c, CollMode::AsyncToken, tok);
        item_reductions.push_back({g, tok});
      } else if (i + 1 == steps.size()) {
        coll(c, CollMode::AsyncStep);
      } else {
        coll(c, CollMode::AsyncPass);
        pass_async = true;
        pass_group = g;
      }
    }
    issue_ahead();  // a pass without compute (a block's empty recompute): at its place
    for (const auto& [g, tok] : beside_next) emit(Ins::WaitToken, g, CollMode::Blocking, tok);
    if (pass_async) emit(Ins::WaitPass, pass_group);
  }

  void build(int r) {
    const Scenario& s = w.scenario();
    p = s.plan.pp;
    v = s.plan.vpp;
    m = w.microbatches;
    prog.stage = r;
    const Stage& st = w.stages[static_cast<size_t>(r)];
    const StepWork& sw = w.step_per_stage[static_cast<size_t>(r)];
    const int nvs = p * v;
    // Which rank holds each virtual stage (the lowering placed them: chunk.virtual_stage).
    std::vector<int> rank_of(static_cast<size_t>(nvs), -1);
    for (int q = 0; q < p; ++q)
      for (const auto& ch : w.stages[static_cast<size_t>(q)].chunks) rank_of[static_cast<size_t>(ch.virtual_stage)] = q;
    bool v_shaped = false;  // some chunk does not sit at the interleaved place c p + r
    for (int q = 0; q < p; ++q)
      for (int c = 0; c < v; ++c) v_shaped = v_shaped || w.stages[static_cast<size_t>(q)].chunks[static_cast<size_t>(c)].virtual_stage != c * p + q;
    prog.static_memory_bytes = stage_memory(w, r, 0.0).total_bytes();
    {
      static const char* const kPassName[] = {"forward", "recompute", "backward_input", "backward_weight"};  // op_table's
      for (const auto& ch : st.chunks)
        for (const auto& b : ch.blocks) {
          const std::vector<Step>* passes[] = {&b.forward.get(), &b.recompute.get(), &b.backward_input.get(), &b.backward_weight.get()};
          for (int pi = 0; pi < 4; ++pi)
            for (const auto& step : *passes[pi])
              if (const auto* c = std::get_if<Collective>(&step)) block_pass_of.emplace(c, std::make_pair(b.name, kPassName[pi]));
        }
    }

    // Parameters of the stage, per model chunk.
    double total_params = 0;
    std::vector<double> chunk_params(static_cast<size_t>(v), 0.0);
    for (int c = 0; c < v; ++c)
      for (const auto& b : st.chunks[static_cast<size_t>(c)].blocks) chunk_params[static_cast<size_t>(c)] += b.params * b.count;
    for (const double cp : chunk_params) total_params += cp;
    auto chunk_fraction = [&](int c) { return total_params > 0 ? chunk_params[static_cast<size_t>(c)] / total_params : 1.0 / v; };
    const auto order = sched.order(r, p, v, m);
    // The chunks in the order of their first forward on this rank (the order their parameters are
    // first needed); a chunk the order never runs forward comes last.
    std::vector<int> first_forward_chunks;
    {
      std::vector<char> seen(static_cast<size_t>(v), 0);
      for (const auto& it : order)
        if (it.kind == ScheduleItem::Forward && !seen[static_cast<size_t>(it.chunk)]) {
          seen[static_cast<size_t>(it.chunk)] = 1;
          first_forward_chunks.push_back(it.chunk);
        }
      for (int c = 0; c < v; ++c)
        if (!seen[static_cast<size_t>(c)]) first_forward_chunks.push_back(c);
    }

    // Parameter gather (ZeRO-1/2, once per step): with overlap, bucketed and issued at the
    // start of the step (the previous optimizer's gather dispatched ahead of the forward, as
    // Megatron's overlap_param_gather); a block's first forward waits for its bucket.
    // Each buffer in its own buckets: the dense one's over DP, the expert one's over EDP (before
    // 2026-12-03 both were cut into their sum: Mixtral at ep 8 sent 182 dense buckets of 35 MB where
    // Megatron sends 41 of 160 MB, and expert buckets 29% too large).
    // Each model chunk has its own buffers (Megatron-Core: a DDP module per chunk), cut into the
    // chunk's buckets as the gradients are (ir::chunk_buckets), issued chunk by chunk in the
    // order the chunks first run forward. Before 2026-12-05 one set of buckets was cut over the
    // stage: at dp 4,096 with vpp 5 a single bucket held all five chunks' parameters, and the
    // first forward waited for all of it (0.117 s) where estimate, per chunk, waited for a fifth
    // (6.9% apart at 131,072 GPUs).
    // [chunk][param_gather collective]: the buckets' tokens in order, and how many were waited for
    std::vector<std::vector<std::vector<int>>> gather_tokens(static_cast<size_t>(v));
    std::vector<std::vector<int>> gather_waited(static_cast<size_t>(v));
    std::vector<uint8_t> gather_group;  // per param_gather collective: its group (DP or EDP)
    const bool overlap_gather = s.plan.overlap_param_gather;
    if (overlap_gather) {
      std::vector<const Collective*> gathers;
      for (const auto& c : sw.param_gather) {
        if (!active(c)) continue;
        gathers.push_back(&c);
        gather_group.push_back(static_cast<uint8_t>(c.group));
      }
      for (const int ch : first_forward_chunks) {
        auto& tokens = gather_tokens[static_cast<size_t>(ch)];
        tokens.resize(gathers.size());
        gather_waited[static_cast<size_t>(ch)].assign(gathers.size(), 0);
        // Issued in the order the forward needs them: bucket k of a chunk's n covers the
        // parameters up to (k + 1) / n of the chunk's.
        std::vector<std::tuple<double, size_t, int>> seq;
        std::vector<int> count(gathers.size());
        for (size_t j = 0; j < gathers.size(); ++j) {
          count[j] = ir::chunk_buckets(st, sw, *gathers[j], static_cast<size_t>(ch));
          for (int k = 0; k < count[j]; ++k) seq.emplace_back((k + 1.0) / count[j], j, k);
        }
        std::stable_sort(seq.begin(), seq.end(), [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
        for (const auto& [frac, j, k] : seq) {
          Collective part = *gathers[j];
          part.bytes = gathers[j]->bytes * chunk_fraction(ch) / count[j];
          const CollInfo ci = describe_collective(part, w, est, f);
          const int tok = prog.tokens++;
          emit(Ins::Coll, static_cast<uint8_t>(part.group), CollMode::AsyncToken, tok, own_coll(ci, "step"), 0, 1);
          tokens[j].push_back(tok);
        }
      }
    }
    std::vector<double> chunk_fwd_params_done(static_cast<size_t>(v), 0.0);
    std::vector<char> chunk_seen(static_cast<size_t>(v), 0);

    // Gradient buckets: the last backward of each chunk issues buckets as its gradients finish.
    // Each model chunk has its own buckets, as Megatron-Core keeps a gradient buffer per model
    // chunk: max(1, round(n x the chunk's share of the parameters)) of the buffer's n, as the
    // estimate counts them (one set cut over the whole stage by cumulative fraction left a chunk
    // that finishes early with no bucket when n <= vpp, its reduction exposed after the last
    // backward: 2.5-6% apart, 2026-12-04 review).
    struct ChunkBuckets {
      int ref = -1, count = 0, issued = 0;
      uint8_t group = 0;
    };
    std::vector<std::vector<ChunkBuckets>> chunk_buckets(static_cast<size_t>(v));  // [chunk][collective]
    const bool overlap_grad = s.plan.overlap_grad_reduce;
    if (overlap_grad)
      for (const auto& c : sw.grad_sync) {
        if (!active(c) || !bucketed(c)) continue;
        for (int k = 0; k < v; ++k) {
          const double frac = v == 1 ? 1.0 : chunk_fraction(k);
          ChunkBuckets cb;
          cb.count = ir::chunk_buckets(st, sw, c, static_cast<size_t>(k));  // the count estimate prices (chunk_calls_of)
          Collective part = c;
          part.bytes = c.bytes * frac / cb.count;
          cb.ref = own_coll(describe_collective(part, w, est, f), "step");
          cb.group = static_cast<uint8_t>(c.group);
          chunk_buckets[static_cast<size_t>(k)].push_back(cb);
        }
      }
    int grad_chunk = 0;  // the chunk whose backward is being emitted
    std::vector<double> chunk_grads_done(static_cast<size_t>(v), 0.0);
    auto issue_buckets = [&](int k, double frac) {
      for (auto& cb : chunk_buckets[static_cast<size_t>(k)]) {
        const int want = frac >= 1.0 ? cb.count : std::min(cb.count, static_cast<int>(std::floor(frac * cb.count + 1e-9)));
        for (; cb.issued < want; ++cb.issued) {
          emit(Ins::Coll, cb.group, CollMode::AsyncStep, 0, cb.ref, 0, 1);
          last_step_group = cb.group;
        }
      }
    };
    auto grads_ready = [&](double params) {
      if (!(params > 0)) return;
      if (!overlap_grad || chunk_buckets[static_cast<size_t>(grad_chunk)].empty()) return;
      double& done = chunk_grads_done[static_cast<size_t>(grad_chunk)];
      done += params;
      const double cp = chunk_params[static_cast<size_t>(grad_chunk)];
      issue_buckets(grad_chunk, cp > 0 ? done / cp : 1.0);
    };

    // A block's backward with its gradients released op by op: each weight-gradient GEMM frees
    // its weight elements as it ends, as Megatron-Core marks a parameter's gradient ready in its
    // backward hook, whether it runs in the input-gradient pass (beside the TP reduction it hides,
    // the column-parallel GEMMs under overlap.tp_backward) or in the weight pass; the rest (norms,
    // other weights) at the end of the weight pass. Before 2026-12-02 the whole block's buckets
    // were released at its end: a 218M-parameter layer over 6 buckets left all 6 exposed after the
    // last backward where estimate, which assumes a smooth release, left one (2.5% apart).
    Prefetch prefetch[4];  // per pass kind: forward, recompute, backward_input, backward_weight
    double released = 0;  // of the block repetition whose backward is being emitted
    auto release_op = [&](double params_of_block) {
      return [&, params_of_block](const ComputeOp& op) {
        const double share = std::min(weight_elements(op), params_of_block - released);
        released += share;
        grads_ready(share);
      };
    };
    auto input_pass = [&](const Block& b, int rep, bool release) {
      released = 0;
      if (!release) {
        pass(b.backward_input, rep, b.count, prefetch[2]);
        return;
      }
      pass(b.backward_input, rep, b.count, prefetch[2], release_op(b.params));
    };
    auto weight_pass = [&](const Block& b, int rep, bool release, bool after_input) {
      if (!after_input) released = 0;  // a deferred weight pass (ZB-H1, DualPipeV): its own count
      if (!release) {
        pass(b.backward_weight, rep, b.count, prefetch[3]);
        return;
      }
      pass(b.backward_weight, rep, b.count, prefetch[3], release_op(b.params));
      grads_ready(b.params - released);
    };

    // One layer's rematerialised set while a backward of the chunk runs (full or selective
    // recompute), beyond what the chunk's backward freed before it: per chunk, as the loss head's
    // frees its logits first (ir::chunk_recompute_peak_bytes; 2026-12-06 review).
    std::vector<double> chunk_act(static_cast<size_t>(v), 0.0), chunk_rc(static_cast<size_t>(v), 0.0);
    for (int c = 0; c < v; ++c) {
      for (const auto& b : st.chunks[static_cast<size_t>(c)].blocks) chunk_act[static_cast<size_t>(c)] += b.activation_bytes * b.count;
      chunk_rc[static_cast<size_t>(c)] = ir::chunk_recompute_peak_bytes(st.chunks[static_cast<size_t>(c)], w.scenario().train.recompute == Recompute::Full && w.scenario().train.recompute_block);
    }
    const bool split = sched.splits_weight_gradient();
    // A split backward keeps its weight pass's inputs from the Backward to the Weight
    // (ir::weight_pass_held_bytes; estimate counts the same through ir::peak_held_bytes).
    std::vector<double> chunk_w(static_cast<size_t>(v), 0.0);
    if (split)
      for (int c = 0; c < v; ++c) chunk_w[static_cast<size_t>(c)] = ir::weight_pass_held_bytes(st.chunks[static_cast<size_t>(c)]);
    // Where ZeRO-3's root unit is gathered and reduced: the items that open and close a run of
    // overlapping in-flight micro-batches of its chunk (Collective::per_run; 2026-12-07 review).
    const ir::RunEdges edges = ir::run_edges(order, v, split, p > 1);
    // The last pass producing weight gradients of each chunk.
    std::vector<int64_t> last_grad_mb(static_cast<size_t>(v), -1);
    for (const auto& it : order)
      if ((split && it.kind == ScheduleItem::Weight) || (!split && it.kind == ScheduleItem::Backward))
        last_grad_mb[static_cast<size_t>(it.chunk)] = std::max(last_grad_mb[static_cast<size_t>(it.chunk)], it.microbatch);

    // One transfer per destination rank (ir::pp_send: inside the scale-up domain or across it).
    std::vector<int> p2p_ref_to(static_cast<size_t>(p), -1);
    auto p2p_ref = [&](int to) {
      int& ref = p2p_ref_to[static_cast<size_t>(to)];
      if (ref < 0) ref = own_coll(describe_collective(pp_send(w, "pp.send_recv", st.boundary_activation_bytes, r, to), w, est, f), "pipeline");
      return ref;
    };

    // One item in four parts (its marker, receive, compute, send), so that an overlapped pair
    // (ScheduleItem::with_next: DualPipe's forward beside a backward) receives both inputs before
    // computing and sends both outputs after.
    struct Where {
      int c, vs, r_prev, r_next;
      uint8_t dir_next, dir_prev;
      int32_t slot;
    };
    auto where = [&](const ScheduleItem& it) {
      Where x;
      x.c = it.chunk;
      x.vs = st.chunks[static_cast<size_t>(x.c)].virtual_stage;
      // The neighbouring virtual stages and the ranks holding them: no transfer where a V-shaped
      // schedule turns on one rank; a Send names its direction (1: the next rank, 2: the previous)
      // where the chunk stays the same, 0 for the interleaved wrap (engine.cpp).
      x.r_prev = x.vs > 0 ? rank_of[static_cast<size_t>(x.vs - 1)] : -1;
      x.r_next = x.vs < nvs - 1 ? rank_of[static_cast<size_t>(x.vs + 1)] : -1;
      x.dir_next = v_shaped ? static_cast<uint8_t>(x.r_next == r + 1 ? 1 : 2) : 0;
      x.dir_prev = v_shaped ? static_cast<uint8_t>(x.r_prev == r + 1 ? 1 : 2) : 0;
      x.slot = static_cast<int32_t>(it.microbatch * v + x.c);
      return x;
    };
    auto marker = [&](const ScheduleItem& it) {
      emit(Ins::Item, static_cast<uint8_t>(it.chunk), CollMode::Blocking, static_cast<int32_t>(it.microbatch), 0, 0,
           static_cast<uint8_t>(it.kind));
    };
    auto receive = [&](const ScheduleItem& it) {
      const Where x = where(it);
      if (it.kind == ScheduleItem::Forward && x.vs > 0 && x.r_prev != r) emit(Ins::Recv, 0, CollMode::Blocking, x.slot);
      if (it.kind == ScheduleItem::Backward && x.vs < nvs - 1 && x.r_next != r) emit(Ins::Recv, 1, CollMode::Blocking, x.slot);
    };
    auto send = [&](const ScheduleItem& it) {
      const Where x = where(it);
      const CollMode mode = p2p_async ? CollMode::AsyncPass : CollMode::Blocking;
      if (it.kind == ScheduleItem::Forward && x.vs < nvs - 1 && x.r_next != r) emit(Ins::Send, 0, mode, 0, p2p_ref(x.r_next), 0, x.dir_next);
      if (it.kind == ScheduleItem::Backward && x.vs > 0 && x.r_prev != r) emit(Ins::Send, 1, mode, 0, p2p_ref(x.r_prev), 0, x.dir_prev);
    };
    auto compute = [&](const ScheduleItem& it) {
      const int c = it.chunk;
      grad_chunk = c;
      {
        const auto k = static_cast<size_t>(&it - order.data());  // it is an element of order
        skip_per_run = !(it.kind == ScheduleItem::Forward ? edges.opens[k] : edges.closes[k]);
      }
      const auto& ch = st.chunks[static_cast<size_t>(c)];
      // Gathers are prefetched block to block within the item, not across items.
      for (auto& pf : prefetch) pf.ahead.clear();
      // The block after b in the order this item runs the chunk's blocks (forward: down the list).
      auto next_of = [&](size_t k, bool forward, const StepList Block::*steps) -> const std::vector<Step>* {
        if (forward) return k + 1 < ch.blocks.size() ? &(ch.blocks[k + 1].*steps).get() : nullptr;
        return k > 0 ? &(ch.blocks[k - 1].*steps).get() : nullptr;
      };
      if (it.kind == ScheduleItem::Forward) {
        emit(Ins::Mem, 0, CollMode::Blocking, 0, 0, chunk_act[static_cast<size_t>(c)]);
        const bool first = !chunk_seen[static_cast<size_t>(c)];
        chunk_seen[static_cast<size_t>(c)] = 1;
        for (size_t k = 0; k < ch.blocks.size(); ++k)
          for (int rep = 0; rep < ch.blocks[k].count; ++rep) {
            const Block& b = ch.blocks[k];
            prefetch[0].next = next_of(k, true, &Block::forward);
            if (first && !gather_group.empty()) {
              // The block's first forward waits, GEMM by GEMM, for the buckets holding the weights
              // it reads (its other parameters, norms first, before it starts): before 2026-12-02
              // it waited for all of its buckets at once (6 for a 218M-parameter layer).
              double gemm_weights = 0;
              for (const auto& st : b.forward)
                if (const auto* op = std::get_if<ComputeOp>(&st)) gemm_weights += weight_elements(*op);
              auto wait_for = [&](double params) {
                double& done = chunk_fwd_params_done[static_cast<size_t>(c)];
                done += params;
                const double cp = chunk_params[static_cast<size_t>(c)];
                const double frac = cp > 0 ? done / cp : 1.0;
                const auto& tokens = gather_tokens[static_cast<size_t>(c)];
                auto& waited_count = gather_waited[static_cast<size_t>(c)];
                for (size_t j = 0; j < tokens.size(); ++j) {
                  const int n = static_cast<int>(tokens[j].size());
                  const int need = std::min(n, static_cast<int>(std::ceil(frac * n - 1e-9)));
                  for (; waited_count[j] < need; ++waited_count[j])
                    emit(Ins::WaitToken, gather_group[j], CollMode::Blocking, tokens[j][static_cast<size_t>(waited_count[j])], 0, 0, 1);
                }
              };
              const double rest = std::max(0.0, b.params - gemm_weights);
              wait_for(rest);
              double waited = rest;
              pass(b.forward, rep, b.count, prefetch[0], {}, [&](const ComputeOp& op) {
                const double share = std::min(weight_elements(op), b.params - waited);
                waited += share;
                if (share > 0) wait_for(share);
              });
              if (b.params > waited) wait_for(b.params - waited);
              continue;
            }
            pass(b.forward, rep, b.count, prefetch[0]);
          }
      } else if (it.kind == ScheduleItem::Backward) {
        const double recompute_peak = chunk_rc[static_cast<size_t>(c)];
        if (recompute_peak > 0) emit(Ins::Mem, 0, CollMode::Blocking, 0, 0, recompute_peak);
        const bool last = !split && it.microbatch == last_grad_mb[static_cast<size_t>(c)];
        for (size_t k = ch.blocks.size(); k-- > 0;)
          for (int rep = 0; rep < ch.blocks[k].count; ++rep) {
            const Block* b = &ch.blocks[k];
            prefetch[1].next = next_of(k, false, &Block::recompute);
            prefetch[2].next = next_of(k, false, &Block::backward_input);
            prefetch[3].next = next_of(k, false, &Block::backward_weight);
            pass(b->recompute, rep, b->count, prefetch[1]);
            input_pass(*b, rep, last);
            if (!split) weight_pass(*b, rep, last, true);
          }
        if (recompute_peak > 0) emit(Ins::Mem, 0, CollMode::Blocking, 0, 0, -recompute_peak);
        emit(Ins::Mem, 0, CollMode::Blocking, 0, 0, chunk_w[static_cast<size_t>(c)] - chunk_act[static_cast<size_t>(c)]);
      } else {
        const bool last = it.microbatch == last_grad_mb[static_cast<size_t>(c)];
        for (size_t k = ch.blocks.size(); k-- > 0;)
          for (int rep = 0; rep < ch.blocks[k].count; ++rep) {
            prefetch[3].next = next_of(k, false, &Block::backward_weight);
            weight_pass(ch.blocks[k], rep, last, false);
          }
        if (chunk_w[static_cast<size_t>(c)] > 0) emit(Ins::Mem, 0, CollMode::Blocking, 0, 0, -chunk_w[static_cast<size_t>(c)]);
      }
      for (const auto& [g, tok] : item_reductions) emit(Ins::WaitToken, g, CollMode::Blocking, tok);
      item_reductions.clear();
      skip_per_run = false;
    };
    // A full backward (ScheduleItem::full_backward: DualPipe's run_backward outside its zero-bubble
    // steps) runs the weight pass listed after it before its input gradient is sent, in a pair
    // before both sends (before 2026-12-07 every DualPipeV backward sent first; review).
    for (size_t k = 0; k < order.size(); ++k) {
      const ScheduleItem& it = order[k];
      if (it.with_next && k + 1 < order.size()) {
        const ScheduleItem& other = order[++k];
        marker(it), receive(it), marker(other), receive(other);
        marker(it), compute(it), marker(other), compute(other);
        if (ir::weight_joins_backward(order, k)) {
          const ScheduleItem& weight = order[++k];
          marker(weight), compute(weight), marker(other);
        }
        send(other), marker(it), send(it);
        continue;
      }
      marker(it), receive(it), compute(it);
      if (ir::weight_joins_backward(order, k)) {
        const ScheduleItem& weight = order[++k];
        marker(weight), compute(weight), marker(it);
      }
      send(it);
    }
    // Whatever remains of the buckets (rounding), then the step-level tail, marked as no item
    // (micro-batch -1: the timeline's pass "step"; it had carried the last item's micro-batch and
    // pass, so optimizer.step read as micro-batch 7's backward, before 2026-12-03).
    emit(Ins::Item, 0, CollMode::Blocking, -1, 0, 0, 3);
    if (overlap_grad)
      for (int k = 0; k < v; ++k) issue_buckets(k, 1.0);
    emit(Ins::WaitStep, last_step_group, CollMode::Blocking, 0, 0, 0, 1);
    for (const auto& c : sw.grad_sync) {
      if (!active(c)) continue;
      if (overlap_grad && bucketed(c)) continue;
      coll(c, CollMode::Blocking, 0, 1);
    }
    for (const auto& op : sw.optimizer) emit(Ins::Compute, 0, CollMode::Blocking, 0, op_ref(op, true));
    if (!overlap_gather)
      for (const auto& c : sw.param_gather)
        if (active(c)) coll(c, CollMode::Blocking, 0, 1);
    emit(Ins::StepEnd);
  }
};

}  // namespace

std::vector<StageProgram> build_programs(const Workload& w, const Estimator& est, const Fabric& f,
                                         const PipelineSchedule& sched, bool p2p_async) {
  std::vector<StageProgram> out;
  for (int r = 0; r < w.scenario().plan.pp; ++r) {
    Builder b{w, est, f, sched, p2p_async, {}, {}, {}};
    b.build(r);
    out.push_back(std::move(b.prog));
  }
  return out;
}

}  // namespace sextant::sim
