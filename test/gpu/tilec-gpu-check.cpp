//===- tilec-gpu-check.cpp - replays golden cases on a GPU ------*- C++ -*-===//
//
// tilec-gpu-check CASE...
//
// Launches each case's kernel through the tilec runtime on views holding the
// case's initial (random) contents, and compares every element of every view
// afterwards with what the interpreter left: computed elements within the
// case's tolerance, untouched ones bit for bit. Each view's buffer has guard
// zones of kGuardBytes before its first and after its last element, filled
// with kGuardByte and checked after the run: a store past a ragged corner
// or before the start shows. Exits 0 when all match, 1
// when one does not, and 77 (ctest's SKIP_RETURN_CODE) when there is no CUDA
// driver or device. Needs only the runtime: it runs where there is no LLVM.
//
//===----------------------------------------------------------------------===//

#include "tilec/Golden/CaseFile.h"
#include "tilec/Runtime/DriverApi.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace tilec::golden;

namespace {

using Driver = tilec::runtime::DriverApi;

/// A multiple of every element's alignment, so views keep theirs.
constexpr size_t kGuardBytes = 1024;
constexpr uint8_t kGuardByte = 0xa5;

/// The number of guard bytes that changed, printing where the first did.
size_t checkGuards(const Case &c, size_t argIndex,
                   const std::vector<uint8_t> &whole) {
  size_t changed = 0;
  const size_t viewEnd = whole.size() - kGuardBytes;
  for (size_t i = 0; i < whole.size(); ++i) {
    if (i == kGuardBytes)
      i = viewEnd;
    if (whole[i] != kGuardByte && changed++ == 0)
      std::printf("  %s arg %zu: written %zu bytes %s the view\n",
                  c.name.c_str(), argIndex,
                  i < kGuardBytes ? kGuardBytes - i : i - viewEnd + 1,
                  i < kGuardBytes ? "before" : "past");
  }
  return changed;
}

/// Compares one view's contents after the launch; returns the number of bad
/// elements and prints the first few.
size_t compareView(const Case &c, size_t argIndex, const std::vector<uint8_t> &got,
                   double &maxError) {
  const CaseArg &arg = c.args[argIndex];
  size_t size = tilec::interp::dtypeSize(arg.elemType);
  size_t count = got.size() / size, bad = 0;
  if (!tilec::interp::isFloatDType(arg.elemType)) {
    for (size_t i = 0; i < count; ++i)
      if (std::memcmp(&got[i * size], &arg.expected[i * size], size) &&
          bad++ < 5)
        std::printf("  arg %zu element %zu: integer differs\n", argIndex, i);
    return bad;
  }
  double sumSquares = 0;
  size_t finite = 0;
  for (size_t i = 0; i < count; ++i) {
    double ref = loadFloat(arg.elemType, arg.expected.data(), i);
    if (std::isfinite(ref)) {
      sumSquares += ref * ref;
      ++finite;
    }
  }
  double rms = finite ? std::sqrt(sumSquares / finite) : 1.0;
  for (size_t i = 0; i < count; ++i) {
    double ref = loadFloat(arg.elemType, arg.expected.data(), i);
    double gpu = loadFloat(arg.elemType, got.data(), i);
    bool unchanged = std::memcmp(&arg.initial[i * size],
                                 &arg.expected[i * size], size) == 0;
    bool ok;
    if (unchanged)
      ok = std::memcmp(&got[i * size], &arg.expected[i * size], size) == 0;
    else if (std::isnan(ref) || std::isinf(ref))
      ok = std::isnan(ref) ? std::isnan(gpu) : gpu == ref;
    else {
      double error = std::fabs(gpu - ref) / (std::fabs(ref) + rms);
      maxError = std::max(maxError, std::isnan(error) ? INFINITY : error);
      ok = error <= c.tolerance;
    }
    if (!ok && bad++ < 5)
      std::printf("  arg %zu element %zu: gpu %.9g, interpreter %.9g%s\n",
                  argIndex, i, gpu, ref,
                  unchanged ? " (must not be written)" : "");
  }
  return bad;
}

/// 1: the case failed; 0: it passed.
int runCase(const Driver &d, const Case &c) {
  std::vector<CUdeviceptr> buffers(c.args.size(), 0);
  // Kernel parameters in ABI order (Pipeline.h): per view a pointer, its
  // sizes, then its strides; per scalar its bytes.
  std::vector<std::vector<uint8_t>> storage;
  auto addParam = [&](const void *p, size_t n) {
    const auto *b = static_cast<const uint8_t *>(p);
    storage.emplace_back(b, b + n);
    // At least 8 bytes, zero-padded: the driver reads as many bytes as the
    // kernel's parameter has, which for a narrow scalar may be more than
    // the case's (little-endian: the value's bytes come first).
    storage.back().resize(std::max<size_t>(n, 8), 0);
  };
  auto fail = [&](const char *what, CUresult result = CUDA_SUCCESS) {
    std::printf("FAIL %s: %s: %s\n", c.name.c_str(), what,
                result != CUDA_SUCCESS ? d.errorName(result)
                                       : tilec_last_error());
    tilec_forget_fatbin(c.fatbin.data());
    for (CUdeviceptr b : buffers)
      if (b)
        d.memFree(b);
    return 1;
  };
  for (size_t i = 0; i < c.args.size(); ++i) {
    const CaseArg &arg = c.args[i];
    if (!arg.isView) {
      addParam(arg.scalar.data(), arg.scalar.size());
      continue;
    }
    std::vector<uint8_t> whole(arg.initial.size() + 2 * kGuardBytes,
                               kGuardByte);
    std::copy(arg.initial.begin(), arg.initial.end(),
              whole.begin() + kGuardBytes);
    if (d.memAlloc(&buffers[i], whole.size()) != CUDA_SUCCESS)
      return fail("cuMemAlloc");
    if (d.memcpyHtoD(buffers[i], whole.data(), whole.size()) != CUDA_SUCCESS)
      return fail("cuMemcpyHtoD");
    CUdeviceptr view = buffers[i] + kGuardBytes;
    addParam(&view, sizeof(CUdeviceptr));
    for (int64_t s : arg.shape)
      addParam(&s, sizeof s);
    for (int64_t s : arg.strides)
      addParam(&s, sizeof s);
  }
  std::vector<void *> params;
  for (auto &p : storage)
    params.push_back(p.data());

  tilec_kernel kernel{c.fatbin.data(), c.kernel.c_str(), c.blockThreads,
                      static_cast<size_t>(c.sharedBytes)};
  tilec_grid grid{c.grid[0], c.grid[1], c.grid[2]};
  if (tilec_launch(&kernel, grid, nullptr, params.data()) != TILEC_SUCCESS)
    return fail("launch");
  if (CUresult result = d.streamSynchronize(nullptr))
    return fail("kernel execution", result);
  // The runtime caches modules by image address; the next case's image may
  // reuse this one's memory.
  tilec_forget_fatbin(c.fatbin.data());

  size_t bad = 0;
  double maxError = 0;
  for (size_t i = 0; i < c.args.size(); ++i) {
    const CaseArg &arg = c.args[i];
    if (!arg.isView)
      continue;
    std::vector<uint8_t> whole(arg.initial.size() + 2 * kGuardBytes);
    if (d.memcpyDtoH(whole.data(), buffers[i], whole.size()) != CUDA_SUCCESS)
      return fail("cuMemcpyDtoH");
    bad += checkGuards(c, i, whole);
    std::vector<uint8_t> got(whole.begin() + kGuardBytes,
                             whole.end() - kGuardBytes);
    bad += compareView(c, i, got, maxError);
  }
  for (CUdeviceptr b : buffers)
    if (b)
      d.memFree(b);
  std::printf("%s %s: kernel %s, grid %lldx%lldx%lld, max error %.3g "
              "(tolerance %.1g)\n",
              bad ? "FAIL" : "PASS", c.name.c_str(), c.kernel.c_str(),
              (long long)c.grid[0], (long long)c.grid[1], (long long)c.grid[2],
              maxError, c.tolerance);
  return bad ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tilec-gpu-check CASE...\n");
    return 2;
  }
  Driver d;
  tilec_status status = d.load();
  if (status == TILEC_ERROR_NO_DRIVER || status == TILEC_ERROR_NO_DEVICE) {
    std::printf("SKIPPED: %s\n", d.error().c_str());
    return 77;
  }
  if (status != TILEC_SUCCESS) {
    std::fprintf(stderr, "tilec-gpu-check: cannot set up the device: %s\n",
                 d.error().c_str());
    return 1;
  }
  int passed = 0, failed = 0;
  for (int i = 1; i < argc; ++i) {
    Case c;
    std::string error;
    if (!readCase(argv[i], c, error)) {
      std::printf("FAIL %s: %s\n", argv[i], error.c_str());
      ++failed;
      continue;
    }
    (runCase(d, c) ? failed : passed)++;
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
