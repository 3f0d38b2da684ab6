//===- Interpreter.cpp - runs tile kernels on the CPU -----------*- C++ -*-===//

#include "tilec/Interpreter/Interpreter.h"
#include "tilec/Support/ViewByteSpan.h"

#include "Kernels.h"
#include "Program.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/OwningOpRef.h"

#include "llvm/ADT/APFloat.h"

#include <atomic>
#include <mutex>
#include <thread>

using namespace mlir;
using namespace tilec::interp;
using namespace tilec::interp::detail;

std::optional<DType> tilec::interp::dtypeOf(Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isSignlessInteger(8))
    return DType::I8;
  if (type.isSignlessInteger(16))
    return DType::I16;
  if (type.isSignlessInteger(32))
    return DType::I32;
  if (type.isSignlessInteger(64))
    return DType::I64;
  return std::nullopt;
}

std::vector<int64_t>
HostView::contiguousStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int k = static_cast<int>(shape.size()) - 2; k >= 0; --k)
    strides[k] = strides[k + 1] * shape[k + 1];
  return strides;
}

namespace {

/// Checks a view argument against its declaration and resolves it. Every
/// element offset the program can form, sum_d coord_d * stride_d with
/// coord_d < shape_d, must fit in 64 bits.
LogicalResult bindView(const Program::ViewParam &param, const HostView &host,
                       ViewArg &view, std::string &error) {
  std::string what = "argument " + std::to_string(param.argIndex) + ": ";
  if (host.dtype != param.dtype) {
    error = what + "the kernel reads a " + dtypeName(param.dtype) +
            " view, but the buffer holds " + dtypeName(host.dtype);
    return failure();
  }
  if (host.shape.size() != param.rank || host.strides.size() != param.rank) {
    error = what + "the kernel reads a view of rank " +
            std::to_string(param.rank) + ", but the buffer has " +
            std::to_string(host.shape.size()) + " extents and " +
            std::to_string(host.strides.size()) + " strides";
    return failure();
  }
  bool empty = false;
  for (unsigned d = 0; d < param.rank; ++d) {
    if (host.shape[d] < 0 || host.strides[d] < 0) {
      error = what + "extents and strides must not be negative (dimension " +
              std::to_string(d) + ")";
      return failure();
    }
    empty |= host.shape[d] == 0;
  }
  if (!empty && !tilec::viewByteSpan(host.shape.data(), host.strides.data(),
                                     param.rank, dtypeSize(host.dtype))) {
    error = what + "the view spans more than 2^63 bytes";
    return failure();
  }
  if (!empty && !host.data) {
    error = what + "a view with elements needs data (the pointer is null)";
    return failure();
  }
  view.data = static_cast<char *>(host.data);
  view.dtype = host.dtype;
  view.rank = param.rank;
  for (unsigned d = 0; d < param.rank; ++d) {
    view.shape[d] = host.shape[d];
    view.strides[d] = host.strides[d];
  }
  return success();
}

/// Checks a scalar argument against its type and stores it as the value the
/// kernel sees.
LogicalResult bindScalar(const ScalarParam &param, const Scalar &scalar,
                         Buffer &buffer, std::string &error) {
  std::string what = "argument " + std::to_string(param.argIndex) + ": ";
  if (isFloat(param.elem)) {
    float value;
    if (const double *d = std::get_if<double>(&scalar)) {
      // Straight from double to the argument's type: rounding through f32
      // first could round a bf16 or f16 value twice.
      const llvm::fltSemantics &semantics =
          param.elem == Elem::BF16  ? llvm::APFloat::BFloat()
          : param.elem == Elem::F16 ? llvm::APFloat::IEEEhalf()
                                    : llvm::APFloat::IEEEsingle();
      llvm::APFloat rounded(*d);
      bool lost;
      rounded.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
      rounded.convert(llvm::APFloat::IEEEsingle(),
                      llvm::APFloat::rmNearestTiesToEven, &lost);
      value = rounded.convertToFloat();
    } else {
      int64_t i = std::get<int64_t>(scalar);
      value = i < 0 ? integerToFloat(0 - static_cast<uint64_t>(i), true,
                                     param.elem)
                    : integerToFloat(static_cast<uint64_t>(i), false,
                                     param.elem);
    }
    buffer.f.assign(1, value);
    return success();
  }
  const int64_t *i = std::get_if<int64_t>(&scalar);
  if (!i) {
    error = what + "an integer argument needs an integer, not a double";
    return failure();
  }
  unsigned width = bitWidth(param.elem);
  // An integer fits if it is a signed or an unsigned value of the width; i1
  // takes 0 and 1 (and -1, its signed true).
  bool fits = width >= 64 || signExtend(*i, width) == *i ||
              (*i >= 0 && static_cast<uint64_t>(*i) <= widthMask(width));
  if (!fits) {
    error = what + std::to_string(*i) + " does not fit in " +
            std::to_string(width) + " bits";
    return failure();
  }
  buffer.i.assign(1, signExtend(*i, width));
  return success();
}

} // namespace

struct Executable::Impl {
  Program program;
};

Executable::Executable(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Executable::~Executable() = default;

std::unique_ptr<Executable> Executable::compile(tile::KernelOp kernel,
                                                std::string &error) {
  if (!kernel) {
    error = "no kernel to compile";
    return nullptr;
  }
  // The shorthands are defined as the longer forms; write them out on a
  // copy, leaving the caller's kernel as it was.
  OwningOpRef<tile::KernelOp> expanded(
      cast<tile::KernelOp>(kernel->clone()));
  tile::expandForms(expanded.get());
  auto impl = std::make_unique<Impl>();
  if (failed(compileKernel(expanded.get(), impl->program, error)))
    return nullptr;
  return std::unique_ptr<Executable>(new Executable(std::move(impl)));
}

LogicalResult Executable::run(const std::vector<KernelArg> &args, Grid grid,
                              std::string &error, unsigned numThreads) const {
  const Program &program = impl->program;
  if (args.size() != program.numArgs) {
    error = "the kernel takes " + std::to_string(program.numArgs) +
            " arguments, but " + std::to_string(args.size()) +
            " were given";
    return failure();
  }
  std::vector<ViewArg> views(program.numArgs);
  for (const Program::ViewParam &param : program.views) {
    const HostView *host = std::get_if<HostView>(&args[param.argIndex]);
    if (!host) {
      error = "argument " + std::to_string(param.argIndex) +
              ": the kernel takes a view, but a scalar was given";
      return failure();
    }
    if (failed(bindView(param, *host, views[param.argIndex], error)))
      return failure();
  }
  std::vector<Buffer> scalars(program.scalars.size());
  for (auto [j, param] : llvm::enumerate(program.scalars)) {
    const Scalar *scalar = std::get_if<Scalar>(&args[param.argIndex]);
    if (!scalar) {
      error = "argument " + std::to_string(param.argIndex) +
              ": the kernel takes a scalar, but a view was given";
      return failure();
    }
    if (failed(bindScalar(param, *scalar, scalars[j], error)))
      return failure();
  }
  int64_t total = 1;
  for (int64_t size : grid.size) {
    if (size < 0) {
      error = "grid sizes must not be negative";
      return failure();
    }
    if (__builtin_mul_overflow(total, size, &total)) {
      error = "the grid has more than 2^63 programs";
      return failure();
    }
  }
  if (total == 0)
    return success();

  std::atomic<int64_t> next{0};
  std::atomic<bool> failedRun{false};
  std::mutex errorMutex;
  auto worker = [&] {
    Frame frame;
    frame.slots.resize(program.numSlots);
    for (const auto &[slot, value] : program.constants)
      frame.slots[slot] = value;
    for (auto [j, param] : llvm::enumerate(program.scalars))
      frame.slots[param.slot] = scalars[j];
    frame.views = views.data();
    frame.numBlocks = grid.size;
    while (!failedRun.load(std::memory_order_relaxed)) {
      int64_t id = next.fetch_add(1, std::memory_order_relaxed);
      if (id >= total)
        return;
      frame.blockId = {id % grid.size[0], id / grid.size[0] % grid.size[1],
                       id / grid.size[0] / grid.size[1]};
      if (runInstrs(program.body, frame))
        continue;
      std::lock_guard<std::mutex> lock(errorMutex);
      if (!failedRun.exchange(true))
        error = "program (" + std::to_string(frame.blockId[0]) + ", " +
                std::to_string(frame.blockId[1]) + ", " +
                std::to_string(frame.blockId[2]) + "): " + frame.error;
      return;
    }
  };

  if (numThreads == 0)
    numThreads = std::max(1u, std::thread::hardware_concurrency());
  int64_t threads = std::min<int64_t>(numThreads, total);
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread &thread : pool)
    thread.join();
  return failure(failedRun.load());
}

LogicalResult tilec::interp::runKernel(tile::KernelOp kernel,
                                       const std::vector<KernelArg> &args,
                                       Grid grid, std::string &error,
                                       unsigned numThreads) {
  std::unique_ptr<Executable> executable = Executable::compile(kernel, error);
  if (!executable)
    return failure();
  return executable->run(args, grid, error, numThreads);
}
