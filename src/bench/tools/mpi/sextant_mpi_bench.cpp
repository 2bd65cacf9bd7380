// sextant-mpi-bench: MPI communication benchmark launched by `sextant bench` through mpirun.
// Prints ping-pong latency/bandwidth and all_reduce / all_gather / reduce_scatter / alltoall
// bus bandwidth against message size in the nccl-tests layout (so the same parser reads this
// and real nccl-tests logs), plus one "#sextant-samples" line per size with the time of every
// repetition, from which sextant computes medians and spreads.
//
// Conventions follow nccl-tests (doc/PERFORMANCE.md): `size` is the total buffer in bytes
// (all_gather: the gathered output; reduce_scatter: the input), algbw = size / time, and
// busbw = algbw x factor with factor 2(n-1)/n for all_reduce and (n-1)/n for all_gather,
// reduce_scatter and alltoall. The time of an iteration is the slowest rank's.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Args {
  long min_bytes = 1024, max_bytes = 16 << 20;
  int factor = 4, iters = 20, warmup = 5, reps = 5;
  std::vector<std::string> ops = {"pingpong", "all_reduce", "all_gather", "reduce_scatter", "alltoall"};
};

double bus_factor(const std::string& op, int n) {
  if (op == "all_reduce") return 2.0 * (n - 1) / n;
  return static_cast<double>(n - 1) / n;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Runs one collective `count` floats (count divisible by ranks); in_place selects MPI_IN_PLACE.
void collective(const std::string& op, std::vector<float>& send, std::vector<float>& recv, long count, int n, bool in_place) {
  const int c = static_cast<int>(count);
  if (op == "all_reduce") {
    if (in_place) MPI_Allreduce(MPI_IN_PLACE, recv.data(), c, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else MPI_Allreduce(send.data(), recv.data(), c, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  } else if (op == "all_gather") {
    if (in_place) MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv.data(), c / n, MPI_FLOAT, MPI_COMM_WORLD);
    else MPI_Allgather(send.data(), c / n, MPI_FLOAT, recv.data(), c / n, MPI_FLOAT, MPI_COMM_WORLD);
  } else if (op == "reduce_scatter") {
    if (in_place) MPI_Reduce_scatter_block(MPI_IN_PLACE, recv.data(), c / n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else MPI_Reduce_scatter_block(send.data(), recv.data(), c / n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  } else {  // alltoall
    if (in_place) MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv.data(), c / n, MPI_FLOAT, MPI_COMM_WORLD);
    else MPI_Alltoall(send.data(), c / n, MPI_FLOAT, recv.data(), c / n, MPI_FLOAT, MPI_COMM_WORLD);
  }
}

// Fills the buffers so every result element has a known value: rank r sends (r+1) + i%7.
void fill(const std::string& op, std::vector<float>& send, std::vector<float>& recv, long count, int rank, int n, bool in_place) {
  for (long i = 0; i < count; ++i) send[i] = static_cast<float>(rank + 1 + i % 7);
  if (!in_place) {
    std::fill(recv.begin(), recv.end(), -1.0f);
    return;
  }
  if (op == "all_gather") {  // own block of the output holds the contribution
    std::fill(recv.begin(), recv.end(), -1.0f);
    const long blk = count / n;
    for (long i = 0; i < blk; ++i) recv[rank * blk + i] = send[i];
  } else {
    std::copy(send.begin(), send.begin() + count, recv.begin());
  }
}

long check(const std::string& op, const std::vector<float>& recv, long count, int rank, int n) {
  long wrong = 0;
  const long blk = count / n;
  const double ranks_sum = n * (n + 1) / 2.0;
  auto expect = [&](long i) -> double {
    if (op == "all_reduce") return ranks_sum + n * (i % 7);
    if (op == "reduce_scatter") return ranks_sum + n * ((rank * blk + i) % 7);
    if (op == "all_gather") return (i / blk) + 1 + (i % blk) % 7;
    return (i / blk) + 1 + (rank * blk + i % blk) % 7;  // alltoall: block j came from rank j
  };
  const long out = (op == "reduce_scatter") ? blk : count;
  for (long i = 0; i < out; ++i)
    if (std::fabs(recv[i] - expect(i)) > 1e-3 * std::fabs(expect(i))) ++wrong;
  return wrong;
}

void header(const std::string& op, const Args& a, int rank, int n) {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  std::vector<char> hosts(static_cast<size_t>(256 * n));
  MPI_Gather(host, 256, MPI_CHAR, hosts.data(), 256, MPI_CHAR, 0, MPI_COMM_WORLD);
  int pid = getpid();
  std::vector<int> pids(static_cast<size_t>(n));
  MPI_Gather(&pid, 1, MPI_INT, pids.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  std::printf("# Collective test starting: %s_perf\n", op.c_str());
  std::printf("# nThread 1 nGpus 1 minBytes %ld maxBytes %ld step: %d(factor) warmup iters: %d iters: %d agg iters: 1 validation: 1 graph: 0 reps: %d\n",
              a.min_bytes, a.max_bytes, a.factor, a.warmup, a.iters, a.reps);
  std::printf("#\n# Using devices\n");
  for (int r = 0; r < n; ++r)
    std::printf("#  Rank %2d Group  0 Pid %6d on %10s device  0 [cpu] MPI process\n", r, pids[r], &hosts[static_cast<size_t>(256 * r)]);
  std::printf("#\n");
  std::printf("#                                                              out-of-place                       in-place          \n");
  std::printf("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n");
  std::printf("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n");
}

// Times `reps` repetitions of `iters` calls; returns the slowest rank's seconds per call.
template <class F>
std::vector<double> timed(const Args& a, F f) {
  for (int w = 0; w < a.warmup; ++w) f();
  std::vector<double> out;
  for (int r = 0; r < a.reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < a.iters; ++i) f();
    double t = (MPI_Wtime() - t0) / a.iters, tmax = 0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    out.push_back(tmax);
  }
  return out;
}

void print_samples(const char* op, long size, const char* variant, const std::vector<double>& s) {
  std::printf("#sextant-samples %s %ld %s", op, size, variant);
  for (double v : s) std::printf(" %.9g", v);
  std::printf("\n");
}

void run_collective(const std::string& op, const Args& a, int rank, int n) {
  header(op, a, rank, n);
  double busbw_sum = 0;
  int rows = 0;
  long wrong_total = 0;
  for (long size = a.min_bytes; size <= a.max_bytes; size *= a.factor) {
    long count = size / 4;
    count -= count % n;
    if (count == 0) continue;
    const long bytes = count * 4;
    std::vector<float> send(static_cast<size_t>(count)), recv(static_cast<size_t>(count));
    double med[2];
    long wrong[2];
    std::vector<double> samples[2];
    for (int ip = 0; ip < 2; ++ip) {
      fill(op, send, recv, count, rank, n, ip == 1);
      collective(op, send, recv, count, n, ip == 1);
      long w = check(op, recv, count, rank, n), wsum = 0;
      MPI_Allreduce(&w, &wsum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
      wrong[ip] = wsum;
      samples[ip] = timed(a, [&] { collective(op, send, recv, count, n, ip == 1); });
      med[ip] = median(samples[ip]);
    }
    if (rank == 0) {
      const double f = bus_factor(op, n);
      const double alg0 = bytes / med[0] / 1e9, alg1 = bytes / med[1] / 1e9;
      std::printf("%12ld  %12ld  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %6ld  %7.2f  %6.2f  %6.2f  %6ld\n", bytes, count, "float",
                  op == "all_gather" || op == "alltoall" ? "none" : "sum", -1, med[0] * 1e6, alg0, alg0 * f, wrong[0],
                  med[1] * 1e6, alg1, alg1 * f, wrong[1]);
      print_samples(op.c_str(), bytes, "out-of-place", samples[0]);
      print_samples(op.c_str(), bytes, "in-place", samples[1]);
      busbw_sum += alg0 * f;
      ++rows;
      wrong_total += wrong[0] + wrong[1];
    }
  }
  if (rank == 0) {
    std::printf("# Out of bounds values : %ld %s\n", wrong_total, wrong_total ? "FAILED" : "OK");
    std::printf("# Avg bus bandwidth    : %g \n#\n", rows ? busbw_sum / rows : 0.0);
    std::fflush(stdout);
  }
}

void run_pingpong(const Args& a, int rank, int n) {
  if (rank == 0) {
    std::printf("# Collective test starting: pingpong (ranks 0 and 1; time is one-way, half the round trip)\n");
    std::printf("#       size      time   algbw\n");
    std::printf("#        (B)      (us)  (GB/s)\n");
  }
  for (long size = std::min(8L, a.min_bytes); size <= a.max_bytes; size *= (size < a.min_bytes ? a.factor * 4 : a.factor)) {
    std::vector<char> buf(static_cast<size_t>(size));
    auto once = [&] {
      if (rank == 0) {
        MPI_Send(buf.data(), static_cast<int>(size), MPI_CHAR, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf.data(), static_cast<int>(size), MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(buf.data(), static_cast<int>(size), MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf.data(), static_cast<int>(size), MPI_CHAR, 0, 0, MPI_COMM_WORLD);
      }
    };
    std::vector<double> s = timed(a, once);
    for (double& v : s) v /= 2;  // one way
    if (rank == 0) {
      const double m = median(s);
      std::printf("%12ld  %8.2f  %6.2f\n", size, m * 1e6, size / m / 1e9);
      print_samples("pingpong", size, "one-way", s);
    }
    (void)n;
  }
  if (rank == 0) std::printf("#\n");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        if (rank == 0) std::fprintf(stderr, "sextant-mpi-bench: %s needs a value\n", k.c_str());
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      return argv[++i];
    };
    if (k == "--min-bytes") a.min_bytes = std::atol(next());
    else if (k == "--max-bytes") a.max_bytes = std::atol(next());
    else if (k == "--factor") a.factor = std::max(2, std::atoi(next()));
    else if (k == "--iters") a.iters = std::max(1, std::atoi(next()));
    else if (k == "--warmup") a.warmup = std::max(0, std::atoi(next()));
    else if (k == "--reps") a.reps = std::max(1, std::atoi(next()));
    else if (k == "--ops") {
      a.ops.clear();
      std::string s = next();
      size_t p = 0;
      while (p <= s.size()) {
        size_t q = s.find(',', p);
        if (q == std::string::npos) q = s.size();
        if (q > p) a.ops.push_back(s.substr(p, q - p));
        p = q + 1;
      }
    } else {
      if (rank == 0)
        std::fprintf(stderr, "sextant-mpi-bench: unknown option %s (valid: --min-bytes --max-bytes --factor --iters --warmup --reps --ops)\n", k.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (rank == 0) std::printf("# sextant-mpi-bench ranks %d\n", n);
  for (const auto& op : a.ops) {
    if (op == "pingpong") {
      if (n >= 2) run_pingpong(a, rank, n);
      else if (rank == 0) std::printf("# pingpong skipped: needs 2 ranks\n");
    } else if (op == "all_reduce" || op == "all_gather" || op == "reduce_scatter" || op == "alltoall") {
      run_collective(op, a, rank, n);
    } else {
      if (rank == 0) std::fprintf(stderr, "sextant-mpi-bench: unknown op %s\n", op.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  MPI_Finalize();
  return 0;
}
