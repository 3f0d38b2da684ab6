//===- Compile.cpp - translating a kernel for the interpreter ---*- C++ -*-===//
//
// Walks a bound kernel once and turns each op into a closure over the slots
// of its operands and results. Everything that depends only on types (shapes,
// element types, strides of tiles, predicates) is decided here; the closures
// only loop over elements.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "Program.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>
#include <memory>

using namespace mlir;
using namespace tilec::interp;
using namespace tilec::interp::detail;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

template <typename T> std::vector<T> &storage(Buffer &buffer);
template <> std::vector<float> &storage<float>(Buffer &buffer) {
  return buffer.f;
}
template <> std::vector<int64_t> &storage<int64_t>(Buffer &buffer) {
  return buffer.i;
}

/// "file:line:col: 'arith.divsi'" for messages.
std::string describe(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto loc = op->getLoc()->findInstanceOf<FileLineColLoc>())
    os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
       << loc.getColumn();
  else
    os << op->getLoc();
  os << ": '" << op->getName() << "'";
  return text;
}

/// What the closures need to know about a value's type.
struct ValueType {
  Elem elem = Elem::F32;
  SmallVector<int64_t, 4> shape;
  int64_t numElements = 1;
  bool isTile = false;
};

/// Row-major strides of `shape`.
SmallVector<int64_t, 4> rowMajor(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int k = static_cast<int>(shape.size()) - 2; k >= 0; --k)
    strides[k] = strides[k + 1] * shape[k + 1];
  return strides;
}

AxisShape axisShape(ArrayRef<int64_t> shape, int64_t axis) {
  AxisShape s;
  for (int64_t k = 0; k < static_cast<int64_t>(shape.size()); ++k) {
    if (k < axis)
      s.outer *= shape[k];
    else if (k == axis)
      s.length = shape[k];
    else
      s.inner *= shape[k];
  }
  return s;
}

/// Moves values between slots at the end of a region (yields) without
/// copying where it is safe: a value defined by an op of the yielding block
/// is recomputed before its next use, so its storage can be swapped into the
/// destination. A source that is also another destination (a loop yielding
/// its iteration arguments in another order) goes through a temporary; one
/// that is its own destination (an argument passed through) stays.
struct Transfer {
  enum Mode : uint8_t { Copy, Swap, ViaTemp, Keep };
  std::vector<unsigned> src, dst;
  std::vector<Mode> mode;
  bool needsTemp = false;

  void run(Frame &f) const {
    SmallVector<Buffer, 2> temps;
    if (needsTemp)
      for (size_t j = 0; j < src.size(); ++j)
        if (mode[j] == ViaTemp)
          temps.push_back(f.slots[src[j]]);
    for (size_t j = 0; j < src.size(); ++j) {
      if (mode[j] == Copy)
        f.slots[dst[j]] = f.slots[src[j]];
      else if (mode[j] == Swap)
        std::swap(f.slots[dst[j]], f.slots[src[j]]);
    }
    if (needsTemp) {
      size_t t = 0;
      for (size_t j = 0; j < src.size(); ++j)
        if (mode[j] == ViaTemp)
          f.slots[dst[j]] = std::move(temps[t++]);
    }
  }
};

//===----------------------------------------------------------------------===//
// Elementwise closures
//===----------------------------------------------------------------------===//

template <typename Fn>
Instr floatUnary(unsigned a, unsigned r, int64_t n, Elem elem, Fn fn) {
  return [=](Frame &f) {
    std::vector<float> &out = f.slots[r].f;
    out.resize(n);
    const float *x = f.slots[a].f.data();
    for (int64_t k = 0; k < n; ++k)
      out[k] = fn(x[k]);
    roundFloats(elem, out.data(), n);
    return true;
  };
}

template <typename Fn>
Instr floatBinary(unsigned a, unsigned b, unsigned r, int64_t n, Elem elem,
                  Fn fn) {
  return [=](Frame &f) {
    std::vector<float> &out = f.slots[r].f;
    out.resize(n);
    const float *x = f.slots[a].f.data(), *y = f.slots[b].f.data();
    for (int64_t k = 0; k < n; ++k)
      out[k] = fn(x[k], y[k]);
    roundFloats(elem, out.data(), n);
    return true;
  };
}

template <typename Fn>
Instr intUnary(unsigned a, unsigned r, int64_t n, Elem elem, Fn fn) {
  return [=](Frame &f) {
    std::vector<int64_t> &out = f.slots[r].i;
    out.resize(n);
    const int64_t *x = f.slots[a].i.data();
    for (int64_t k = 0; k < n; ++k)
      out[k] = fn(x[k]);
    normalizeInts(elem, out.data(), n);
    return true;
  };
}

/// `fn` computes on sign-extended operands; its result is sign-extended
/// from the element's width afterwards. With `where` set, a zero divisor (in
/// the element's width) is reported as undefined behaviour.
template <typename Fn>
Instr intBinary(unsigned a, unsigned b, unsigned r, int64_t n, Elem elem,
                Fn fn, std::string where = {}) {
  uint64_t mask = widthMask(bitWidth(elem));
  return [=](Frame &f) {
    std::vector<int64_t> &out = f.slots[r].i;
    out.resize(n);
    const int64_t *x = f.slots[a].i.data(), *y = f.slots[b].i.data();
    if (!where.empty())
      for (int64_t k = 0; k < n; ++k)
        if ((static_cast<uint64_t>(y[k]) & mask) == 0) {
          f.error = where + ": integer division by zero";
          return false;
        }
    for (int64_t k = 0; k < n; ++k)
      out[k] = fn(x[k], y[k]);
    normalizeInts(elem, out.data(), n);
    return true;
  };
}

template <typename T, typename Pred>
Instr compare(unsigned a, unsigned b, unsigned r, int64_t n, Pred pred) {
  return [=](Frame &f) {
    std::vector<int64_t> &out = f.slots[r].i;
    out.resize(n);
    const T *x = storage<T>(f.slots[a]).data();
    const T *y = storage<T>(f.slots[b]).data();
    for (int64_t k = 0; k < n; ++k)
      out[k] = pred(x[k], y[k]) ? -1 : 0;
    return true;
  };
}

/// result = cond ? t : f, elementwise for a tile condition, for the whole
/// value for a scalar one.
template <typename T>
Instr select(unsigned c, unsigned t, unsigned e, unsigned r, int64_t n,
             bool scalarCondition) {
  if (scalarCondition)
    return [=](Frame &f) {
      storage<T>(f.slots[r]) = storage<T>(f.slots[f.slots[c].i[0] ? t : e]);
      return true;
    };
  return [=](Frame &f) {
    std::vector<T> &out = storage<T>(f.slots[r]);
    out.resize(n);
    const int64_t *cond = f.slots[c].i.data();
    const T *x = storage<T>(f.slots[t]).data();
    const T *y = storage<T>(f.slots[e]).data();
    for (int64_t k = 0; k < n; ++k)
      out[k] = cond[k] ? x[k] : y[k];
    return true;
  };
}

template <typename T> Instr copyValue(unsigned a, unsigned r) {
  return [=](Frame &f) {
    storage<T>(f.slots[r]) = storage<T>(f.slots[a]);
    return true;
  };
}

/// How an integer source is read when it is widened or converted.
enum class IntRead { Signed, Unsigned };

inline uint64_t unsignedValue(int64_t v, uint64_t mask) {
  return static_cast<uint64_t>(v) & mask;
}

Instr intToFloat(unsigned a, unsigned r, int64_t n, Elem from, Elem to,
                 IntRead read) {
  uint64_t mask = widthMask(bitWidth(from));
  return [=](Frame &f) {
    std::vector<float> &out = f.slots[r].f;
    out.resize(n);
    const int64_t *x = f.slots[a].i.data();
    for (int64_t k = 0; k < n; ++k) {
      if (read == IntRead::Unsigned)
        out[k] = integerToFloat(unsignedValue(x[k], mask), false, to);
      else if (x[k] < 0)
        out[k] = integerToFloat(0 - static_cast<uint64_t>(x[k]), true, to);
      else
        out[k] = integerToFloat(static_cast<uint64_t>(x[k]), false, to);
    }
    return true;
  };
}

Instr floatToInt(unsigned a, unsigned r, int64_t n, Elem to, bool isUnsigned) {
  unsigned width = bitWidth(to);
  return [=](Frame &f) {
    std::vector<int64_t> &out = f.slots[r].i;
    out.resize(n);
    const float *x = f.slots[a].f.data();
    for (int64_t k = 0; k < n; ++k)
      out[k] = floatToInteger(x[k], width, isUnsigned);
    return true;
  };
}

Instr floatToFloat(unsigned a, unsigned r, int64_t n, Elem to, Rounding mode) {
  return [=](Frame &f) {
    std::vector<float> &out = f.slots[r].f;
    out = f.slots[a].f;
    roundFloats(to, out.data(), n, mode);
    return true;
  };
}

Instr intToInt(unsigned a, unsigned r, int64_t n, Elem from, Elem to,
               IntRead read) {
  uint64_t mask = widthMask(bitWidth(from));
  unsigned width = bitWidth(to);
  return [=](Frame &f) {
    std::vector<int64_t> &out = f.slots[r].i;
    out.resize(n);
    const int64_t *x = f.slots[a].i.data();
    for (int64_t k = 0; k < n; ++k) {
      int64_t v = read == IntRead::Unsigned
                      ? static_cast<int64_t>(unsignedValue(x[k], mask))
                      : x[k];
      out[k] = signExtend(v, width);
    }
    return true;
  };
}

//===----------------------------------------------------------------------===//
// Float functions
//===----------------------------------------------------------------------===//

float maximumF(float x, float y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<float>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? y : x;
  return x > y ? x : y;
}
float minimumF(float x, float y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<float>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}
float maxNumF(float x, float y) {
  if (std::isnan(x))
    return y;
  if (std::isnan(y))
    return x;
  return maximumF(x, y);
}
float minNumF(float x, float y) {
  if (std::isnan(x))
    return y;
  if (std::isnan(y))
    return x;
  return minimumF(x, y);
}

//===----------------------------------------------------------------------===//
// The compiler
//===----------------------------------------------------------------------===//

class Compiler {
public:
  Compiler(tile::KernelOp kernel, Program &program, std::string &error)
      : kernel(kernel), program(program), error(error) {}

  LogicalResult run();

private:
  LogicalResult fail(Operation *op, const Twine &message) {
    error = describe(op) + ": " + message.str();
    return failure();
  }

  FailureOr<Elem> elemOf(Type type, Operation *op);
  FailureOr<ValueType> typeOf(Value value, Operation *op);
  unsigned define(Value value) {
    unsigned slot = program.numSlots++;
    slots[value] = slot;
    return slot;
  }
  FailureOr<unsigned> use(Value value, Operation *op);
  FailureOr<unsigned> viewArg(Value value, Operation *op);

  LogicalResult compileBlock(Block &block, Instrs &out);
  LogicalResult compileOp(Operation *op, Instrs &out);
  Transfer makeTransfer(Operation::operand_range sources,
                        ArrayRef<unsigned> destinations, Block *block);

  LogicalResult compileConstant(arith::ConstantOp op);
  LogicalResult compileArith(Operation *op, Instrs &out, bool &handled);
  LogicalResult compileCast(Operation *op, Instrs &out, bool &handled);
  LogicalResult compileMath(Operation *op, Instrs &out, bool &handled);
  LogicalResult compileTile(Operation *op, Instrs &out, bool &handled);
  LogicalResult compileAccess(Operation *op, Value view, ValueRange indices,
                              std::optional<ArrayRef<int64_t>> order,
                              Value tile, bool isLoad, tile::Padding padding,
                              Instrs &out);
  LogicalResult compileFor(scf::ForOp op, Instrs &out);
  LogicalResult compileIf(scf::IfOp op, Instrs &out);
  LogicalResult compileWhile(scf::WhileOp op, Instrs &out);

  tile::KernelOp kernel;
  Program &program;
  std::string &error;
  llvm::DenseMap<Value, unsigned> slots;
  llvm::DenseMap<Value, unsigned> views;
  /// Slots set once per frame (constants): never swapped away.
  llvm::DenseSet<unsigned> hoisted;
};

FailureOr<Elem> Compiler::elemOf(Type type, Operation *op) {
  if (type.isF32())
    return Elem::F32;
  if (type.isF16())
    return Elem::F16;
  if (type.isBF16())
    return Elem::BF16;
  if (isa<FloatTF32Type>(type))
    return Elem::TF32;
  if (type.isIndex())
    return Elem::Index;
  if (type.isSignlessInteger(1))
    return Elem::I1;
  if (type.isSignlessInteger(8))
    return Elem::I8;
  if (type.isSignlessInteger(16))
    return Elem::I16;
  if (type.isSignlessInteger(32))
    return Elem::I32;
  if (type.isSignlessInteger(64))
    return Elem::I64;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return fail(op, "the interpreter does not hold values of type " + text);
}

FailureOr<ValueType> Compiler::typeOf(Value value, Operation *op) {
  ValueType result;
  Type type = value.getType();
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    if (!tensor.hasStaticShape())
      return fail(op, "a " + tile::formatTileShape(tensor) +
                          " tile has an unbound extent; bind the kernel's "
                          "parameters first (tile-bind-params)");
    if (tensor.getRank() > 8)
      return fail(op, "tiles have at most 8 dimensions");
    result.isTile = true;
    result.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    result.numElements = tensor.getNumElements();
    type = tensor.getElementType();
  }
  FailureOr<Elem> elem = elemOf(type, op);
  if (failed(elem))
    return failure();
  result.elem = *elem;
  return result;
}

FailureOr<unsigned> Compiler::use(Value value, Operation *op) {
  auto it = slots.find(value);
  if (it == slots.end()) {
    if (isa<tile::ViewType>(value.getType()))
      return fail(op, "a view is used as a value; views are only read by "
                      "tile.load, tile.store and tile.dim");
    return fail(op, "uses a value the interpreter did not define");
  }
  return it->second;
}

FailureOr<unsigned> Compiler::viewArg(Value value, Operation *op) {
  auto it = views.find(value);
  if (it == views.end())
    return fail(op, "views must be kernel arguments");
  return it->second;
}

Transfer Compiler::makeTransfer(Operation::operand_range sources,
                                ArrayRef<unsigned> destinations,
                                Block *block) {
  Transfer transfer;
  transfer.dst.assign(destinations.begin(), destinations.end());
  for (Value source : sources) {
    unsigned slot = slots.lookup(source);
    Transfer::Mode mode = Transfer::Copy;
    Operation *def = source.getDefiningOp();
    if (transfer.src.size() < destinations.size() &&
        destinations[transfer.src.size()] == slot)
      mode = Transfer::Keep;
    else if (llvm::is_contained(destinations, slot))
      mode = Transfer::ViaTemp;
    else if (def && def->getBlock() == block && !hoisted.contains(slot) &&
             llvm::count(sources, source) == 1)
      mode = Transfer::Swap;
    transfer.needsTemp |= mode == Transfer::ViaTemp;
    transfer.src.push_back(slot);
    transfer.mode.push_back(mode);
  }
  return transfer;
}

LogicalResult Compiler::run() {
  Block &entry = kernel.getBody().front();
  program.numArgs = entry.getNumArguments();
  for (BlockArgument arg : entry.getArguments()) {
    if (auto view = dyn_cast<tile::ViewType>(arg.getType())) {
      DType dtype;
      Type elem = view.getElementType();
      if (elem.isF32())
        dtype = DType::F32;
      else if (elem.isF16())
        dtype = DType::F16;
      else if (elem.isBF16())
        dtype = DType::BF16;
      else if (elem.isSignlessInteger(8))
        dtype = DType::I8;
      else if (elem.isSignlessInteger(16))
        dtype = DType::I16;
      else if (elem.isSignlessInteger(32))
        dtype = DType::I32;
      else if (elem.isSignlessInteger(64))
        dtype = DType::I64;
      else
        return fail(kernel, "a view of an element type the interpreter does "
                            "not read");
      views[arg] = arg.getArgNumber();
      program.views.push_back({arg.getArgNumber(), view.getRank(), dtype});
      continue;
    }
    FailureOr<ValueType> type = typeOf(arg, kernel);
    if (failed(type))
      return failure();
    if (type->isTile)
      return fail(kernel, "kernel arguments are views or scalars");
    program.scalars.push_back({arg.getArgNumber(), define(arg), type->elem});
  }
  return compileBlock(entry, program.body);
}

LogicalResult Compiler::compileBlock(Block &block, Instrs &out) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    if (failed(compileOp(&op, out)))
      return failure();
  }
  return success();
}

LogicalResult Compiler::compileOp(Operation *op, Instrs &out) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return compileConstant(constant);
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return compileFor(loop, out);
  if (auto branch = dyn_cast<scf::IfOp>(op))
    return compileIf(branch, out);
  if (auto loop = dyn_cast<scf::WhileOp>(op))
    return compileWhile(loop, out);
  bool handled = false;
  for (auto compile : {&Compiler::compileTile, &Compiler::compileArith,
                       &Compiler::compileCast, &Compiler::compileMath}) {
    if (failed((this->*compile)(op, out, handled)))
      return failure();
    if (handled)
      return success();
  }
  if (isa<tile::ParamOp>(op))
    return fail(op, "parameter '" +
                        cast<tile::ParamOp>(op).getName(0).str() +
                        "' is not bound; run tile-bind-params first");
  return fail(op, "the interpreter does not implement this op");
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

LogicalResult Compiler::compileConstant(arith::ConstantOp op) {
  FailureOr<ValueType> type = typeOf(op.getResult(), op);
  if (failed(type))
    return failure();
  Buffer buffer;
  Attribute value = op.getValue();
  bool isFloatElem = isFloat(type->elem);
  auto floatOf = [&](const APFloat &v) {
    bool lost;
    APFloat copy = v;
    copy.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    return copy.convertToFloat();
  };
  if (auto attr = dyn_cast<FloatAttr>(value)) {
    buffer.f.assign(1, floatOf(attr.getValue()));
  } else if (auto attr = dyn_cast<IntegerAttr>(value)) {
    buffer.i.assign(1, attr.getValue().getSExtValue());
  } else if (auto attr = dyn_cast<DenseElementsAttr>(value)) {
    if (isFloatElem)
      for (const APFloat &v : attr.getValues<APFloat>())
        buffer.f.push_back(floatOf(v));
    else
      for (const APInt &v : attr.getValues<APInt>())
        buffer.i.push_back(v.getSExtValue());
  } else {
    return fail(op, "the interpreter reads only float, integer and dense "
                    "constants");
  }
  // Values of a narrow type are exact already; normalise defensively in case
  // an attribute carried more bits than its type.
  if (isFloatElem)
    roundFloats(type->elem, buffer.f.data(), buffer.f.size());
  else
    normalizeInts(type->elem, buffer.i.data(), buffer.i.size());
  unsigned slot = define(op.getResult());
  hoisted.insert(slot);
  program.constants.emplace_back(slot, std::move(buffer));
  return success();
}

//===----------------------------------------------------------------------===//
// arith
//===----------------------------------------------------------------------===//

LogicalResult Compiler::compileArith(Operation *op, Instrs &out,
                                     bool &handled) {
  if (op->getDialect() == nullptr ||
      op->getDialect()->getNamespace() != "arith")
    return success();
  if (op->getNumResults() != 1)
    return success();
  FailureOr<ValueType> type = typeOf(op->getResult(0), op);
  if (failed(type))
    return failure();
  SmallVector<unsigned, 3> in;
  for (Value operand : op->getOperands()) {
    FailureOr<unsigned> slot = use(operand, op);
    if (failed(slot))
      return failure();
    in.push_back(*slot);
  }
  Elem e = type->elem;
  int64_t n = type->numElements;
  uint64_t mask = widthMask(bitWidth(e));
  unsigned width = bitWidth(e);

  // Defer defining the result until the op is known: an op left unhandled
  // here must not take a slot.
  auto emit = [&](Instr instr) {
    define(op->getResult(0));
    out.push_back(std::move(instr));
    handled = true;
    return success();
  };
  auto r = [&] { return program.numSlots; };

  // Float arithmetic.
  if (isa<arith::AddFOp>(op))
    return emit(floatBinary(in[0], in[1], r(), n, e,
                            [](float x, float y) { return x + y; }));
  if (isa<arith::SubFOp>(op))
    return emit(floatBinary(in[0], in[1], r(), n, e,
                            [](float x, float y) { return x - y; }));
  if (isa<arith::MulFOp>(op))
    return emit(floatBinary(in[0], in[1], r(), n, e,
                            [](float x, float y) { return x * y; }));
  if (isa<arith::DivFOp>(op))
    return emit(floatBinary(in[0], in[1], r(), n, e,
                            [](float x, float y) { return x / y; }));
  if (isa<arith::RemFOp>(op))
    return emit(floatBinary(in[0], in[1], r(), n, e,
                            [](float x, float y) { return std::fmod(x, y); }));
  if (isa<arith::MaximumFOp>(op))
    return emit(floatBinary(in[0], in[1], r(), n, e,
                            [](float x, float y) { return maximumF(x, y); }));
  if (isa<arith::MinimumFOp>(op))
    return emit(floatBinary(in[0], in[1], r(), n, e,
                            [](float x, float y) { return minimumF(x, y); }));
  if (isa<arith::MaxNumFOp>(op))
    return emit(floatBinary(in[0], in[1], r(), n, e,
                            [](float x, float y) { return maxNumF(x, y); }));
  if (isa<arith::MinNumFOp>(op))
    return emit(floatBinary(in[0], in[1], r(), n, e,
                            [](float x, float y) { return minNumF(x, y); }));
  if (isa<arith::NegFOp>(op))
    return emit(floatUnary(in[0], r(), n, e, [](float x) { return -x; }));

  // Integer arithmetic, wrapping at the element's width.
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  auto s = [](uint64_t v) { return static_cast<int64_t>(v); };
  if (isa<arith::AddIOp>(op))
    return emit(intBinary(in[0], in[1], r(), n, e, [=](int64_t x, int64_t y) {
      return s(u(x) + u(y));
    }));
  if (isa<arith::SubIOp>(op))
    return emit(intBinary(in[0], in[1], r(), n, e, [=](int64_t x, int64_t y) {
      return s(u(x) - u(y));
    }));
  if (isa<arith::MulIOp>(op))
    return emit(intBinary(in[0], in[1], r(), n, e, [=](int64_t x, int64_t y) {
      return s(u(x) * u(y));
    }));
  std::string where = describe(op);
  // Signed division: the one overflow, MIN / -1, wraps to MIN.
  if (isa<arith::DivSIOp>(op))
    return emit(intBinary(
        in[0], in[1], r(), n, e,
        [=](int64_t x, int64_t y) { return y == -1 ? s(0 - u(x)) : x / y; },
        where));
  if (isa<arith::RemSIOp>(op))
    return emit(intBinary(
        in[0], in[1], r(), n, e,
        [](int64_t x, int64_t y) { return y == -1 ? 0 : x % y; }, where));
  if (isa<arith::CeilDivSIOp>(op))
    return emit(intBinary(
        in[0], in[1], r(), n, e,
        [=](int64_t x, int64_t y) -> int64_t {
          if (y == -1)
            return s(0 - u(x));
          int64_t q = x / y;
          return (x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;
        },
        where));
  if (isa<arith::FloorDivSIOp>(op))
    return emit(intBinary(
        in[0], in[1], r(), n, e,
        [=](int64_t x, int64_t y) -> int64_t {
          if (y == -1)
            return s(0 - u(x));
          int64_t q = x / y;
          return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
        },
        where));
  if (isa<arith::DivUIOp>(op))
    return emit(intBinary(
        in[0], in[1], r(), n, e,
        [=](int64_t x, int64_t y) { return s((u(x) & mask) / (u(y) & mask)); },
        where));
  if (isa<arith::RemUIOp>(op))
    return emit(intBinary(
        in[0], in[1], r(), n, e,
        [=](int64_t x, int64_t y) { return s((u(x) & mask) % (u(y) & mask)); },
        where));
  if (isa<arith::CeilDivUIOp>(op))
    return emit(intBinary(
        in[0], in[1], r(), n, e,
        [=](int64_t x, int64_t y) {
          uint64_t a = u(x) & mask, b = u(y) & mask;
          return s(a / b + (a % b != 0));
        },
        where));
  if (isa<arith::MaxSIOp>(op))
    return emit(intBinary(in[0], in[1], r(), n, e,
                          [](int64_t x, int64_t y) { return std::max(x, y); }));
  if (isa<arith::MinSIOp>(op))
    return emit(intBinary(in[0], in[1], r(), n, e,
                          [](int64_t x, int64_t y) { return std::min(x, y); }));
  if (isa<arith::MaxUIOp>(op))
    return emit(intBinary(in[0], in[1], r(), n, e, [=](int64_t x, int64_t y) {
      return (u(x) & mask) >= (u(y) & mask) ? x : y;
    }));
  if (isa<arith::MinUIOp>(op))
    return emit(intBinary(in[0], in[1], r(), n, e, [=](int64_t x, int64_t y) {
      return (u(x) & mask) <= (u(y) & mask) ? x : y;
    }));
  if (isa<arith::AndIOp>(op))
    return emit(intBinary(in[0], in[1], r(), n, e,
                          [](int64_t x, int64_t y) { return x & y; }));
  if (isa<arith::OrIOp>(op))
    return emit(intBinary(in[0], in[1], r(), n, e,
                          [](int64_t x, int64_t y) { return x | y; }));
  if (isa<arith::XOrIOp>(op))
    return emit(intBinary(in[0], in[1], r(), n, e,
                          [](int64_t x, int64_t y) { return x ^ y; }));
  // Shifts by the width or more are poison in arith; here they shift every
  // bit out.
  if (isa<arith::ShLIOp>(op))
    return emit(intBinary(in[0], in[1], r(), n, e, [=](int64_t x, int64_t y) {
      uint64_t amount = u(y) & mask;
      return amount >= width ? 0 : s(u(x) << amount);
    }));
  if (isa<arith::ShRSIOp>(op))
    return emit(intBinary(in[0], in[1], r(), n, e, [=](int64_t x, int64_t y) {
      uint64_t amount = u(y) & mask;
      return amount >= width ? (x < 0 ? -1 : 0) : x >> amount;
    }));
  if (isa<arith::ShRUIOp>(op))
    return emit(intBinary(in[0], in[1], r(), n, e, [=](int64_t x, int64_t y) {
      uint64_t amount = u(y) & mask;
      return amount >= width ? 0 : s((u(x) & mask) >> amount);
    }));

  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    using P = arith::CmpFPredicate;
    auto un = [](float x, float y) { return std::isnan(x) || std::isnan(y); };
    auto c = [&](auto pred) {
      return emit(compare<float>(in[0], in[1], r(), n, pred));
    };
    switch (cmp.getPredicate()) {
    case P::AlwaysFalse:
      return c([](float, float) { return false; });
    case P::OEQ:
      return c([](float x, float y) { return x == y; });
    case P::OGT:
      return c([](float x, float y) { return x > y; });
    case P::OGE:
      return c([](float x, float y) { return x >= y; });
    case P::OLT:
      return c([](float x, float y) { return x < y; });
    case P::OLE:
      return c([](float x, float y) { return x <= y; });
    case P::ONE:
      return c([=](float x, float y) { return !un(x, y) && x != y; });
    case P::ORD:
      return c([=](float x, float y) { return !un(x, y); });
    case P::UEQ:
      return c([=](float x, float y) { return un(x, y) || x == y; });
    case P::UGT:
      return c([=](float x, float y) { return un(x, y) || x > y; });
    case P::UGE:
      return c([=](float x, float y) { return un(x, y) || x >= y; });
    case P::ULT:
      return c([=](float x, float y) { return un(x, y) || x < y; });
    case P::ULE:
      return c([=](float x, float y) { return un(x, y) || x <= y; });
    case P::UNE:
      return c([](float x, float y) { return x != y; });
    case P::UNO:
      return c(un);
    case P::AlwaysTrue:
      return c([](float, float) { return true; });
    }
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    FailureOr<ValueType> operand = typeOf(cmp.getLhs(), op);
    if (failed(operand))
      return failure();
    uint64_t m = widthMask(bitWidth(operand->elem));
    auto c = [&](auto pred) {
      return emit(compare<int64_t>(in[0], in[1], r(), n, pred));
    };
    switch (cmp.getPredicate()) {
    case P::eq:
      return c([](int64_t x, int64_t y) { return x == y; });
    case P::ne:
      return c([](int64_t x, int64_t y) { return x != y; });
    case P::slt:
      return c([](int64_t x, int64_t y) { return x < y; });
    case P::sle:
      return c([](int64_t x, int64_t y) { return x <= y; });
    case P::sgt:
      return c([](int64_t x, int64_t y) { return x > y; });
    case P::sge:
      return c([](int64_t x, int64_t y) { return x >= y; });
    case P::ult:
      return c([=](int64_t x, int64_t y) { return (u(x) & m) < (u(y) & m); });
    case P::ule:
      return c([=](int64_t x, int64_t y) { return (u(x) & m) <= (u(y) & m); });
    case P::ugt:
      return c([=](int64_t x, int64_t y) { return (u(x) & m) > (u(y) & m); });
    case P::uge:
      return c([=](int64_t x, int64_t y) { return (u(x) & m) >= (u(y) & m); });
    }
  }
  if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    bool scalarCondition = !isa<RankedTensorType>(sel.getCondition().getType());
    if (isFloat(e))
      return emit(select<float>(in[0], in[1], in[2], r(), n, scalarCondition));
    return emit(select<int64_t>(in[0], in[1], in[2], r(), n, scalarCondition));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

LogicalResult Compiler::compileCast(Operation *op, Instrs &out,
                                    bool &handled) {
  if (!isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::SIToFPOp,
           arith::UIToFPOp, arith::FPToSIOp, arith::FPToUIOp, arith::ExtFOp,
           arith::TruncFOp, arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
           arith::BitcastOp, tile::ConvertOp>(op))
    return success();
  FailureOr<ValueType> from = typeOf(op->getOperand(0), op);
  FailureOr<ValueType> to = typeOf(op->getResult(0), op);
  if (failed(from) || failed(to))
    return failure();
  FailureOr<unsigned> source = use(op->getOperand(0), op);
  if (failed(source))
    return failure();
  unsigned a = *source;
  Elem f = from->elem, t = to->elem;
  int64_t n = to->numElements;
  unsigned r = program.numSlots;
  auto emit = [&](Instr instr) {
    define(op->getResult(0));
    out.push_back(std::move(instr));
    handled = true;
    return success();
  };

  if (isa<tile::ConvertOp>(op)) {
    // i1 reads as 0 or 1; other integers are signed.
    IntRead read = f == Elem::I1 ? IntRead::Unsigned : IntRead::Signed;
    if (isFloat(f) && isFloat(t))
      return emit(floatToFloat(a, r, n, t,
                               t == Elem::TF32 ? Rounding::NearestAway
                                               : Rounding::NearestEven));
    if (isFloat(f))
      return emit(floatToInt(a, r, n, t, /*isUnsigned=*/t == Elem::I1));
    if (isFloat(t))
      return emit(intToFloat(a, r, n, f, t, read));
    return emit(intToInt(a, r, n, f, t, read));
  }
  if (isa<arith::SIToFPOp>(op))
    return emit(intToFloat(a, r, n, f, t, IntRead::Signed));
  if (isa<arith::UIToFPOp>(op))
    return emit(intToFloat(a, r, n, f, t, IntRead::Unsigned));
  if (isa<arith::FPToSIOp>(op))
    return emit(floatToInt(a, r, n, t, /*isUnsigned=*/false));
  if (isa<arith::FPToUIOp>(op))
    return emit(floatToInt(a, r, n, t, /*isUnsigned=*/true));
  if (isa<arith::ExtFOp>(op))
    return emit(floatToFloat(a, r, n, t, Rounding::NearestEven));
  if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
    Rounding mode = Rounding::NearestEven;
    if (std::optional<arith::RoundingMode> given = trunc.getRoundingmode()) {
      if (*given == arith::RoundingMode::to_nearest_away)
        mode = Rounding::NearestAway;
      else if (*given != arith::RoundingMode::to_nearest_even)
        return fail(op, "the interpreter rounds to nearest only "
                        "(to_nearest_even or to_nearest_away)");
    }
    return emit(floatToFloat(a, r, n, t, mode));
  }
  if (isa<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(op))
    return emit(intToInt(a, r, n, f, t, IntRead::Signed));
  if (isa<arith::ExtUIOp, arith::IndexCastUIOp>(op))
    return emit(intToInt(a, r, n, f, t, IntRead::Unsigned));

  // Bitcasts between types of one width.
  if (isFloat(f) == isFloat(t)) {
    if (isFloat(f))
      return emit(copyValue<float>(a, r));
    return emit(copyValue<int64_t>(a, r));
  }
  if (isFloat(f)) {
    return emit([=](Frame &fr) {
      std::vector<int64_t> &o = fr.slots[r].i;
      o.resize(n);
      const float *x = fr.slots[a].f.data();
      for (int64_t k = 0; k < n; ++k) {
        if (f == Elem::F16)
          o[k] = signExtend(floatToF16Bits(x[k]), 16);
        else if (f == Elem::BF16)
          o[k] = signExtend(floatToBF16Bits(x[k]), 16);
        else
          o[k] = signExtend(floatBits(x[k]), 32);
      }
      return true;
    });
  }
  return emit([=](Frame &fr) {
    std::vector<float> &o = fr.slots[r].f;
    o.resize(n);
    const int64_t *x = fr.slots[a].i.data();
    for (int64_t k = 0; k < n; ++k) {
      if (t == Elem::F16)
        o[k] = f16BitsToFloat(static_cast<uint16_t>(x[k]));
      else if (t == Elem::BF16)
        o[k] = bf16BitsToFloat(static_cast<uint16_t>(x[k]));
      else
        o[k] = bitsFloat(static_cast<uint32_t>(x[k]));
    }
    // A tf32 bitcast from i32 keeps only what tf32 holds.
    roundFloats(t, o.data(), n);
    return true;
  });
}

//===----------------------------------------------------------------------===//
// math
//===----------------------------------------------------------------------===//

LogicalResult Compiler::compileMath(Operation *op, Instrs &out,
                                    bool &handled) {
  if (op->getDialect() == nullptr ||
      op->getDialect()->getNamespace() != "math" || op->getNumResults() != 1)
    return success();
  FailureOr<ValueType> type = typeOf(op->getResult(0), op);
  if (failed(type))
    return failure();
  SmallVector<unsigned, 3> in;
  for (Value operand : op->getOperands()) {
    FailureOr<unsigned> slot = use(operand, op);
    if (failed(slot))
      return failure();
    in.push_back(*slot);
  }
  Elem e = type->elem;
  int64_t n = type->numElements;
  unsigned r = program.numSlots;
  auto emit = [&](Instr instr) {
    define(op->getResult(0));
    out.push_back(std::move(instr));
    handled = true;
    return success();
  };
  // Generic, so that each function gets its own inlined element loop.
  auto unary = [&](auto fn) { return emit(floatUnary(in[0], r, n, e, fn)); };
  auto binary = [&](auto fn) {
    return emit(floatBinary(in[0], in[1], r, n, e, fn));
  };
  if (!isFloat(e)) {
    if (isa<math::AbsIOp>(op))
      return emit(intUnary(in[0], r, n, e, [](int64_t x) {
        return x < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(x)) : x;
      }));
    return success();
  }
  // Each function is the host library's f32 one, rounded to the element
  // type.
  if (isa<math::ExpOp>(op))
    return unary([](float x) { return std::exp(x); });
  if (isa<math::Exp2Op>(op))
    return unary([](float x) { return std::exp2(x); });
  if (isa<math::ExpM1Op>(op))
    return unary([](float x) { return std::expm1(x); });
  if (isa<math::LogOp>(op))
    return unary([](float x) { return std::log(x); });
  if (isa<math::Log2Op>(op))
    return unary([](float x) { return std::log2(x); });
  if (isa<math::Log10Op>(op))
    return unary([](float x) { return std::log10(x); });
  if (isa<math::Log1pOp>(op))
    return unary([](float x) { return std::log1p(x); });
  if (isa<math::SqrtOp>(op))
    return unary([](float x) { return std::sqrt(x); });
  if (isa<math::RsqrtOp>(op))
    return unary([](float x) {
      return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x)));
    });
  if (isa<math::AbsFOp>(op))
    return unary([](float x) { return std::fabs(x); });
  if (isa<math::TanhOp>(op))
    return unary([](float x) { return std::tanh(x); });
  if (isa<math::SinOp>(op))
    return unary([](float x) { return std::sin(x); });
  if (isa<math::CosOp>(op))
    return unary([](float x) { return std::cos(x); });
  if (isa<math::ErfOp>(op))
    return unary([](float x) { return std::erf(x); });
  if (isa<math::AtanOp>(op))
    return unary([](float x) { return std::atan(x); });
  if (isa<math::FloorOp>(op))
    return unary([](float x) { return std::floor(x); });
  if (isa<math::CeilOp>(op))
    return unary([](float x) { return std::ceil(x); });
  if (isa<math::TruncOp>(op))
    return unary([](float x) { return std::trunc(x); });
  if (isa<math::RoundOp>(op))
    return unary([](float x) { return std::round(x); });
  if (isa<math::RoundEvenOp>(op))
    return unary([](float x) { return std::nearbyint(x); });
  if (isa<math::PowFOp>(op))
    return binary([](float x, float y) { return std::pow(x, y); });
  if (isa<math::Atan2Op>(op))
    return binary([](float x, float y) { return std::atan2(x, y); });
  if (isa<math::CopySignOp>(op))
    return binary([](float x, float y) { return std::copysign(x, y); });
  if (isa<math::FmaOp>(op)) {
    unsigned a = in[0], b = in[1], c = in[2];
    return emit([=](Frame &f) {
      std::vector<float> &o = f.slots[r].f;
      o.resize(n);
      const float *x = f.slots[a].f.data(), *y = f.slots[b].f.data(),
                  *z = f.slots[c].f.data();
      for (int64_t k = 0; k < n; ++k)
        o[k] = std::fma(x[k], y[k], z[k]);
      roundFloats(e, o.data(), n);
      return true;
    });
  }
  return success();
}

//===----------------------------------------------------------------------===//
// tile
//===----------------------------------------------------------------------===//

LogicalResult Compiler::compileAccess(Operation *op, Value view,
                                      ValueRange indices,
                                      std::optional<ArrayRef<int64_t>> order,
                                      Value tile, bool isLoad,
                                      tile::Padding padding, Instrs &out) {
  FailureOr<unsigned> arg = viewArg(view, op);
  FailureOr<ValueType> type = typeOf(tile, op);
  if (failed(arg) || failed(type))
    return failure();
  unsigned rank = type->shape.size();
  std::array<unsigned, 8> indexSlots{}, perm{};
  std::array<int64_t, 8> shape{};
  for (unsigned k = 0; k < rank; ++k) {
    FailureOr<unsigned> slot = use(indices[k], op);
    if (failed(slot))
      return failure();
    indexSlots[k] = *slot;
    perm[k] = order ? (*order)[k] : k;
    shape[k] = type->shape[k];
  }
  bool isFloatElem = isFloat(type->elem);
  float pad = 0.0f;
  switch (padding) {
  case tile::Padding::zero:
    break;
  case tile::Padding::nan:
    pad = std::numeric_limits<float>::quiet_NaN();
    break;
  case tile::Padding::neg_inf:
    pad = -INFINITY;
    break;
  case tile::Padding::pos_inf:
    pad = INFINITY;
    break;
  }
  int64_t n = type->numElements;

  // For tile dimension k, view dimension perm[k]: the tile's element r_k
  // sits at view coordinate indices[perm[k]] * shape[k] + r_k.
  auto geometry = [=](Frame &f, TileGeometry &g) {
    const ViewArg &v = f.views[*arg];
    g.rank = rank;
    for (unsigned k = 0; k < rank; ++k) {
      unsigned d = perm[k];
      int64_t index = f.slots[indexSlots[d]].i[0], base;
      // A tile index so large that its first element's coordinate
      // overflows lies outside every view.
      if (__builtin_mul_overflow(index, shape[k], &base))
        base = index < 0 ? std::numeric_limits<int64_t>::min() / 2
                         : std::numeric_limits<int64_t>::max() / 2;
      g.shape[k] = shape[k];
      g.base[k] = base;
      g.limit[k] = v.shape[d];
      g.stride[k] = v.strides[d];
    }
  };
  if (isLoad) {
    unsigned r = define(tile);
    if (isFloatElem)
      out.push_back([=](Frame &f) {
        TileGeometry g;
        geometry(f, g);
        std::vector<float> &o = f.slots[r].f;
        o.resize(n);
        loadFloats(f.views[*arg], g, o.data(), pad);
        return true;
      });
    else
      out.push_back([=](Frame &f) {
        TileGeometry g;
        geometry(f, g);
        std::vector<int64_t> &o = f.slots[r].i;
        o.resize(n);
        loadInts(f.views[*arg], g, o.data());
        return true;
      });
    return success();
  }
  FailureOr<unsigned> value = use(tile, op);
  if (failed(value))
    return failure();
  unsigned v = *value;
  if (isFloatElem)
    out.push_back([=](Frame &f) {
      TileGeometry g;
      geometry(f, g);
      storeFloats(f.views[*arg], g, f.slots[v].f.data());
      return true;
    });
  else
    out.push_back([=](Frame &f) {
      TileGeometry g;
      geometry(f, g);
      storeInts(f.views[*arg], g, f.slots[v].i.data());
      return true;
    });
  return success();
}

LogicalResult Compiler::compileTile(Operation *op, Instrs &out,
                                    bool &handled) {
  if (op->getDialect() == nullptr ||
      op->getDialect()->getNamespace() != "tile" || isa<tile::ParamOp>(op))
    return success();
  handled = true;
  if (auto load = dyn_cast<tile::LoadOp>(op))
    return compileAccess(op, load.getView(), load.getIndices(),
                         load.getOrder(), load.getResult(), /*isLoad=*/true,
                         load.getPadding(), out);
  if (auto store = dyn_cast<tile::StoreOp>(op))
    return compileAccess(op, store.getView(), store.getIndices(),
                         store.getOrder(), store.getValue(), /*isLoad=*/false,
                         tile::Padding::zero, out);
  if (auto dim = dyn_cast<tile::DimOp>(op)) {
    FailureOr<unsigned> arg = viewArg(dim.getView(), op);
    if (failed(arg))
      return failure();
    for (auto [result, d] : llvm::zip(dim.getResults(), dim.getDims())) {
      unsigned r = define(result);
      out.push_back([=, d = d](Frame &f) {
        f.slots[r].i.assign(1, f.views[*arg].shape[d]);
        return true;
      });
    }
    return success();
  }
  if (auto blockId = dyn_cast<tile::BlockIdOp>(op)) {
    for (unsigned i = 0, e = blockId.getNumResults(); i < e; ++i) {
      unsigned axis = static_cast<unsigned>(blockId.getAxis(i));
      unsigned r = define(blockId.getResult(i));
      out.push_back([=](Frame &f) {
        f.slots[r].i.assign(1, f.blockId[axis]);
        return true;
      });
    }
    return success();
  }
  if (auto numBlocks = dyn_cast<tile::NumBlocksOp>(op)) {
    unsigned axis = static_cast<unsigned>(numBlocks.getAxis());
    unsigned r = define(numBlocks.getResult());
    out.push_back([=](Frame &f) {
      f.slots[r].i.assign(1, f.numBlocks[axis]);
      return true;
    });
    return success();
  }

  if (op->getNumResults() != 1)
    return fail(op, "the interpreter does not implement this op");
  FailureOr<ValueType> type = typeOf(op->getResult(0), op);
  if (failed(type))
    return failure();
  SmallVector<unsigned, 3> in;
  for (Value operand : op->getOperands()) {
    FailureOr<unsigned> slot = use(operand, op);
    if (failed(slot))
      return failure();
    in.push_back(*slot);
  }
  Elem e = type->elem;
  int64_t n = type->numElements;
  bool fl = isFloat(e);
  SmallVector<int64_t, 4> shape = type->shape;
  unsigned rank = shape.size();

  if (isa<tile::FullOp>(op)) {
    unsigned r = define(op->getResult(0)), a = in[0];
    if (fl)
      out.push_back([=](Frame &f) {
        f.slots[r].f.assign(n, f.slots[a].f[0]);
        return true;
      });
    else
      out.push_back([=](Frame &f) {
        f.slots[r].i.assign(n, f.slots[a].i[0]);
        return true;
      });
    return success();
  }
  if (isa<tile::ArangeOp>(op)) {
    unsigned r = define(op->getResult(0));
    out.push_back([=](Frame &f) {
      std::vector<int64_t> &o = f.slots[r].i;
      o.resize(n);
      for (int64_t k = 0; k < n; ++k)
        o[k] = k;
      normalizeInts(e, o.data(), n);
      return true;
    });
    return success();
  }
  if (isa<tile::ReshapeOp>(op)) {
    unsigned r = define(op->getResult(0));
    out.push_back(fl ? copyValue<float>(in[0], r) : copyValue<int64_t>(in[0], r));
    return success();
  }
  if (isa<tile::ExtractOp, tile::BroadcastOp, tile::PermuteOp>(op)) {
    FailureOr<ValueType> source = typeOf(op->getOperand(0), op);
    if (failed(source))
      return failure();
    SmallVector<int64_t, 4> srcStrides = rowMajor(source->shape);
    std::array<int64_t, 8> strides{}, outShape{}, srcShape{};
    for (unsigned k = 0; k < rank; ++k) {
      outShape[k] = shape[k];
      srcShape[k] = source->shape[k];
    }
    if (auto permute = dyn_cast<tile::PermuteOp>(op)) {
      for (unsigned k = 0; k < rank; ++k)
        strides[k] = srcStrides[permute.getPermutation()[k]];
    } else {
      for (unsigned k = 0; k < rank; ++k)
        strides[k] = source->shape[k] == shape[k] || isa<tile::ExtractOp>(op)
                         ? srcStrides[k]
                         : 0;
    }
    std::array<unsigned, 8> indexSlots{};
    bool isExtract = isa<tile::ExtractOp>(op);
    for (unsigned k = 0; isExtract && k < rank; ++k)
      indexSlots[k] = in[k + 1];
    unsigned a = in[0], r = define(op->getResult(0));
    std::string where = describe(op);
    auto run = [=](Frame &f, auto *dst, const auto *src) {
      int64_t base = 0;
      for (unsigned k = 0; isExtract && k < rank; ++k) {
        int64_t index = f.slots[indexSlots[k]].i[0];
        if (index < 0 || index >= srcShape[k] / outShape[k]) {
          f.error = where + ": sub-tile index " + std::to_string(index) +
                    " along dimension " + std::to_string(k) +
                    " is outside the source (" +
                    std::to_string(srcShape[k] / outShape[k]) + " sub-tiles)";
          return false;
        }
        base += index * outShape[k] * strides[k];
      }
      gather(dst, src + base, outShape.data(), strides.data(), rank);
      return true;
    };
    if (fl)
      out.push_back([=](Frame &f) {
        std::vector<float> &o = f.slots[r].f;
        o.resize(n);
        return run(f, o.data(), f.slots[a].f.data());
      });
    else
      out.push_back([=](Frame &f) {
        std::vector<int64_t> &o = f.slots[r].i;
        o.resize(n);
        return run(f, o.data(), f.slots[a].i.data());
      });
    return success();
  }
  if (isa<tile::ConvertOp>(op)) {
    handled = false;
    return success();
  }
  if (auto cumsum = dyn_cast<tile::CumsumOp>(op)) {
    AxisShape s = axisShape(shape, cumsum.getAxis());
    unsigned a = in[0], r = define(op->getResult(0));
    if (fl)
      out.push_back([=](Frame &f) {
        std::vector<float> &o = f.slots[r].f;
        o.resize(n);
        cumsumFloats(f.slots[a].f.data(), o.data(), s, e);
        return true;
      });
    else
      out.push_back([=](Frame &f) {
        std::vector<int64_t> &o = f.slots[r].i;
        o.resize(n);
        cumsumInts(f.slots[a].i.data(), o.data(), s, e);
        return true;
      });
    return success();
  }
  if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
    FailureOr<ValueType> source = typeOf(reduce.getSource(), op);
    if (failed(source))
      return failure();
    AxisShape s = axisShape(source->shape, reduce.getAxis());
    ReduceKind kind = reduce.getKind() == tile::ReduceKind::sum
                          ? ReduceKind::Sum
                      : reduce.getKind() == tile::ReduceKind::max
                          ? ReduceKind::Max
                          : ReduceKind::Min;
    unsigned a = in[0], r = define(op->getResult(0));
    if (fl)
      out.push_back([=](Frame &f) {
        std::vector<float> &o = f.slots[r].f;
        o.resize(n);
        reduceFloats(f.slots[a].f.data(), o.data(), s, e, kind);
        return true;
      });
    else
      out.push_back([=](Frame &f) {
        std::vector<int64_t> &o = f.slots[r].i;
        o.resize(n);
        reduceInts(f.slots[a].i.data(), o.data(), s, e, kind);
        return true;
      });
    return success();
  }
  if (auto mma = dyn_cast<tile::MmaOp>(op)) {
    FailureOr<ValueType> a = typeOf(mma.getA(), op);
    if (failed(a))
      return failure();
    int64_t m = shape[0], nn = shape[1], k = a->shape[1];
    unsigned sa = in[0], sb = in[1], sc = in[2], r = define(op->getResult(0));
    out.push_back([=](Frame &f) {
      std::vector<float> &o = f.slots[r].f;
      o = f.slots[sc].f;
      matmulAccumulate(f.slots[sa].f.data(), f.slots[sb].f.data(), o.data(),
                       m, nn, k);
      return true;
    });
    return success();
  }
  if (isa<tile::Exp2Op>(op)) {
    unsigned r = define(op->getResult(0));
    out.push_back(
        floatUnary(in[0], r, n, e, [](float x) { return std::exp2(x); }));
    return success();
  }
  if (isa<tile::WhereOp>(op)) {
    unsigned r = define(op->getResult(0));
    out.push_back(fl ? select<float>(in[0], in[1], in[2], r, n, false)
                     : select<int64_t>(in[0], in[1], in[2], r, n, false));
    return success();
  }
  return fail(op, "the interpreter does not implement this op");
}

//===----------------------------------------------------------------------===//
// scf
//===----------------------------------------------------------------------===//

LogicalResult Compiler::compileFor(scf::ForOp op, Instrs &out) {
  FailureOr<ValueType> ivType = typeOf(op.getInductionVar(), op);
  if (failed(ivType))
    return failure();
  FailureOr<unsigned> lb = use(op.getLowerBound(), op),
                      ub = use(op.getUpperBound(), op),
                      step = use(op.getStep(), op);
  if (failed(lb) || failed(ub) || failed(step))
    return failure();
  struct Plan {
    unsigned lb, ub, step, iv;
    unsigned width;
    bool isUnsigned;
    std::vector<unsigned> inits, iterArgs, results;
    Instrs body;
    Transfer yield;
    std::string where;
  };
  auto plan = std::make_shared<Plan>();
  plan->lb = *lb;
  plan->ub = *ub;
  plan->step = *step;
  plan->width = bitWidth(ivType->elem);
  plan->isUnsigned = op.getUnsignedCmp();
  plan->where = describe(op);
  for (Value init : op.getInitArgs()) {
    FailureOr<unsigned> slot = use(init, op);
    if (failed(slot))
      return failure();
    plan->inits.push_back(*slot);
  }
  Block *body = op.getBody();
  plan->iv = define(op.getInductionVar());
  for (BlockArgument arg : op.getRegionIterArgs()) {
    if (failed(typeOf(arg, op)))
      return failure();
    plan->iterArgs.push_back(define(arg));
  }
  if (failed(compileBlock(*body, plan->body)))
    return failure();
  plan->yield =
      makeTransfer(body->getTerminator()->getOperands(), plan->iterArgs, body);
  for (Value result : op.getResults())
    plan->results.push_back(define(result));

  out.push_back([plan](Frame &f) {
    const Plan &p = *plan;
    uint64_t mask = widthMask(p.width);
    int64_t lo = f.slots[p.lb].i[0], hi = f.slots[p.ub].i[0],
            st = f.slots[p.step].i[0];
    uint64_t trips = 0, stride = static_cast<uint64_t>(st) & mask;
    bool empty = p.isUnsigned ? (static_cast<uint64_t>(lo) & mask) >=
                                    (static_cast<uint64_t>(hi) & mask)
                              : lo >= hi;
    if (!empty) {
      if (stride == 0 || (!p.isUnsigned && st < 0)) {
        f.error = p.where + ": the step is " + std::to_string(st) +
                  "; a loop's step must be positive";
        return false;
      }
      uint64_t span = ((static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) &
                       mask);
      trips = span / stride + (span % stride != 0);
    }
    for (size_t j = 0; j < p.inits.size(); ++j)
      f.slots[p.iterArgs[j]] = f.slots[p.inits[j]];
    for (uint64_t t = 0; t < trips; ++t) {
      uint64_t iv = static_cast<uint64_t>(lo) + t * stride;
      f.slots[p.iv].i.assign(1, signExtend(static_cast<int64_t>(iv), p.width));
      if (!runInstrs(p.body, f))
        return false;
      p.yield.run(f);
    }
    for (size_t j = 0; j < p.results.size(); ++j)
      std::swap(f.slots[p.results[j]], f.slots[p.iterArgs[j]]);
    return true;
  });
  return success();
}

LogicalResult Compiler::compileIf(scf::IfOp op, Instrs &out) {
  FailureOr<unsigned> cond = use(op.getCondition(), op);
  if (failed(cond))
    return failure();
  struct Plan {
    unsigned cond;
    Instrs thenBody, elseBody;
    Transfer thenYield, elseYield;
  };
  auto plan = std::make_shared<Plan>();
  plan->cond = *cond;
  SmallVector<unsigned> results;
  for (Value result : op.getResults()) {
    if (failed(typeOf(result, op)))
      return failure();
    results.push_back(program.numSlots + results.size());
  }
  auto compileBranch = [&](Region &region, Instrs &body,
                           Transfer &yield) -> LogicalResult {
    if (region.empty())
      return success();
    Block &block = region.front();
    if (failed(compileBlock(block, body)))
      return failure();
    yield = makeTransfer(block.getTerminator()->getOperands(), results, &block);
    return success();
  };
  // The results' slots are fixed before the branches are compiled, so that
  // their yields can name them; they are defined after, so the branches'
  // values do not take them.
  unsigned first = program.numSlots;
  program.numSlots += results.size();
  if (failed(compileBranch(op.getThenRegion(), plan->thenBody,
                           plan->thenYield)) ||
      failed(compileBranch(op.getElseRegion(), plan->elseBody,
                           plan->elseYield)))
    return failure();
  for (auto [j, result] : llvm::enumerate(op.getResults()))
    slots[result] = first + j;
  out.push_back([plan](Frame &f) {
    const Plan &p = *plan;
    bool taken = f.slots[p.cond].i[0] != 0;
    if (!runInstrs(taken ? p.thenBody : p.elseBody, f))
      return false;
    (taken ? p.thenYield : p.elseYield).run(f);
    return true;
  });
  return success();
}

LogicalResult Compiler::compileWhile(scf::WhileOp op, Instrs &out) {
  struct Plan {
    std::vector<unsigned> inits, beforeArgs, afterArgs, results;
    unsigned cond;
    Instrs before, after;
    Transfer toAfter, toResults, yield;
  };
  auto plan = std::make_shared<Plan>();
  for (Value init : op.getInits()) {
    FailureOr<unsigned> slot = use(init, op);
    if (failed(slot))
      return failure();
    plan->inits.push_back(*slot);
  }
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  for (BlockArgument arg : before.getArguments()) {
    if (failed(typeOf(arg, op)))
      return failure();
    plan->beforeArgs.push_back(define(arg));
  }
  for (BlockArgument arg : after.getArguments()) {
    if (failed(typeOf(arg, op)))
      return failure();
    plan->afterArgs.push_back(define(arg));
  }
  for (Value result : op.getResults()) {
    if (failed(typeOf(result, op)))
      return failure();
    plan->results.push_back(define(result));
  }
  if (failed(compileBlock(before, plan->before)) ||
      failed(compileBlock(after, plan->after)))
    return failure();
  scf::ConditionOp condition = op.getConditionOp();
  FailureOr<unsigned> cond = use(condition.getCondition(), condition);
  if (failed(cond))
    return failure();
  plan->cond = *cond;
  // The condition's arguments go to the after region or to the results; a
  // value cannot be swapped to both, so only the exit may take it.
  plan->toAfter = makeTransfer(condition.getArgs(), plan->afterArgs, nullptr);
  plan->toResults = makeTransfer(condition.getArgs(), plan->results, &before);
  plan->yield = makeTransfer(after.getTerminator()->getOperands(),
                             plan->beforeArgs, &after);
  out.push_back([plan](Frame &f) {
    const Plan &p = *plan;
    for (size_t j = 0; j < p.inits.size(); ++j)
      f.slots[p.beforeArgs[j]] = f.slots[p.inits[j]];
    while (true) {
      if (!runInstrs(p.before, f))
        return false;
      if (f.slots[p.cond].i[0] == 0) {
        p.toResults.run(f);
        return true;
      }
      p.toAfter.run(f);
      if (!runInstrs(p.after, f))
        return false;
      p.yield.run(f);
    }
  });
  return success();
}

} // namespace

LogicalResult tilec::interp::detail::compileKernel(tile::KernelOp kernel,
                                                  Program &program,
                                                  std::string &error) {
  return Compiler(kernel, program, error).run();
}
