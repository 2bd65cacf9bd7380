// CUDA backend of the GPU suite: cuBLAS GEMMs (cublasGemmEx) and cudaMemcpyAsync copies, timed
// with CUDA events. Compiled only when CMake found a CUDA toolkit (SEXTANT_HAVE_CUDA).
#include "bench/gpu_backend.hpp"

#ifdef SEXTANT_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#ifdef SEXTANT_HAVE_NCCL_H
#include <nccl.h>
#endif

#include <chrono>
#include <cstdlib>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/error.hpp"
#include "core/random.hpp"

namespace sextant::bench {
namespace {

void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(fmt::format("CUDA {}: {}", what, cudaGetErrorString(e)));
}
void ckb(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error(fmt::format("cuBLAS {}: status {}", what, static_cast<int>(s)));
}

struct DevBuf {
  void* p = nullptr;
  size_t bytes = 0;
  DevBuf() = default;
  explicit DevBuf(size_t n) : bytes(n) { ck(cudaMalloc(&p, n), "cudaMalloc"); ck(cudaMemset(p, 0, n), "cudaMemset"); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  DevBuf(DevBuf&& o) noexcept : p(o.p), bytes(o.bytes) { o.p = nullptr; o.bytes = 0; }
  DevBuf& operator=(DevBuf&& o) noexcept {
    std::swap(p, o.p);
    std::swap(bytes, o.bytes);
    return *this;
  }
  ~DevBuf() { if (p) cudaFree(p); }
};

// Host-side conversions of values in (-1, 1) to the GEMM's storage type (round to nearest even;
// magnitudes below fp16's smallest normal become 0, which is fine for operands).
uint16_t to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}
uint16_t to_fp16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const int exp = static_cast<int>((u >> 23) & 0xFFu) - 127 + 15;
  if (exp <= 0) return static_cast<uint16_t>(sign);
  uint32_t mant = u & 0x7FFFFFu;
  uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry into the exponent is correct
  return static_cast<uint16_t>(sign | h);
}

#ifdef SEXTANT_HAVE_NCCL_H
// NCCL opened at run time (libnccl.so.2, or $SEXTANT_NCCL_LIBRARY), so that `sextant` neither
// links nor requires it: one communicator per visible device in this process (ncclCommInitAll).
// Declarations come from the nccl.h of the CUDA toolkit Sextant was built with; the library's C
// ABI is stable across NCCL 2.x. ncclAlltoAll exists from NCCL 2.28 and is optional.
class Nccl {
 public:
  Nccl() {
    const char* env = std::getenv("SEXTANT_NCCL_LIBRARY");
    const std::string path = env && *env ? env : "libnccl.so.2";
    h_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h_) {
      const char* e = dlerror();
      why_ = "NCCL not found: dlopen(" + path + "): " + (e ? e : "failed") + " (set SEXTANT_NCCL_LIBRARY to libnccl.so.2's path)";
      return;
    }
    bool ok = sym(get_version, "ncclGetVersion") && sym(init_all, "ncclCommInitAll") && sym(destroy, "ncclCommDestroy") &&
              sym(error_string, "ncclGetErrorString") && sym(group_start, "ncclGroupStart") && sym(group_end, "ncclGroupEnd") &&
              sym(all_reduce, "ncclAllReduce") && sym(all_gather, "ncclAllGather") && sym(reduce_scatter, "ncclReduceScatter");
    all_to_all = reinterpret_cast<decltype(&ncclAlltoAll)>(dlsym(h_, "ncclAlltoAll"));
    if (!ok) return;
    int v = 0;
    if (get_version(&v) != ncclSuccess) {
      why_ = "ncclGetVersion failed";
      return;
    }
    // NCCL_VERSION_CODE: major*10000 + minor*100 + patch from 2.9 on.
    version_ = fmt::format("NCCL {}.{}.{}", v / 10000, (v / 100) % 100, v % 100);
    loaded_ = true;
  }
  ~Nccl() {
    if (h_) dlclose(h_);
  }
  Nccl(const Nccl&) = delete;
  Nccl& operator=(const Nccl&) = delete;
  bool loaded() const { return loaded_; }
  const std::string& why() const { return why_; }
  const std::string& version() const { return version_; }
  void check(ncclResult_t r, const char* what) const {
    if (r != ncclSuccess) throw Error(fmt::format("NCCL {}: {}", what, error_string ? error_string(r) : "error"));
  }

  decltype(&ncclGetVersion) get_version = nullptr;
  decltype(&ncclCommInitAll) init_all = nullptr;
  decltype(&ncclCommDestroy) destroy = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
  decltype(&ncclAllReduce) all_reduce = nullptr;
  decltype(&ncclAllGather) all_gather = nullptr;
  decltype(&ncclReduceScatter) reduce_scatter = nullptr;
  decltype(&ncclAlltoAll) all_to_all = nullptr;

 private:
  template <class F>
  bool sym(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(h_, name));
    if (!f && why_.empty()) why_ = std::string("NCCL library lacks ") + name;
    return f != nullptr;
  }
  void* h_ = nullptr;
  bool loaded_ = false;
  std::string why_, version_;
};
#endif

class CudaBackend : public GpuBackend {
 public:
  CudaBackend() {
    ck(cudaSetDevice(0), "cudaSetDevice");
    ckb(cublasCreate(&handle_), "cublasCreate");
    ck(cudaStreamCreate(&stream_), "cudaStreamCreate");
    ckb(cublasSetStream(handle_, stream_), "cublasSetStream");
    ck(cudaEventCreate(&start_), "cudaEventCreate");
    ck(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~CudaBackend() override {
    a_ = DevBuf();
    b_ = DevBuf();
    c_ = DevBuf();
#ifdef SEXTANT_HAVE_NCCL_H
    release_collectives();
#endif
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cublasDestroy(handle_);
    cudaStreamDestroy(stream_);
  }
  std::string name() const override { return "cuda"; }
  int device_count() const override {
    int n = 0;
    cudaGetDeviceCount(&n);
    return n;
  }
  GpuDevice device(int index) const override {
    cudaDeviceProp p{};
    ck(cudaGetDeviceProperties(&p, index), "cudaGetDeviceProperties");
    int drv = 0;
    cudaDriverGetVersion(&drv);
    return {p.name, static_cast<int64_t>(p.totalGlobalMem), fmt::format("CUDA driver API {}.{}", drv / 1000, (drv % 1000) / 10)};
  }
  std::vector<std::string> gemm_dtypes() const override { return {"fp32", "tf32", "bf16", "fp16"}; }
  double peak_flops(const std::string&) const override { return 0; }
  std::string gemm_operands() const override {
    return "uniform random in [-1, 1) (seeded, the same every run); all-zero operands run faster (less switching power, "
           "higher clocks)";
  }

  double gemm_s(const std::string& dtype, int64_t m, int64_t n, int64_t k, int iterations) override {
    cudaDataType_t t;
    cublasComputeType_t ct;
    size_t es;
    if (dtype == "fp32") { t = CUDA_R_32F; ct = CUBLAS_COMPUTE_32F; es = 4; }
    else if (dtype == "tf32") { t = CUDA_R_32F; ct = CUBLAS_COMPUTE_32F_FAST_TF32; es = 4; }
    else if (dtype == "bf16") { t = CUDA_R_16BF; ct = CUBLAS_COMPUTE_32F; es = 2; }
    else if (dtype == "fp16") { t = CUDA_R_16F; ct = CUBLAS_COMPUTE_32F; es = 2; }
    else throw Error(SourceLocation{"", 0, 0, "dtype"}, "CUDA GEMM dtype '" + dtype + "'", valid_choices_hint(dtype, gemm_dtypes()));
    const std::string storage = es == 4 ? "fp32" : dtype;
    ensure(a_, static_cast<size_t>(m * k) * es, storage, 1);
    ensure(b_, static_cast<size_t>(k * n) * es, storage, 2);
    if (c_.bytes < static_cast<size_t>(m * n) * es) c_ = DevBuf(static_cast<size_t>(m * n) * es);
    const float alpha = 1, beta = 0;
    // Column-major cuBLAS: C^T[n,m] = B^T[n,k] A^T[k,m] is the row-major C = A B.
    auto call = [&] {
      ckb(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &alpha,
                       b_.p, t, static_cast<int>(n), a_.p, t, static_cast<int>(k), &beta, c_.p, t, static_cast<int>(n), ct,
                       CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
    };
    call();
    ck(cudaStreamSynchronize(stream_), "sync");
    ck(cudaEventRecord(start_, stream_), "event");
    for (int i = 0; i < iterations; ++i) call();
    ck(cudaEventRecord(stop_, stream_), "event");
    ck(cudaEventSynchronize(stop_), "event sync");
    float ms = 0;
    ck(cudaEventElapsedTime(&ms, start_, stop_), "elapsed");
    return ms * 1e-3;
  }

  double copy_s(GpuCopy kind, int64_t bytes, int iterations) override {
    DevBuf d1(static_cast<size_t>(bytes)), d2(static_cast<size_t>(bytes));
    void* host = nullptr;
    if (kind != GpuCopy::DeviceToDevice) ck(cudaMallocHost(&host, static_cast<size_t>(bytes)), "cudaMallocHost");
    auto call = [&] {
      if (kind == GpuCopy::DeviceToDevice) ck(cudaMemcpyAsync(d2.p, d1.p, bytes, cudaMemcpyDeviceToDevice, stream_), "copy");
      else if (kind == GpuCopy::HostToDevice) ck(cudaMemcpyAsync(d1.p, host, bytes, cudaMemcpyHostToDevice, stream_), "copy");
      else ck(cudaMemcpyAsync(host, d1.p, bytes, cudaMemcpyDeviceToHost, stream_), "copy");
    };
    call();
    ck(cudaStreamSynchronize(stream_), "sync");
    ck(cudaEventRecord(start_, stream_), "event");
    for (int i = 0; i < iterations; ++i) call();
    ck(cudaEventRecord(stop_, stream_), "event");
    ck(cudaEventSynchronize(stop_), "event sync");
    float ms = 0;
    ck(cudaEventElapsedTime(&ms, start_, stop_), "elapsed");
    if (host) cudaFreeHost(host);
    return ms * 1e-3;
  }

#ifdef SEXTANT_HAVE_NCCL_H
  int collective_ranks() const override { return nccl_.loaded() ? device_count() : 0; }
  std::string collectives_unavailable() const override { return nccl_.loaded() ? "" : nccl_.why(); }
  std::string collective_library() const override { return nccl_.version(); }
  std::vector<std::string> collective_ops() const override {
    if (!nccl_.loaded()) return {};
    std::vector<std::string> ops = {"all_reduce", "all_gather", "reduce_scatter"};
    if (nccl_.all_to_all) ops.push_back("alltoall");
    return ops;
  }
  double collective_s(const std::string& op, int64_t bytes, int iterations) override {
    if (!nccl_.loaded()) return GpuBackend::collective_s(op, bytes, iterations);
    const int n = device_count();
    if (comms_.empty()) {
      comms_.resize(static_cast<size_t>(n));
      nccl_.check(nccl_.init_all(comms_.data(), n, nullptr), "ncclCommInitAll");
      for (int d = 0; d < n; ++d) {
        ck(cudaSetDevice(d), "cudaSetDevice");
        cudaStream_t st{};
        ck(cudaStreamCreate(&st), "cudaStreamCreate");
        coll_streams_.push_back(st);
      }
    }
    // Buffers of `bytes` on every device (send and receive), kept while the size is unchanged.
    if (coll_bytes_ != bytes) {
      free_collective_buffers();
      for (int d = 0; d < n; ++d) {
        ck(cudaSetDevice(d), "cudaSetDevice");
        coll_send_.emplace_back(static_cast<size_t>(bytes));
        coll_recv_.emplace_back(static_cast<size_t>(bytes));
      }
      coll_bytes_ = bytes;
    }
    const size_t elems = static_cast<size_t>(bytes) / 4, per_rank = elems / static_cast<size_t>(n);
    auto launch = [&] {
      nccl_.check(nccl_.group_start(), "ncclGroupStart");
      for (int d = 0; d < n; ++d) {
        const size_t i = static_cast<size_t>(d);
        void* snd = coll_send_[i].p;
        void* rcv = coll_recv_[i].p;
        ncclResult_t r;
        if (op == "all_reduce") r = nccl_.all_reduce(snd, rcv, elems, ncclFloat32, ncclSum, comms_[i], coll_streams_[i]);
        else if (op == "all_gather") r = nccl_.all_gather(snd, rcv, per_rank, ncclFloat32, comms_[i], coll_streams_[i]);
        else if (op == "reduce_scatter") r = nccl_.reduce_scatter(snd, rcv, per_rank, ncclFloat32, ncclSum, comms_[i], coll_streams_[i]);
        else if (op == "alltoall" && nccl_.all_to_all) r = nccl_.all_to_all(snd, rcv, per_rank, ncclFloat32, comms_[i], coll_streams_[i]);
        else throw Error(SourceLocation{"", 0, 0, "collective"}, "NCCL collective '" + op + "'", valid_choices_hint(op, collective_ops()));
        nccl_.check(r, op.c_str());
      }
      nccl_.check(nccl_.group_end(), "ncclGroupEnd");
    };
    auto sync = [&] {
      for (int d = 0; d < n; ++d) {
        ck(cudaSetDevice(d), "cudaSetDevice");
        ck(cudaStreamSynchronize(coll_streams_[static_cast<size_t>(d)]), "sync");
      }
    };
    launch();  // warm: the first call of a size sets up NCCL's channels
    sync();
    const auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < iterations; ++it) launch();
    sync();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ck(cudaSetDevice(0), "cudaSetDevice");
    return s;
  }
#endif

 private:
#ifdef SEXTANT_HAVE_NCCL_H
  void free_collective_buffers() {
    for (size_t d = 0; d < coll_send_.size(); ++d) {
      cudaSetDevice(static_cast<int>(d));
      coll_send_[d] = DevBuf();
      coll_recv_[d] = DevBuf();
    }
    coll_send_.clear();
    coll_recv_.clear();
    coll_bytes_ = -1;
  }
  void release_collectives() {
    free_collective_buffers();
    for (auto c : comms_) nccl_.destroy(c);
    for (auto st : coll_streams_) cudaStreamDestroy(st);
    comms_.clear();
    coll_streams_.clear();
    cudaSetDevice(0);
  }
  Nccl nccl_;
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> coll_streams_;
  std::vector<DevBuf> coll_send_, coll_recv_;
  int64_t coll_bytes_ = -1;
#endif
  // Grows buf to at least `bytes` and fills it with operands of `storage` type: a 32 MiB host
  // chunk of uniform values in [-1, 1) (stream `which`, fixed seed) tiled over the buffer. A
  // buffer kept from an earlier shape of the same storage type is reused as it is.
  void ensure(DevBuf& buf, size_t bytes, const std::string& storage, uint64_t which) {
    std::string& filled = which == 1 ? a_type_ : b_type_;
    if (buf.bytes >= bytes && filled == storage) return;
    if (buf.bytes < bytes) buf = DevBuf(bytes);
    constexpr size_t chunk_bytes = size_t{32} << 20;
    std::vector<unsigned char> host(std::min(chunk_bytes, buf.bytes));
    RandomStream rng(0x5e7a47, which);
    if (storage == "fp32") {
      for (size_t i = 0; i + 4 <= host.size(); i += 4) {
        const float f = static_cast<float>(rng.uniform(-1, 1));
        std::memcpy(&host[i], &f, 4);
      }
    } else {
      for (size_t i = 0; i + 2 <= host.size(); i += 2) {
        const float f = static_cast<float>(rng.uniform(-1, 1));
        const uint16_t h = storage == "bf16" ? to_bf16(f) : to_fp16(f);
        std::memcpy(&host[i], &h, 2);
      }
    }
    for (size_t off = 0; off < buf.bytes; off += host.size())
      ck(cudaMemcpy(static_cast<unsigned char*>(buf.p) + off, host.data(), std::min(host.size(), buf.bytes - off), cudaMemcpyHostToDevice),
         "cudaMemcpy operands");
    filled = storage;
  }

  DevBuf a_, b_, c_;
  std::string a_type_, b_type_;
  cublasHandle_t handle_{};
  cudaStream_t stream_{};
  cudaEvent_t start_{}, stop_{};
};
}  // namespace

std::shared_ptr<GpuBackend> make_cuda_backend(std::string* why_not) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    if (why_not) *why_not = e != cudaSuccess ? std::string("no CUDA device: ") + cudaGetErrorString(e) : "no CUDA device visible";
    return nullptr;
  }
  return std::make_shared<CudaBackend>();
}

}  // namespace sextant::bench

#else

namespace sextant::bench {
std::shared_ptr<GpuBackend> make_cuda_backend(std::string* why_not) {
  // Either cause: with SEXTANT_WITH_CUDA=AUTO (the default) no GPU was visible to nvidia-smi at
  // configure time, or no CUDA toolkit was found (the message had named the toolkit only).
  if (why_not)
    *why_not = "Sextant was built without CUDA (at configure time no GPU was visible to nvidia-smi, or no CUDA toolkit was "
               "found; reconfigure with -DSEXTANT_WITH_CUDA=ON on a machine with the toolkit)";
  return nullptr;
}
}  // namespace sextant::bench

#endif
