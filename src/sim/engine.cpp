#include "sim/engine.hpp"

#include <algorithm>
#include <deque>
#include <iterator>
#include <queue>

#include "core/error.hpp"

namespace sextant::sim {

namespace {

const char* const kGroupNames[kGroupKinds] = {"tp", "cp", "ep", "etp", "dp", "edp", "pp"};

enum EvKind : int32_t { kResume, kCollEnd, kFlowEnd, kXferEnd, kComputeEnd };

struct Event {
  double t;
  uint64_t seq;
  int32_t kind;
  int32_t a;
  uint32_t b;
};
struct Later {
  bool operator()(const Event& x, const Event& y) const { return x.t > y.t || (x.t == y.t && x.seq > y.seq); }
};

enum class Blocked : uint8_t { None, Coll, Pass, Step, Token, Recv, Send, Done };

struct Issue {  // a collective waiting for its unit's group stream
  int32_t ref;
  CollMode mode;
  int32_t token;
  uint8_t flag;
  double t;
  // The unit's schedule item when it issued the collective (timeline labels): a queued
  // collective reaches the stream's head, and ends, after the unit has moved on.
  int64_t microbatch = -1;
  int chunk = -1;
  uint8_t pass = 0;
};

struct GroupState {
  int inst = -1;
  int64_t seq = 0;
  bool busy = false;     // a collective of the unit's is at the stream's head (arrived, maybe not started)
  bool running = false;  // that collective has started (all members arrived): counted in comm_by_group_s
  std::deque<Issue> queue;
};

struct Unit {
  const StageProgram* prog = nullptr;
  const UnitSpec* spec = nullptr;
  size_t pc = 0;
  Blocked blocked = Blocked::None;
  int32_t block_arg = 0;
  uint8_t block_group = 0;
  uint8_t block_flag = 0;
  double block_start = 0;
  int pass_inflight = 0, step_inflight = 0, inflight = 0;
  // The same by group: a wait for a pass's or the step's collectives (WaitPass, WaitStep) is booked
  // to the groups still holding it (book_wait_split), not to one group for its whole length.
  int pass_inflight_g[kGroupKinds] = {};
  int step_inflight_g[kGroupKinds] = {};
  double split_s = 0;                       // the current WaitPass / WaitStep: booked up to here
  double wait_by_group_s[kGroupKinds] = {};  // and so far booked to each group
  std::vector<uint8_t> token_done;
  std::vector<double> arrival;  // 2 * m * v slots, < 0 = not arrived
  GroupState grp[kGroupKinds];
  double act = 0;
  int64_t cur_mb = -1;
  int cur_chunk = -1;
  uint8_t cur_pass = 0;
  // Links are full duplex (NVLink, InfiniBand and Ethernet ports send and receive at full rate at
  // once): one resource per direction. A collective uses both at once (a ring sends and receives
  // every step); a pipeline transfer its sender's out and its receiver's in. Before 2026-12-02 one
  // resource carried both, so a send out of a GPU slowed to half while two transfers arrived.
  int link_nv = -1, link_nic = -1, link_up = -1;           // out
  int link_nv_in = -1, link_nic_in = -1, link_up_in = -1;  // in
  // Pipeline sends in one direction (forward to the next stage, backward to the previous) run one
  // after another, as NCCL runs the point-to-point operations it is given on one stream: a send
  // issued while the direction's previous one is on the wire waits in send_queue (before
  // 2026-12-05 interleaved 1F1B had up to four sends to one neighbour sharing the link at once,
  // and the first micro-batch's activation arrived after all of them). Both directions overlap.
  bool send_busy[2] = {false, false};
  std::deque<int> send_queue[2];  // xfer ids, issued but not started
  // The timeline arrow of the transfer into each receive slot (-1: none): its end moves to the
  // moment the receiver takes the data (its Recv), where the consuming pass starts.
  std::vector<int32_t> arrow_of;
  // The compute op in progress: work left (seconds at this unit's interference-free speed),
  // progressing at `rate` (1, or 1 / (1 + interference) while its communication is in flight).
  bool computing = false;
  double comp_left_s = 0, comp_rate = 1, comp_last_s = 0, comp_start_s = 0;
  uint32_t comp_version = 0;
};

struct Member {
  int unit;
  int32_t ref;  // the collective in this member's own program (ActiveColl::ref is the first member's)
  CollMode mode;
  int32_t token;
  uint8_t flag;
  double arrive;
  int64_t microbatch;  // the unit's item when it issued the collective (timeline)
  int chunk;
  uint8_t pass;
};
struct ActiveColl {
  int inst = -1;
  int32_t ref = 0;  // in the first member's program
  int first_unit = -1;
  std::vector<Member> members;
  double start = 0;
  bool used = false;
  // The critical path of the last member to arrive, at the start (record_path; only when the
  // members arrived at different times): a member that waited for it continues from that path.
  bool late_path = false;
  PathAcc path;
};
struct GroupInst {
  std::deque<int> pending;  // active colls waiting for members, by sequence
  int64_t base = 0;
  // The critical path at the end of the group's last collective that had one (record_path): a
  // collective starting at that instant, its members queued behind it, continues from it.
  PathAcc end_path;
  double end_s = -1;
};
struct Xfer {
  int src = 0, dst = 0;
  int32_t slot = 0;
  bool blocking = true;
  double start = 0, latency = 0;
  bool used = false;
  PathAcc path;  // the sender's critical path at the send, or the transfer's it queued behind (record_path)
  // What the send carries (timeline): the sender's item when it sent, and the bytes. An
  // asynchronous send ends after the sender has moved on to another item.
  int64_t microbatch = -1;
  int chunk = -1;
  uint8_t pass = 0;
  double bytes = 0;
  const CollInfo* ci = nullptr;  // the transfer's costs (the stage program's, alive for the run)
};
struct FlowOwner {
  int kind = 0;  // 0 coll, 1 xfer
  int id = 0;
  double latency = 0;
};

class Engine {
 public:
  Engine(const std::vector<StageProgram>& programs, const std::vector<UnitSpec>& specs,
         const std::vector<std::vector<int>>& members, const EngineConfig& cfg)
      : programs_(programs), specs_(specs), members_(members), cfg_(cfg) {}

  EngineOutput run() {
    const size_t n = specs_.size();
    units_.resize(n);
    out_.units.resize(n);
    if (cfg_.record_path) init_path_keys();
    groups_.resize(members_.size());
    const size_t slots = static_cast<size_t>(2 * cfg_.microbatches * cfg_.vpp);
    for (size_t i = 0; i < n; ++i) {
      Unit& u = units_[i];
      u.spec = &specs_[i];
      u.prog = &programs_[static_cast<size_t>(specs_[i].stage)];
      out_.units[i].comm_rows.assign(u.prog->comm_rows.size(), UnitOut::Comm{});
      u.token_done.assign(static_cast<size_t>(u.prog->tokens), 0);
      u.arrival.assign(slots, -1.0);
      u.arrow_of.assign(slots, -1);
      for (int g = 0; g < kGroupKinds; ++g) u.grp[g].inst = specs_[i].group_instance[g];
      if (cfg_.contention) {
        u.link_nv = net_.add_link();
        u.link_nic = net_.add_link();
        u.link_nv_in = net_.add_link();
        u.link_nic_in = net_.add_link();
        if (cfg_.leaf_uplinks) {
          const int g = specs_[i].uplink_group;
          if (g < 0) {
            u.link_up = net_.add_link();
            u.link_up_in = net_.add_link();
          } else {
            if (uplink_links_.size() <= static_cast<size_t>(g)) uplink_links_.resize(static_cast<size_t>(g) + 1, -1);
            if (uplink_in_links_.size() <= static_cast<size_t>(g)) uplink_in_links_.resize(static_cast<size_t>(g) + 1, -1);
            if (uplink_links_[static_cast<size_t>(g)] < 0) {
              uplink_links_[static_cast<size_t>(g)] = net_.add_link();
              uplink_in_links_[static_cast<size_t>(g)] = net_.add_link();
            }
            u.link_up = uplink_links_[static_cast<size_t>(g)];
            u.link_up_in = uplink_in_links_[static_cast<size_t>(g)];
          }
        }
      }
      if (cfg_.record_path) {
        PathAcc& pa = out_.paths[i];
        pa.time_s.assign(out_.path_keys.size(), 0.0);
        pa.count.assign(out_.path_keys.size(), 0);
        pa.last_s.assign(out_.path_keys.size(), 0.0);
      }
      push(0.0, kResume, static_cast<int32_t>(i), 0);
    }
    while (!heap_.empty()) {
      const Event ev = heap_.top();
      heap_.pop();
      ++out_.events;
      now_ = ev.t;
      switch (ev.kind) {
        case kResume: advance(ev.a); break;
        case kCollEnd: coll_end(ev.a); break;
        case kFlowEnd: flow_end(ev.a, ev.b); break;
        case kXferEnd: xfer_end(ev.a); break;
        case kComputeEnd: compute_end(ev.a, ev.b); break;
        default: break;
      }
    }
    check_deadlock();
    return std::move(out_);
  }

 private:
  void push(double t, int32_t kind, int32_t a, uint32_t b) { heap_.push(Event{t, seq_++, kind, a, b}); }

  void check_deadlock() const {
    std::string msg;
    int stuck = 0;
    for (size_t i = 0; i < units_.size(); ++i) {
      const Unit& u = units_[i];
      if (u.blocked == Blocked::Done) continue;
      if (++stuck > 8) continue;
      static const char* what[] = {"running", "a collective", "overlapped communication of its pass",
                                   "step-level communication", "a prefetched gather", "a pipeline receive",
                                   "a pipeline send", "done"};
      msg += "; " + u.spec->label + " waits for " + what[static_cast<int>(u.blocked)];
      if (u.cur_mb >= 0)
        msg += " in micro-batch " + std::to_string(u.cur_mb) + " chunk " + std::to_string(u.cur_chunk);
    }
    if (stuck > 0)
      throw Error("simulate: the step deadlocks (" + std::to_string(stuck) + " of " + std::to_string(units_.size()) +
                  " simulated units never finish)" + msg);
  }

  void span(int unit, int tid, double t0, double t1, const char* name, const char* cat, double flops, double bytes) {
    const Unit& u = units_[static_cast<size_t>(unit)];
    Span s;
    s.unit = unit;
    s.tid = tid;
    s.t0 = t0;
    s.t1 = t1;
    s.name = name;
    s.cat = cat;
    s.flops = flops;
    s.bytes = bytes;
    s.microbatch = u.cur_mb;
    s.chunk = u.cur_chunk;
    s.pass = u.cur_pass;
    out_.spans.push_back(s);
  }
  // Critical-path keys: (category, item) pairs, interned once per program op, group and wait kind.
  int key(const std::string& cat, const std::string& item) {
    for (size_t i = 0; i < out_.path_keys.size(); ++i)
      if (out_.path_keys[i].category == cat && out_.path_keys[i].item == item) return static_cast<int>(i);
    out_.path_keys.push_back(PathKey{cat, item});
    return static_cast<int>(out_.path_keys.size()) - 1;
  }
  void init_path_keys() {
    out_.paths.resize(specs_.size());
    op_keys_.resize(programs_.size());
    for (size_t p = 0; p < programs_.size(); ++p)
      for (const auto& op : programs_[p].ops) op_keys_[p].push_back(key(op.optimizer ? "optimizer" : "compute", op.name));
    for (int g = 0; g < kGroupKinds; ++g) group_keys_[g] = key("comm", kGroupNames[g]);
    key_step_start_ = key("wait", "step start");
    key_idle_ = key("wait", "idle");
    key_pipeline_ = key("wait", "pipeline");
    key_transfer_ = key("pipeline_transfer", "pp.send_recv");
  }
  static void path_add(PathAcc& pa, int k, double t, double end) {
    pa.time_s[static_cast<size_t>(k)] += t;
    pa.count[static_cast<size_t>(k)] += 1;
    pa.last_s[static_cast<size_t>(k)] = end;
  }
  // Brings the path up to time t: the gap since its last activity is idle (or the step's start).
  void path_close(PathAcc& pa, double t) const {
    if (t <= pa.end_s + 1e-12) return;
    if (!pa.started) {
      path_add(pa, key_step_start_, t, t);
      pa.started = true;
    } else {
      path_add(pa, key_idle_, t - pa.end_s, t);
    }
    pa.end_s = t;
  }
  // Compute-stream activity [t0, t1) of a unit: 0 compute, 1 optimizer (ref = op), 2 comm wait
  // (group), 3 pipeline receive wait (jump_: the sender's path at the send), 4 pipeline send.
  // split_s (type 2, optional): the wait's seconds by group (book_wait_split), booked as such.
  void segment(int unit, double t0, double t1, uint8_t type, uint8_t group, int32_t ref, const double* split_s = nullptr) {
    if (!cfg_.record_path || t1 <= t0) return;
    PathAcc& pa = out_.paths[static_cast<size_t>(unit)];
    if (type == 3 && jump_ != nullptr && jump_sent_ < t1) {
      pa = *jump_;
      path_add(pa, key_transfer_, t1 - jump_sent_, t1);
      pa.end_s = t1;
      return;
    }
    // A wait that began before the collective that ends it started: the member waited for the
    // last to arrive, so the critical path is that member's, then the collective.
    if (type == 2 && coll_jump_ != nullptr && t0 < coll_jump_start_ && coll_jump_start_ < t1) {
      pa = *coll_jump_;
      path_add(pa, group_keys_[coll_jump_group_], t1 - coll_jump_start_, t1);
      pa.end_s = t1;
      return;
    }
    path_close(pa, t0);
    pa.started = true;
    if (type == 2 && split_s != nullptr) {
      for (int g = 0; g < kGroupKinds; ++g)
        if (split_s[g] > 0) path_add(pa, group_keys_[g], split_s[g], t1);
      pa.end_s = t1;
      return;
    }
    int k = key_pipeline_;
    if (type <= 1) k = op_keys_[static_cast<size_t>(units_[static_cast<size_t>(unit)].spec->stage)][static_cast<size_t>(ref)];
    else if (type == 2) k = group_keys_[group];
    else if (type == 4) k = group_keys_[static_cast<int>(ir::GroupKind::PP)];
    path_add(pa, k, t1 - t0, t1);
    pa.end_s = t1;
  }

  void block(Unit& u, Blocked b, int32_t arg, uint8_t group, uint8_t flag) {
    u.blocked = b;
    u.block_arg = arg;
    u.block_group = group;
    u.block_flag = flag;
    u.block_start = now_;
    u.split_s = now_;
    std::fill(std::begin(u.wait_by_group_s), std::end(u.wait_by_group_s), 0.0);
  }
  // A wait for several streams (WaitPass, WaitStep) is booked piece by piece, each piece (between
  // two starts or ends of the unit's collectives) shared equally by the groups whose awaited
  // collectives are running through it; when none is running (the awaited ones wait for other
  // members to arrive), by the groups still holding one. Called before a collective of the unit
  // starts or ends. Before 2026-12-07 (review) the whole wait went to the group of the step's last
  // bucket issued: an MoE plan's expert (EDP) bucket, done 0.2 ms into the wait, was charged the
  // dense buckets' 1.0 ms after it (exposed edp 0.001025 s of a 0.000629 s total).
  void book_wait_split(Unit& u) {
    if ((u.blocked != Blocked::Step && u.blocked != Blocked::Pass) || !(now_ > u.split_s)) return;
    const int* held = u.blocked == Blocked::Step ? u.step_inflight_g : u.pass_inflight_g;
    int groups[kGroupKinds];
    int n = 0;
    for (int g = 0; g < kGroupKinds; ++g)
      if (held[g] > 0 && u.grp[g].running) groups[n++] = g;
    if (n == 0)
      for (int g = 0; g < kGroupKinds; ++g)
        if (held[g] > 0) groups[n++] = g;
    if (n == 0) groups[n++] = u.block_group;
    const double share_s = (now_ - u.split_s) / n;
    for (int i = 0; i < n; ++i) u.wait_by_group_s[groups[i]] += share_s;
    u.split_s = now_;
  }
  // Wakes a blocked unit now, accounting for the time it waited.
  void wake(int unit) {
    Unit& u = units_[static_cast<size_t>(unit)];
    UnitOut& o = out_.units[static_cast<size_t>(unit)];
    const double waited = now_ - u.block_start;
    switch (u.blocked) {
      case Blocked::Recv:
        o.pipeline_wait_s += waited;
        segment(unit, u.block_start, now_, 3, 0, u.block_arg);
        break;
      case Blocked::Send:
        o.exposed_by_group_s[static_cast<int>(ir::GroupKind::PP)] += waited;
        segment(unit, u.block_start, now_, 4, static_cast<uint8_t>(ir::GroupKind::PP), 0);
        break;
      case Blocked::Step:
      case Blocked::Pass:
        book_wait_split(u);
        for (int g = 0; g < kGroupKinds; ++g) o.exposed_by_group_s[g] += u.wait_by_group_s[g];
        if (u.block_flag) o.step_sync_exposed_s += waited;
        segment(unit, u.block_start, now_, 2, u.block_group, 0, u.wait_by_group_s);
        break;
      default:
        o.exposed_by_group_s[u.block_group] += waited;
        if (u.block_flag) o.step_sync_exposed_s += waited;
        segment(unit, u.block_start, now_, 2, u.block_group, 0);
    }
    u.blocked = Blocked::None;
    push(now_, kResume, unit, 0);
  }

  void advance(int unit) {
    Unit& u = units_[static_cast<size_t>(unit)];
    if (u.blocked != Blocked::None || u.computing) return;
    const auto& code = u.prog->code;
    UnitOut& o = out_.units[static_cast<size_t>(unit)];
    while (true) {
      const Instr& in = code[u.pc];
      switch (in.op) {
        case Ins::Compute: {
          // One op at a time; its rate changes when the unit's communication starts or ends.
          const OpInfo& op = u.prog->ops[static_cast<size_t>(in.ref)];
          u.computing = true;
          u.comp_left_s = op.time_s * u.spec->factor;
          u.comp_start_s = now_;
          u.comp_last_s = now_;
          u.comp_rate = compute_rate(u);
          ++u.comp_version;
          push(now_ + u.comp_left_s / u.comp_rate, kComputeEnd, unit, u.comp_version);
          return;
        }
        case Ins::Coll: {
          ++u.pc;
          issue(unit, in.group, Issue{in.ref, in.mode, in.token, in.flag, now_, u.cur_mb, u.cur_chunk, u.cur_pass});
          if (in.mode == CollMode::Blocking) {
            block(u, Blocked::Coll, 0, in.group, in.flag);
            return;
          }
          ++u.inflight;
          if (in.mode == CollMode::AsyncPass) ++u.pass_inflight, ++u.pass_inflight_g[in.group];
          if (in.mode == CollMode::AsyncStep) ++u.step_inflight, ++u.step_inflight_g[in.group];
          break;
        }
        case Ins::WaitPass:
          if (u.pass_inflight > 0) {
            block(u, Blocked::Pass, 0, in.group, in.flag);
            ++u.pc;
            return;
          }
          ++u.pc;
          break;
        case Ins::WaitStep:
          if (u.step_inflight > 0) {
            block(u, Blocked::Step, 0, in.group, in.flag);
            ++u.pc;
            return;
          }
          ++u.pc;
          break;
        case Ins::WaitToken:
          if (!u.token_done[static_cast<size_t>(in.token)]) {
            block(u, Blocked::Token, in.token, in.group, in.flag);
            ++u.pc;
            return;
          }
          ++u.pc;
          break;
        case Ins::Recv: {
          const int32_t slot = in.token + static_cast<int32_t>(in.group * cfg_.microbatches * cfg_.vpp);
          ++u.pc;
          if (u.arrival[static_cast<size_t>(slot)] < 0) {
            block(u, Blocked::Recv, slot, 0, 0);
            return;
          }
          if (const int32_t a = u.arrow_of[static_cast<size_t>(slot)]; a >= 0) out_.arrows[static_cast<size_t>(a)].t_dst = now_;
          break;
        }
        case Ins::Send: {
          ++u.pc;
          const bool fwd = in.group == 0;
          // flag 0: the interleaved layout (forward to the next rank, wrapping to rank 0's next
          // chunk); 1 / 2: to the next / previous rank, same chunk (a V-shaped schedule).
          const int dst = in.flag == 0 ? (fwd ? u.spec->next : u.spec->prev) : in.flag == 1 ? u.spec->next : u.spec->prev;
          if (dst < 0) throw Error("simulate: " + u.spec->label + " has no pipeline neighbour to send to");
          // Slot on the destination: the same micro-batch, the neighbouring virtual stage.
          const int p_last = static_cast<int>(programs_.size()) - 1;
          int chunk = u.cur_chunk;
          if (in.flag == 0 && fwd && u.spec->stage == p_last) ++chunk;
          if (in.flag == 0 && !fwd && u.spec->stage == 0) --chunk;
          const auto slot = static_cast<int32_t>((fwd ? 0 : 1) * cfg_.microbatches * cfg_.vpp + u.cur_mb * cfg_.vpp + chunk);
          const bool blocking = in.mode == CollMode::Blocking;
          start_xfer(unit, dst, slot, u.prog->colls[static_cast<size_t>(in.ref)], blocking);
          if (blocking) {
            block(u, Blocked::Send, 0, static_cast<uint8_t>(ir::GroupKind::PP), 0);
            return;
          }
          ++u.inflight;
          break;
        }
        case Ins::Mem:
          u.act += in.value;
          if (u.act > o.activation_peak_bytes) {
            o.activation_peak_bytes = u.act;
            o.peak_time_s = now_;
          }
          ++u.pc;
          break;
        case Ins::Item:
          u.cur_mb = in.token;
          u.cur_chunk = in.group;
          u.cur_pass = in.flag;
          ++u.pc;
          break;
        case Ins::StepEnd:
          o.end_s = now_;
          u.blocked = Blocked::Done;
          return;
      }
    }
  }

  double compute_rate(const Unit& u) const { return u.inflight > 0 ? 1.0 / (1.0 + cfg_.interference) : 1.0; }
  // The unit's in-flight communication changed: re-time the compute op in progress.
  void inflight_changed(int unit) {
    Unit& u = units_[static_cast<size_t>(unit)];
    if (!u.computing) return;
    const double rate = compute_rate(u);
    if (rate == u.comp_rate) return;
    u.comp_left_s = std::max(0.0, u.comp_left_s - u.comp_rate * (now_ - u.comp_last_s));
    u.comp_last_s = now_;
    u.comp_rate = rate;
    ++u.comp_version;
    push(now_ + u.comp_left_s / rate, kComputeEnd, unit, u.comp_version);
  }
  void compute_end(int unit, uint32_t version) {
    Unit& u = units_[static_cast<size_t>(unit)];
    if (!u.computing || version != u.comp_version) return;  // re-timed since
    u.computing = false;
    UnitOut& o = out_.units[static_cast<size_t>(unit)];
    const int32_t ref = u.prog->code[u.pc].ref;
    const OpInfo& op = u.prog->ops[static_cast<size_t>(ref)];
    const double t0 = u.comp_start_s, d = now_ - t0;
    if (op.optimizer) o.optimizer_s += d;
    else {
      o.compute_s += d;
      o.by_class_s[static_cast<int>(op.cls)] += d;
    }
    if (u.spec->record) span(unit, 0, t0, now_, op.name, op.optimizer ? "optimizer" : "compute", op.flops, op.bytes);
    segment(unit, t0, now_, op.optimizer ? 1 : 0, 0, ref);
    ++u.pc;
    advance(unit);
  }

  void issue(int unit, int g, const Issue& is) {
    GroupState& gs = units_[static_cast<size_t>(unit)].grp[g];
    if (gs.busy) {
      gs.queue.push_back(is);
      return;
    }
    arrive(unit, g, is);
  }

  void arrive(int unit, int g, const Issue& is) {
    Unit& u = units_[static_cast<size_t>(unit)];
    GroupState& gs = u.grp[g];
    if (gs.inst < 0) throw Error("simulate: " + u.spec->label + " has no " + ir::to_string(static_cast<ir::GroupKind>(g)) + " group");
    gs.busy = true;
    const int64_t seq = gs.seq++;
    GroupInst& gi = groups_[static_cast<size_t>(gs.inst)];
    const auto idx = static_cast<size_t>(seq - gi.base);
    while (gi.pending.size() <= idx) {
      const int id = new_coll();
      colls_[static_cast<size_t>(id)].inst = gs.inst;
      gi.pending.push_back(id);
    }
    const int id = gi.pending[idx];
    ActiveColl& ac = colls_[static_cast<size_t>(id)];
    if (ac.first_unit < 0) {
      ac.first_unit = unit;
      ac.ref = is.ref;
    }
    ac.members.push_back(Member{unit, is.ref, is.mode, is.token, is.flag, is.t > now_ ? is.t : now_, is.microbatch, is.chunk, is.pass});
    const auto& want = members_[static_cast<size_t>(gs.inst)];
    if (ac.members.size() < want.size()) return;
    // Every member arrived: collectives of one group start in sequence order.
    if (idx != 0) throw Error("simulate: collectives of a group completed out of order (internal)");
    gi.pending.pop_front();
    ++gi.base;
    start_coll(id);
  }

  int new_coll() {
    if (!free_colls_.empty()) {
      const int id = free_colls_.back();
      free_colls_.pop_back();
      return id;
    }
    colls_.emplace_back();
    return static_cast<int>(colls_.size()) - 1;
  }

  void start_coll(int id) {
    ActiveColl& ac = colls_[static_cast<size_t>(id)];
    ac.start = now_;
    // A rendezvous: the members that came early waited for the last, whose path is the critical
    // one (a straggler's slow compute read as "comm dp" on the path before 2026-12-04).
    ac.late_path = false;
    if (cfg_.record_path && ac.members.size() > 1) {
      size_t last = 0;
      double first_arrive = ac.members[0].arrive;
      for (size_t i = 1; i < ac.members.size(); ++i) {
        if (ac.members[i].arrive > ac.members[last].arrive) last = i;
        first_arrive = std::min(first_arrive, ac.members[i].arrive);
      }
      if (ac.members[last].arrive > first_arrive + 1e-12) {
        ac.path = out_.paths[static_cast<size_t>(ac.members[last].unit)];
        path_close(ac.path, now_);
        ac.late_path = true;
      } else if (const GroupInst& gi = groups_[static_cast<size_t>(ac.inst)]; gi.end_s == now_) {
        // Queued behind the group's previous collective, which ended now: its path continues.
        ac.path = gi.end_path;
        ac.late_path = true;
      }
    }
    const CollInfo& ci = units_[static_cast<size_t>(ac.first_unit)].prog->colls[static_cast<size_t>(ac.ref)];
    for (const auto& mb : ac.members) {
      Unit& mu = units_[static_cast<size_t>(mb.unit)];
      book_wait_split(mu);
      mu.grp[static_cast<int>(ci.group)].running = true;
    }
    const double work = ci.time_s - ci.latency_s;
    if (!cfg_.contention || work <= 0) {
      push(now_ + ci.time_s, kCollEnd, id, 0);
      return;
    }
    demands_.clear();
    for (const auto& mb : ac.members) add_demands(mb.unit, ci);
    merge_uplink_demands();
    start_flow(work, FlowOwner{0, id, ci.latency_s});
  }

  // A member's link demands: its NVLink and NIC, and its (possibly shared) leaf uplink when the
  // collective leaves the leaf. Uplink demands of members sharing one link are summed below.
  enum Direction { kOut = 1, kIn = 2, kBoth = 3 };
  void add_demands(int unit, const CollInfo& ci, int dir = kBoth) {
    const Unit& u = units_[static_cast<size_t>(unit)];
    auto add = [&](int out_link, int in_link, double fraction) {
      if (dir & kOut) demands_.push_back({out_link, fraction});
      if (dir & kIn) demands_.push_back({in_link, fraction});
    };
    if (ci.nvlink_fraction > 0) add(u.link_nv, u.link_nv_in, ci.nvlink_fraction);
    if (ci.nic_fraction > 0) add(u.link_nic, u.link_nic_in, ci.nic_fraction);
    if (ci.uplink_fraction > 0 && u.link_up >= 0) add(u.link_up, u.link_up_in, ci.uplink_fraction * u.spec->uplink_share);
  }
  // One demand per shared uplink link (members of one leaf and rail), in first-seen order.
  void merge_uplink_demands() {
    if (uplink_links_.empty() || demands_.size() < 2) return;
    if (up_slot_.size() < static_cast<size_t>(net_.links_count())) up_slot_.resize(static_cast<size_t>(net_.links_count()), -1);
    size_t w = 0;
    for (size_t i = 0; i < demands_.size(); ++i) {
      const auto l = static_cast<size_t>(demands_[i].link);
      if (up_slot_[l] >= 0) {
        demands_[static_cast<size_t>(up_slot_[l])].fraction += demands_[i].fraction;
        continue;
      }
      up_slot_[l] = static_cast<int>(w);
      demands_[w++] = demands_[i];
    }
    demands_.resize(w);
    for (const auto& d : demands_) up_slot_[static_cast<size_t>(d.link)] = -1;
  }

  void start_flow(double work, const FlowOwner& owner) {
    const int fid = net_.start(now_, work, demands_);
    if (owners_.size() <= static_cast<size_t>(fid)) owners_.resize(static_cast<size_t>(fid) + 1);
    owners_[static_cast<size_t>(fid)] = owner;
    reschedule();
  }
  void reschedule() {
    for (int f : net_.changed()) push(net_.finish_time(f), kFlowEnd, f, net_.version(f));
  }

  void flow_end(int fid, uint32_t version) {
    if (net_.version(fid) != version) return;  // rescheduled since
    const FlowOwner owner = owners_[static_cast<size_t>(fid)];
    net_.finish(fid, now_);
    reschedule();
    push(now_ + owner.latency, owner.kind == 0 ? kCollEnd : kXferEnd, owner.id, 0);
  }

  void coll_end(int id) {
    ActiveColl& ac = colls_[static_cast<size_t>(id)];
    const CollInfo& ci = units_[static_cast<size_t>(ac.first_unit)].prog->colls[static_cast<size_t>(ac.ref)];
    const int g = static_cast<int>(ci.group);
    coll_jump_ = ac.late_path ? &ac.path : nullptr;
    coll_jump_start_ = ac.start;
    coll_jump_group_ = static_cast<uint8_t>(g);
    if (ac.late_path) {
      GroupInst& gi = groups_[static_cast<size_t>(ac.inst)];
      gi.end_path = ac.path;
      path_add(gi.end_path, group_keys_[g], now_ - ac.start, now_);
      gi.end_path.end_s = now_;
      gi.end_s = now_;
    }
    for (const auto& mb : ac.members) {
      Unit& u = units_[static_cast<size_t>(mb.unit)];
      out_.units[static_cast<size_t>(mb.unit)].comm_by_group_s[g] += now_ - ac.start;
      add_comm_row(mb.unit, u.prog->colls[static_cast<size_t>(mb.ref)], now_ - ac.start);
      if (u.spec->record) {
        span(mb.unit, 1 + g, mb.arrive, now_, ci.name, kGroupNames[g], 0, ci.bytes);
        out_.spans.back().microbatch = mb.microbatch;
        out_.spans.back().chunk = mb.chunk;
        out_.spans.back().pass = mb.pass;
        out_.spans.back().t_all_arrived = ac.start;
      }
      book_wait_split(u);
      GroupState& gs = u.grp[g];
      gs.busy = false;
      gs.running = false;
      switch (mb.mode) {
        case CollMode::Blocking:
          if (u.blocked == Blocked::Coll) wake(mb.unit);
          break;
        case CollMode::AsyncPass:
          --u.inflight;
          inflight_changed(mb.unit);
          --u.pass_inflight_g[g];
          if (--u.pass_inflight == 0 && u.blocked == Blocked::Pass) wake(mb.unit);
          break;
        case CollMode::AsyncStep:
          --u.inflight;
          inflight_changed(mb.unit);
          --u.step_inflight_g[g];
          if (--u.step_inflight == 0 && u.blocked == Blocked::Step) wake(mb.unit);
          break;
        case CollMode::AsyncToken:
          --u.inflight;
          inflight_changed(mb.unit);
          u.token_done[static_cast<size_t>(mb.token)] = 1;
          if (u.blocked == Blocked::Token && u.block_arg == mb.token) wake(mb.unit);
          break;
      }
    }
    coll_jump_ = nullptr;
    // Next queued collective on each member's stream.
    members_tmp_.clear();
    for (const auto& mb : ac.members) members_tmp_.push_back(mb.unit);
    ac.members.clear();
    ac.first_unit = -1;
    ac.inst = -1;
    free_colls_.push_back(id);
    for (int unit : members_tmp_) {
      GroupState& gs = units_[static_cast<size_t>(unit)].grp[g];
      if (!gs.busy && !gs.queue.empty()) {
        const Issue next = gs.queue.front();
        gs.queue.pop_front();
        arrive(unit, g, next);
      }
    }
  }

  // The per-op table's row of a collective or send of unit's: its time (as comm_by_group_s) and calls.
  void add_comm_row(int unit, const CollInfo& ci, double time_s) {
    if (ci.row < 0) return;
    UnitOut::Comm& c = out_.units[static_cast<size_t>(unit)].comm_rows[static_cast<size_t>(ci.row)];
    c.time_s += time_s;
    c.calls += ci.calls;
  }

  void start_xfer(int src, int dst, int32_t slot, const CollInfo& ci, bool blocking) {
    int id;
    if (!free_xfers_.empty()) {
      id = free_xfers_.back();
      free_xfers_.pop_back();
    } else {
      xfers_.emplace_back();
      id = static_cast<int>(xfers_.size()) - 1;
    }
    Xfer& x = xfers_[static_cast<size_t>(id)];
    x.src = src;
    x.dst = dst;
    x.slot = slot;
    x.blocking = blocking;
    x.start = now_;
    x.latency = ci.latency_s;
    x.used = true;
    x.ci = &ci;
    Unit& su = units_[static_cast<size_t>(src)];
    x.microbatch = su.cur_mb;
    x.chunk = su.cur_chunk;
    x.pass = su.cur_pass;
    x.bytes = ci.bytes;
    if (cfg_.record_path) {
      x.path = out_.paths[static_cast<size_t>(src)];
      path_close(x.path, now_);
    }
    // By the link it leaves on (to the next rank or to the previous), not by what it carries: under
    // DualPipeV chunk 1's forward sends go to the previous rank (review of 2026-12-05). With two
    // stages both neighbours are one peer, one stream.
    const int dir = dst == su.spec->next ? 0 : 1;
    if (su.send_busy[dir]) {
      su.send_queue[dir].push_back(id);  // starts when the direction's stream is free (xfer_end)
      return;
    }
    su.send_busy[dir] = true;
    launch_xfer(id);
  }

  // Puts transfer id on the wire now.
  void launch_xfer(int id) {
    Xfer& x = xfers_[static_cast<size_t>(id)];
    const CollInfo& ci = *x.ci;
    const int src = x.src, dst = x.dst;
    // Waited in the queue: xfer_end has already given it the path of the transfer ahead; this only
    // closes a path that no transfer ahead carried up to now.
    if (cfg_.record_path && now_ > x.start) path_close(x.path, now_);
    x.start = now_;
    const double work = ci.time_s - ci.latency_s;
    if (!cfg_.contention || work <= 0) {
      push(now_ + ci.time_s, kXferEnd, id, 0);
      return;
    }
    demands_.clear();
    add_demands(src, ci, kOut);
    add_demands(dst, ci, kIn);
    merge_uplink_demands();
    start_flow(work, FlowOwner{1, id, ci.latency_s});
  }

  void xfer_end(int id) {
    Xfer& x = xfers_[static_cast<size_t>(id)];
    x.used = false;
    Unit& s = units_[static_cast<size_t>(x.src)];
    Unit& d = units_[static_cast<size_t>(x.dst)];
    out_.units[static_cast<size_t>(x.src)].comm_by_group_s[static_cast<int>(ir::GroupKind::PP)] += now_ - x.start;
    add_comm_row(x.src, *x.ci, now_ - x.start);
    if (s.spec->record) {
      span(x.src, 8, x.start, now_, "pp.send_recv", "pp", 0, x.bytes);
      out_.spans.back().microbatch = x.microbatch;
      out_.spans.back().chunk = x.chunk;
      out_.spans.back().pass = x.pass;
    }
    if (s.spec->record && d.spec->record) {
      d.arrow_of[static_cast<size_t>(x.slot)] = static_cast<int32_t>(out_.arrows.size());
      out_.arrows.push_back(Arrow{x.src, x.dst, x.start, now_, x.microbatch, x.pass});
    }
    d.arrival[static_cast<size_t>(x.slot)] = now_;
    // The direction's next send goes on the wire.
    const int dir = x.dst == s.spec->next ? 0 : 1;
    if (!s.send_queue[dir].empty()) {
      const int next = s.send_queue[dir].front();
      s.send_queue[dir].pop_front();
      // A send queued behind this one waited for it: its path is this transfer's (its sender's path
      // at the send, then the transfer), not its own sender's plus idle. Before 2026-12-06 the queue
      // wait was booked as wait/idle (0.028 s of an interleaved pp4 step on a 10 Gb/s NIC, review).
      Xfer& nx = xfers_[static_cast<size_t>(next)];
      if (cfg_.record_path && now_ > nx.start) {
        nx.path = x.path;
        path_add(nx.path, key_transfer_, now_ - x.start, now_);
        nx.path.end_s = now_;
        nx.path.started = true;
      }
      launch_xfer(next);
    } else {
      s.send_busy[dir] = false;
    }
    if (d.blocked == Blocked::Recv && d.block_arg == x.slot) {
      jump_ = cfg_.record_path ? &x.path : nullptr;
      jump_sent_ = x.start;
      wake(x.dst);
      jump_ = nullptr;
    }
    if (x.blocking) {
      if (s.blocked == Blocked::Send) wake(x.src);
    } else {
      --s.inflight;
      inflight_changed(x.src);
    }
    free_xfers_.push_back(id);
  }

  const std::vector<StageProgram>& programs_;
  const std::vector<UnitSpec>& specs_;
  const std::vector<std::vector<int>>& members_;
  EngineConfig cfg_;
  std::vector<Unit> units_;
  std::vector<GroupInst> groups_;
  std::vector<ActiveColl> colls_;
  std::vector<int> free_colls_, free_xfers_, members_tmp_;
  std::vector<Xfer> xfers_;
  std::vector<std::vector<int>> op_keys_;  // per program, per op: critical-path key
  int group_keys_[kGroupKinds] = {};
  int key_step_start_ = 0, key_idle_ = 0, key_pipeline_ = 0, key_transfer_ = 0;
  const PathAcc* jump_ = nullptr;  // the arriving transfer's path while its receiver wakes
  const PathAcc* coll_jump_ = nullptr;  // the ending collective's late member's path while its members wake
  double coll_jump_start_ = 0;
  uint8_t coll_jump_group_ = 0;  // the ending collective's group (the path's last piece)
  double jump_sent_ = 0;
  std::vector<FlowOwner> owners_;
  std::vector<Network::Demand> demands_;
  std::vector<int> uplink_links_, uplink_in_links_;  // uplink_group -> link (out, in)
  std::vector<int> up_slot_;       // per link: its index in demands_ while merging (-1 otherwise)
  Network net_;
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  uint64_t seq_ = 0;
  double now_ = 0;
  EngineOutput out_;
};

}  // namespace

std::vector<double> replica_factors(const std::vector<UnitSpec>& units) {
  const size_t n = units.size();
  std::vector<double> out(n, 0);
  std::vector<char> done(n, 0);
  std::vector<size_t> chain;
  for (size_t i = 0; i < n; ++i) {
    if (done[i]) continue;
    // The replica's first unit (a ring has none: i stands for it). Every walk is bounded by the
    // unit count, so malformed links cannot loop.
    size_t head = i;
    for (size_t steps = 0; steps < n; ++steps) {
      const int p = units[head].prev;
      if (p < 0 || static_cast<size_t>(p) == i) break;
      head = static_cast<size_t>(p);
    }
    chain.clear();
    double f = units[head].factor;
    for (size_t j = head, steps = 0; steps < n; ++steps) {
      chain.push_back(j);
      done[j] = 1;
      f = std::max(f, units[j].factor);
      const int nx = units[j].next;
      if (nx < 0 || static_cast<size_t>(nx) == head) break;
      j = static_cast<size_t>(nx);
    }
    for (size_t j : chain) out[j] = f;
  }
  return out;
}

EngineOutput run_engine(const std::vector<StageProgram>& programs, const std::vector<UnitSpec>& units,
                        const std::vector<std::vector<int>>& group_members, const EngineConfig& cfg) {
  Engine e(programs, units, group_members, cfg);
  return e.run();
}

}  // namespace sextant::sim
