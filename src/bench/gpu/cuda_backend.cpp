// CUDA backend of the GPU suite: cuBLAS GEMMs (cublasGemmEx) and cudaMemcpyAsync copies, timed
// with CUDA events. Compiled only when CMake found a CUDA toolkit (SEXTANT_HAVE_CUDA).
#include "bench/gpu_backend.hpp"

#ifdef SEXTANT_HAVE_CUDA
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <fmt/format.h>

#include "core/error.hpp"

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
  explicit DevBuf(size_t bytes) { ck(cudaMalloc(&p, bytes), "cudaMalloc"); ck(cudaMemset(p, 0, bytes), "cudaMemset"); }
  ~DevBuf() { if (p) cudaFree(p); }
};

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

  double gemm_s(const std::string& dtype, int64_t m, int64_t n, int64_t k, int iterations) override {
    cudaDataType_t t;
    cublasComputeType_t ct;
    size_t es;
    if (dtype == "fp32") { t = CUDA_R_32F; ct = CUBLAS_COMPUTE_32F; es = 4; }
    else if (dtype == "tf32") { t = CUDA_R_32F; ct = CUBLAS_COMPUTE_32F_FAST_TF32; es = 4; }
    else if (dtype == "bf16") { t = CUDA_R_16BF; ct = CUBLAS_COMPUTE_32F; es = 2; }
    else if (dtype == "fp16") { t = CUDA_R_16F; ct = CUBLAS_COMPUTE_32F; es = 2; }
    else throw Error(SourceLocation{"", 0, 0, "dtype"}, "CUDA GEMM dtype '" + dtype + "'", valid_choices_hint(dtype, gemm_dtypes()));
    DevBuf a(static_cast<size_t>(m * k) * es), b(static_cast<size_t>(k * n) * es), c(static_cast<size_t>(m * n) * es);
    const float alpha = 1, beta = 0;
    // Column-major cuBLAS: C^T[n,m] = B^T[n,k] A^T[k,m] is the row-major C = A B.
    auto call = [&] {
      ckb(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &alpha,
                       b.p, t, static_cast<int>(n), a.p, t, static_cast<int>(k), &beta, c.p, t, static_cast<int>(n), ct,
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

 private:
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
  if (why_not) *why_not = "Sextant was built without CUDA (no CUDA toolkit found at configure time)";
  return nullptr;
}
}  // namespace sextant::bench

#endif
