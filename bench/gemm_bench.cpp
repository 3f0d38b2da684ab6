//===- gemm_bench.cpp - kernels/examples/gemm.mlir against cuBLAS ---------===//
//
// gemm_bench [--reps N] [--shapes MxNxK[:bf16],...]
//
// C = A B with A (M x K) and B (K x N) bf16 row-major, f32 accumulation and
// C in f32 (or bf16 with ":bf16"), through tilec's tile_gemm /
// tile_gemm_bf16 (the simple code generator), the layout-driven one
// (docs/codegen-layouts.md) twice: tile_gemm_layouts / tile_gemm_bf16_layouts
// ("wgmma": their fatbin has sm_90a images, which an H100/H200 runs) and
// tile_gemm_mma_sync / tile_gemm_bf16_mma_sync ("mma.sync": built for sm_90
// only, so the same GPU runs the portable mma.sync code), and
// cuBLAS (cublasGemmEx, CUBLAS_COMPUTE_32F) in the same process on the same
// inputs; then the candidate tilings of kernels/examples/CMakeLists.txt
// (TILEC_GEMM_CANDIDATES: other tile sizes, launch orders and occupancies
// of the same two paths), one row each, named after their entry. Per shape: random inputs, C poisoned
// (NaN) before the first launch, 3 warm-up runs, then up to N runs each
// timed with CUDA events (fewer when that would take more than 5 s); the
// median time, its TFLOP/s, and the norm-wise difference of the two C's
// (||C_tilec - C_cublas|| / ||C_cublas||, a few 1e-7 for f32 C: both sum
// exact bf16 products in f32, in different orders).
//
// Beside the times, the roofline of the machine measured in the same run:
// the copy bandwidth (a 1 GiB device-to-device copy, read + write) and the
// matmul rate (cuBLAS's own at 8192^3); a shape's floor is the larger of its
// flops at that rate and its bytes (A and B read once, C written once) at
// that bandwidth. Also which variant of the kernel ran (gemm_vec when the
// views have the vectorize facts) and which image (on an H100/H200: sm_90a
// for "wgmma", sm_90 for "mma.sync"; on a GPU without sm_90a images the
// "wgmma" row runs mma.sync too and is called "layouts").
//
// Exits 77 without a GPU or cuBLAS (see bench/Cublas.h for where cuBLAS is
// looked for).
//
//===----------------------------------------------------------------------===//

#include "Cublas.h"
#include "gemm.h"
#include "gemm_candidates.h"
#include "gemm_layouts.h"
#include "gemm_mma_sync.h"
#include "tilec/Runtime/DriverApi.h"

#include <cudaTypedefs.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Driver = tilec::runtime::DriverApi;

#define CHECK_CU(call)                                                         \
  do {                                                                         \
    if (CUresult result_ = (call); result_ != CUDA_SUCCESS) {                  \
      std::fprintf(stderr, "gemm_bench: %s failed: %d\n", #call, result_);     \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)
#define CHECK_TILEC(call)                                                      \
  do {                                                                         \
    if ((call) != TILEC_SUCCESS) {                                             \
      std::fprintf(stderr, "gemm_bench: %s\n", tilec_last_error());            \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)
#define CHECK_CUBLAS(call)                                                     \
  do {                                                                         \
    if (cublasStatus_t status_ = (call);                                       \
        status_ != CUBLAS_STATUS_SUCCESS) {                                    \
      std::fprintf(stderr, "gemm_bench: %s failed: status %d\n", #call,        \
                   int(status_));                                              \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct Shape {
  int64_t m, n, k;
  bool bf16Out;
};

/// The driver calls beyond DriverApi's.
struct Extra {
  PFN_cuMemcpyDtoDAsync_v3020 memcpyDtoDAsync;
  PFN_cuMemsetD32_v3020 memsetD32;
};

template <typename F> F entry(const char *name, int version) {
  void *p = nullptr;
  CHECK_TILEC(tilec_driver_entry_point_version(name, version, &p));
  return reinterpret_cast<F>(p);
}

uint16_t toBF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7fff + ((bits >> 16) & 1); // round to nearest even (no NaNs here)
  return uint16_t(bits >> 16);
}

float fromBF16(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// `count` bf16 values uniform in [-1, 1), from a 64-bit xorshift seeded
/// with `seed`.
std::vector<uint16_t> randomBF16(size_t count, uint64_t seed) {
  std::vector<uint16_t> values(count);
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (uint16_t &v : values) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v = toBF16(float(int64_t(x >> 40) - (int64_t(1) << 23)) / float(1 << 23));
  }
  return values;
}

/// The median of the times of `run` (ms, CUDA events on the legacy stream)
/// after 3 warm-up runs: `reps` runs, fewer when they would take over 5 s.
template <typename F> double medianMs(const Driver &d, int reps, F run) {
  CUevent start, stop;
  CHECK_CU(d.eventCreate(&start, CU_EVENT_DEFAULT));
  CHECK_CU(d.eventCreate(&stop, CU_EVENT_DEFAULT));
  auto timeOnce = [&] {
    CHECK_CU(d.eventRecord(start, nullptr));
    run();
    CHECK_CU(d.eventRecord(stop, nullptr));
    CHECK_CU(d.eventSynchronize(stop));
    float ms = 0;
    CHECK_CU(d.eventElapsedTime(&ms, start, stop));
    return double(ms);
  };
  double warm = 0;
  for (int i = 0; i < 3; ++i)
    warm = timeOnce();
  int n = std::max(5, std::min(reps, int(5000 / std::max(warm, 1e-3))));
  std::vector<double> times;
  for (int i = 0; i < n; ++i)
    times.push_back(timeOnce());
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

double copyBandwidthGBs(const Driver &d, const Extra &x, int reps) {
  const size_t bytes = size_t(1) << 30;
  CUdeviceptr src, dst;
  CHECK_CU(d.memAlloc(&src, bytes));
  CHECK_CU(d.memAlloc(&dst, bytes));
  CHECK_CU(x.memsetD32(src, 0x3f800000u, bytes / 4));
  double ms = medianMs(d, reps, [&] {
    CHECK_CU(x.memcpyDtoDAsync(dst, src, bytes, nullptr));
  });
  d.memFree(src);
  d.memFree(dst);
  return 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
}

/// One tilec code generator's time, its launched variant and image, and
/// its C against cuBLAS's.
struct TilecResult {
  double ms = 0, relError = 0;
  std::string variant, image;
};

struct Result {
  double cublasMs = 0;
  TilecResult simple, mmaSync, wgmma;
  /// One per TILEC_GEMM_CANDIDATES entry, in its order.
  std::vector<TilecResult> candidates;
};

/// A candidate tiling: its name, tile sizes (the grid) and launchers.
struct Candidate {
  const char *name;
  int64_t blockM, blockN;
  tilec_status (*f32Out)(const tilec_view_bf16_2d &,
                         const tilec_view_bf16_2d &, const tilec_view_f32_2d &,
                         tilec_grid, CUstream);
  tilec_status (*bf16Out)(const tilec_view_bf16_2d &,
                          const tilec_view_bf16_2d &,
                          const tilec_view_bf16_2d &, tilec_grid, CUstream);
};

#define TILEC_GEMM_CANDIDATE(name, blockM, blockN, f32Out, bf16Out)            \
  Candidate{name, blockM, blockN, f32Out, bf16Out},
const Candidate kCandidates[] = {TILEC_GEMM_CANDIDATES(TILEC_GEMM_CANDIDATE)};
#undef TILEC_GEMM_CANDIDATE

/// ||got - want|| / ||want|| over `count` elements of f32 or bf16 (NaN when
/// got has an unwritten, NaN-poisoned element).
double relativeDifference(const std::vector<unsigned char> &got,
                          const std::vector<unsigned char> &want,
                          size_t count, bool bf16) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < count; ++i) {
    double g, w;
    if (bf16) {
      uint16_t gb, wb;
      std::memcpy(&gb, &got[2 * i], 2);
      std::memcpy(&wb, &want[2 * i], 2);
      g = fromBF16(gb);
      w = fromBF16(wb);
    } else {
      float gf, wf;
      std::memcpy(&gf, &got[4 * i], 4);
      std::memcpy(&wf, &want[4 * i], 4);
      g = gf;
      w = wf;
    }
    diff += (g - w) * (g - w);
    norm += w * w;
  }
  return std::sqrt(diff / norm);
}

/// Times both on shape `s`; with `tilecToo` false, cuBLAS alone.
Result run(const Driver &d, const Extra &x, const tilec::bench::Cublas &cublas,
           cublasHandle_t handle, const Shape &s, int reps, bool tilecToo) {
  const size_t outBytes = s.bf16Out ? 2 : 4;
  std::vector<uint16_t> a = randomBF16(size_t(s.m * s.k), 1);
  std::vector<uint16_t> b = randomBF16(size_t(s.k * s.n), 2);
  CUdeviceptr da, db, dc, dref;
  CHECK_CU(d.memAlloc(&da, a.size() * 2));
  CHECK_CU(d.memAlloc(&db, b.size() * 2));
  CHECK_CU(d.memAlloc(&dc, size_t(s.m * s.n) * outBytes));
  CHECK_CU(d.memAlloc(&dref, size_t(s.m * s.n) * outBytes));
  CHECK_CU(d.memcpyHtoD(da, a.data(), a.size() * 2));
  CHECK_CU(d.memcpyHtoD(db, b.data(), b.size() * 2));

  auto *pa = reinterpret_cast<tilec_bf16 *>(da);
  auto *pb = reinterpret_cast<tilec_bf16 *>(db);
  const tilec_grid grid = {(s.m + TILEC_GEMM_BLOCK_M - 1) / TILEC_GEMM_BLOCK_M,
                           (s.n + TILEC_GEMM_BLOCK_N - 1) / TILEC_GEMM_BLOCK_N,
                           1};
  tilec_view_bf16_2d va = {pa, {s.m, s.k}, {s.k, 1}};
  tilec_view_bf16_2d vb = {pb, {s.k, s.n}, {s.n, 1}};
  tilec_view_bf16_2d vcb = {reinterpret_cast<tilec_bf16 *>(dc), {s.m, s.n},
                            {s.n, 1}};
  tilec_view_f32_2d vcf = {reinterpret_cast<float *>(dc), {s.m, s.n},
                           {s.n, 1}};
  auto simpleGemm = [&] {
    CHECK_TILEC(s.bf16Out ? tile_gemm_bf16(va, vb, vcb, grid, nullptr)
                          : tile_gemm(va, vb, vcf, grid, nullptr));
  };
  const tilec_grid wgmmaGrid = {
      (s.m + TILEC_GEMM_LAYOUTS_BLOCK_M - 1) / TILEC_GEMM_LAYOUTS_BLOCK_M,
      (s.n + TILEC_GEMM_LAYOUTS_BLOCK_N - 1) / TILEC_GEMM_LAYOUTS_BLOCK_N, 1};
  auto wgmmaGemm = [&] {
    CHECK_TILEC(s.bf16Out
                    ? tile_gemm_bf16_layouts(va, vb, vcb, wgmmaGrid, nullptr)
                    : tile_gemm_layouts(va, vb, vcf, wgmmaGrid, nullptr));
  };
  const tilec_grid mmaSyncGrid = {
      (s.m + TILEC_GEMM_MMA_SYNC_BLOCK_M - 1) / TILEC_GEMM_MMA_SYNC_BLOCK_M,
      (s.n + TILEC_GEMM_MMA_SYNC_BLOCK_N - 1) / TILEC_GEMM_MMA_SYNC_BLOCK_N,
      1};
  auto mmaSyncGemm = [&] {
    CHECK_TILEC(s.bf16Out
                    ? tile_gemm_bf16_mma_sync(va, vb, vcb, mmaSyncGrid, nullptr)
                    : tile_gemm_mma_sync(va, vb, vcf, mmaSyncGrid, nullptr));
  };
  // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS computes an
  // N x M product of B (ld N) and A (ld K) into C (ld N).
  const float one = 1.0f, zero = 0.0f;
  auto cublasGemm = [&] {
    CHECK_CUBLAS(cublas.gemmEx(
        handle, CUBLAS_OP_N, CUBLAS_OP_N, int(s.n), int(s.m), int(s.k), &one,
        reinterpret_cast<void *>(db), CUDA_R_16BF, int(s.n),
        reinterpret_cast<void *>(da), CUDA_R_16BF, int(s.k), &zero,
        reinterpret_cast<void *>(dref), s.bf16Out ? CUDA_R_16BF : CUDA_R_32F,
        int(s.n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };

  Result r;
  r.cublasMs = medianMs(d, reps, cublasGemm);
  if (tilecToo) {
    const size_t count = size_t(s.m * s.n);
    std::vector<unsigned char> want(count * outBytes), got(want.size());
    CHECK_CU(d.memcpyDtoH(want.data(), dref, want.size()));
    auto timeTilec = [&](auto gemm, TilecResult &t) {
      // NaN in f32 and in both bf16 halves: an element tilec does not write
      // shows in the difference.
      CHECK_CU(x.memsetD32(dc, 0x7fc07fc0u, count * outBytes / 4));
      t.ms = medianMs(d, reps, gemm);
      const tilec_kernel *ran = tilec_last_launched();
      tilec_image_info info{};
      CHECK_TILEC(tilec_kernel_image_info(ran, &info));
      t.variant = ran->name;
      t.image = info.target;
      CHECK_CU(d.memcpyDtoH(got.data(), dc, got.size()));
      t.relError = relativeDifference(got, want, count, s.bf16Out);
    };
    timeTilec(simpleGemm, r.simple);
    timeTilec(mmaSyncGemm, r.mmaSync);
    timeTilec(wgmmaGemm, r.wgmma);
    for (const Candidate &c : kCandidates) {
      const tilec_grid cgrid = {(s.m + c.blockM - 1) / c.blockM,
                                (s.n + c.blockN - 1) / c.blockN, 1};
      auto launch = [&] {
        return s.bf16Out ? c.bf16Out(va, vb, vcb, cgrid, nullptr)
                         : c.f32Out(va, vb, vcf, cgrid, nullptr);
      };
      TilecResult &t = r.candidates.emplace_back();
      // Built for one image (sm_90a or sm_90): another GPU cannot run it.
      if (launch() != TILEC_SUCCESS) {
        t.variant = tilec_last_error();
        continue;
      }
      timeTilec([&] { CHECK_TILEC(launch()); }, t);
    }
  }
  for (CUdeviceptr p : {da, db, dc, dref})
    d.memFree(p);
  return r;
}

bool parseShapes(const std::string &text, std::vector<Shape> &shapes) {
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    Shape s{};
    char x1 = 0, x2 = 0;
    std::stringstream in(item);
    if (!(in >> s.m >> x1 >> s.n >> x2 >> s.k) || x1 != 'x' || x2 != 'x' ||
        s.m < 1 || s.n < 1 || s.k < 1 || s.m > INT32_MAX || s.n > INT32_MAX ||
        s.k > INT32_MAX)
      return false;
    std::string rest;
    in >> rest;
    if (rest == ":bf16")
      s.bf16Out = true;
    else if (!rest.empty())
      return false;
    shapes.push_back(s);
  }
  return !shapes.empty();
}

} // namespace

int main(int argc, char **argv) {
  int reps = 30;
  std::vector<Shape> shapes;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (flag == "--shapes" && i + 1 < argc) {
      if (!parseShapes(argv[++i], shapes)) {
        std::fprintf(stderr, "gemm_bench: --shapes takes MxNxK[:bf16],... "
                             "with positive sizes below 2^31\n");
        return 2;
      }
    } else {
      std::fprintf(stderr,
                   "usage: gemm_bench [--reps N] [--shapes MxNxK[:bf16],...]\n");
      return 2;
    }
  }
  if (reps < 1) {
    std::fprintf(stderr, "gemm_bench: --reps must be at least 1\n");
    return 2;
  }
  if (shapes.empty())
    shapes = {{8192, 8192, 8192, false}, {8192, 8192, 8192, true},
              {4096, 4096, 4096, false}, {2048, 2048, 2048, false},
              {1024, 1024, 1024, false}, {3000, 5000, 2000, false},
              {4095, 4097, 1023, true}};

  Driver d;
  if (tilec_status status = d.load()) {
    std::printf("gemm_bench: %s\n", d.error().c_str());
    return status == TILEC_ERROR_NO_DRIVER || status == TILEC_ERROR_NO_DEVICE
               ? 77
               : 1;
  }
  tilec::bench::Cublas cublas;
  std::string error;
  if (!cublas.load(error)) {
    std::printf("gemm_bench: %s\n", error.c_str());
    return 77;
  }
  Extra x;
  x.memcpyDtoDAsync =
      entry<PFN_cuMemcpyDtoDAsync_v3020>("cuMemcpyDtoDAsync", 3020);
  x.memsetD32 = entry<PFN_cuMemsetD32_v3020>("cuMemsetD32", 3020);
  cublasHandle_t handle;
  CHECK_CUBLAS(cublas.create(&handle));
  CHECK_CUBLAS(cublas.setStream(handle, nullptr));
  int version = 0;
  cublas.getVersion(handle, &version);
  std::printf("cuBLAS %d from %s\n", version, cublas.path.c_str());

  const double bandwidth = copyBandwidthGBs(d, x, reps);
  std::printf("copy bandwidth %.0f GB/s (1 GiB device to device, read + "
              "write, median)\n",
              bandwidth);
  // The matmul ceiling: cuBLAS's own rate on the largest square product.
  Result ceiling =
      run(d, x, cublas, handle, {8192, 8192, 8192, false}, reps, false);
  const double peak = 2.0 * 8192 * 8192 * 8192 / (ceiling.cublasMs * 1e-3) /
                      1e12;
  std::printf("matmul ceiling %.0f TFLOP/s (cuBLAS bf16, f32 accumulate, "
              "8192^3, median)\n\n",
              peak);

  // One line per shape and tilec code generator, cuBLAS's time on both.
  std::printf("%-16s %4s %-20s %9s %8s %10s %8s %7s %9s %7s %9s  %s\n",
              "M x N x K", "C", "codegen", "tilec ms", "TFLOP/s", "cuBLAS ms",
              "TFLOP/s", "ratio", "floor ms", "%floor", "rel.diff",
              "variant/image");
  bool ok = true;
  for (const Shape &s : shapes) {
    Result r = run(d, x, cublas, handle, s, reps, true);
    const double flop = 2.0 * double(s.m) * double(s.n) * double(s.k);
    const double bytes = 2.0 * double(s.m * s.k + s.k * s.n) +
                         (s.bf16Out ? 2.0 : 4.0) * double(s.m * s.n);
    const double floorMs =
        std::max(flop / (peak * 1e12), bytes / (bandwidth * 1e9)) * 1e3;
    char shape[32];
    std::snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)s.m,
                  (long long)s.n, (long long)s.k);
    std::vector<std::pair<const char *, const TilecResult *>> rows = {
        {"simple", &r.simple},
        {"mma.sync", &r.mmaSync},
        {r.wgmma.image == "sm_90a" ? "wgmma" : "layouts", &r.wgmma}};
    for (size_t c = 0; c < r.candidates.size(); ++c)
      rows.push_back({kCandidates[c].name, &r.candidates[c]});
    for (const auto &[codegen, result] : rows) {
      const TilecResult &t = *result;
      if (t.ms == 0) {
        std::printf("%-16s %4s %-20s not run: %s\n", shape,
                    s.bf16Out ? "bf16" : "f32", codegen, t.variant.c_str());
        continue;
      }
      std::printf("%-16s %4s %-20s %9.3f %8.1f %10.3f %8.1f %6.1f%% %9.3f "
                  "%6.1f%% %9.2e  %s/%s\n",
                  shape, s.bf16Out ? "bf16" : "f32", codegen, t.ms,
                  flop / (t.ms * 1e-3) / 1e12, r.cublasMs,
                  flop / (r.cublasMs * 1e-3) / 1e12,
                  100.0 * r.cublasMs / t.ms, floorMs, 100.0 * floorMs / t.ms,
                  t.relError, t.variant.c_str(), t.image.c_str());
      // f32 C: sums in different orders (~1e-7); bf16 C: a rounding apart
      // (2^-8 relative at most where the f32 sums straddle a rounding).
      ok &= t.relError <= (s.bf16Out ? 4e-3 : 1e-5);
    }
  }
  cublas.destroy(handle);
  if (!ok)
    std::printf("\ngemm_bench: tilec's C differs from cuBLAS's beyond the "
                "rounding of the sums\n");
  return ok ? 0 : 1;
}
