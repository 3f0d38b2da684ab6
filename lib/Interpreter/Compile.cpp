//===- Compile.cpp - the interpreter compiler: walk, dispatch --*- C++ -*-===//
//
// The kernel's arguments become views and scalar slots; each op of its body
// goes to the file of its dialect (Compiler.h lists them).
//
//===----------------------------------------------------------------------===//

#include "Compiler.h"

#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tilec::interp;
using namespace tilec::interp::detail;

std::string tilec::interp::detail::describe(Operation *op) {
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

void Transfer::run(Frame &f) const {
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
                                ArrayRef<unsigned> destinations, Block *block) {
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
  if (std::optional<tile::Unbound> unbound = tile::findUnbound(kernel))
    return fail(unbound->op, unbound->message);
  Block &entry = kernel.getBody().front();
  program.numArgs = entry.getNumArguments();
  for (BlockArgument arg : entry.getArguments()) {
    if (auto view = dyn_cast<tile::ViewType>(arg.getType())) {
      std::optional<DType> dtype = dtypeOf(view.getElementType());
      if (!dtype)
        return fail(kernel, "a view of an element type the interpreter does "
                            "not read");
      views[arg] = arg.getArgNumber();
      program.views.push_back({arg.getArgNumber(), view.getRank(), *dtype});
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

FailureOr<Compiler::Elementwise> Compiler::elementwise(Operation *op) {
  if (op->getNumResults() != 1)
    return unsupported(op);
  FailureOr<ValueType> type = typeOf(op->getResult(0), op);
  if (failed(type))
    return failure();
  Elementwise result{std::move(*type), {}, program.numSlots};
  for (Value operand : op->getOperands()) {
    FailureOr<unsigned> slot = use(operand, op);
    if (failed(slot))
      return failure();
    result.in.push_back(*slot);
  }
  return result;
}

LogicalResult Compiler::emit(Operation *op, Instr instr, Instrs &out) {
  define(op->getResult(0));
  out.push_back(std::move(instr));
  return success();
}

LogicalResult Compiler::compileOp(Operation *op, Instrs &out) {
  Dialect *dialect = op->getDialect();
  if (isa_and_present<arith::ArithDialect>(dialect))
    return compileArith(op, out);
  if (isa_and_present<math::MathDialect>(dialect))
    return compileMath(op, out);
  if (isa_and_present<tile::TileDialect>(dialect))
    return compileTile(op, out);
  if (isa_and_present<scf::SCFDialect>(dialect))
    return compileControlFlow(op, out);
  return unsupported(op);
}

LogicalResult tilec::interp::detail::compileKernel(tile::KernelOp kernel,
                                                   Program &program,
                                                   std::string &error) {
  return Compiler(kernel, program, error).run();
}
