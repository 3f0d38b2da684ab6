//===- Compiler.h - translating a kernel for the interpreter ----*- C++ -*-===//
//
// Walks a bound kernel once and turns each op into a closure over the slots
// of its operands and results. Everything that depends only on types (shapes,
// element types, strides of tiles, predicates) is decided here; the closures
// only loop over elements.
//
// The compiler is one class; its op families live in one file each:
// Compile.cpp (the walk and the dispatch), CompileArith.cpp, CompileCasts.cpp,
// CompileMath.cpp, CompileTile.cpp and CompileControlFlow.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_INTERPRETER_COMPILER_H
#define TILEC_LIB_INTERPRETER_COMPILER_H

#include "Program.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <string>

namespace tilec::interp::detail {

/// "file:line:col: 'arith.divsi'" for messages.
std::string describe(mlir::Operation *op);

/// What the closures need to know about a value's type.
struct ValueType {
  Elem elem = Elem::F32;
  llvm::SmallVector<int64_t, 4> shape;
  int64_t numElements = 1;
  bool isTile = false;
};

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

  void run(Frame &f) const;
};

class Compiler {
public:
  Compiler(mlir::tile::KernelOp kernel, Program &program, std::string &error)
      : kernel(kernel), program(program), error(error) {}

  mlir::LogicalResult run();

private:
  /// An op with one result: its type and its operands' slots. The result's
  /// slot is defined by `emit`, once the op is known to be supported, so
  /// that an op that fails takes none.
  struct Elementwise {
    ValueType type;
    llvm::SmallVector<unsigned, 3> in;
    /// The slot `emit` will give the result.
    unsigned result;
  };

  mlir::LogicalResult fail(mlir::Operation *op, const llvm::Twine &message) {
    error = describe(op) + ": " + message.str();
    return mlir::failure();
  }
  mlir::LogicalResult unsupported(mlir::Operation *op) {
    return fail(op, "the interpreter does not implement this op");
  }

  mlir::FailureOr<Elem> elemOf(mlir::Type type, mlir::Operation *op);
  mlir::FailureOr<ValueType> typeOf(mlir::Value value, mlir::Operation *op);
  unsigned define(mlir::Value value) {
    unsigned slot = program.numSlots++;
    slots[value] = slot;
    return slot;
  }
  mlir::FailureOr<unsigned> use(mlir::Value value, mlir::Operation *op);
  mlir::FailureOr<unsigned> viewArg(mlir::Value value, mlir::Operation *op);
  /// The result type and operand slots of a one-result op.
  mlir::FailureOr<Elementwise> elementwise(mlir::Operation *op);
  /// Defines `op`'s result and appends `instr`, which writes it.
  mlir::LogicalResult emit(mlir::Operation *op, Instr instr, Instrs &out);

  mlir::LogicalResult compileBlock(mlir::Block &block, Instrs &out);
  mlir::LogicalResult compileOp(mlir::Operation *op, Instrs &out);
  Transfer makeTransfer(mlir::Operation::operand_range sources,
                        llvm::ArrayRef<unsigned> destinations,
                        mlir::Block *block);

  // CompileArith.cpp
  mlir::LogicalResult compileArith(mlir::Operation *op, Instrs &out);
  mlir::LogicalResult compileConstant(mlir::arith::ConstantOp op);
  template <typename Op>
  mlir::LogicalResult compileFloatBinary(Op op, Instrs &out);
  template <typename Op>
  mlir::LogicalResult compileIntBinary(Op op, Instrs &out);
  mlir::LogicalResult compileCmpF(mlir::arith::CmpFOp op, Instrs &out);
  mlir::LogicalResult compileCmpI(mlir::arith::CmpIOp op, Instrs &out);
  mlir::LogicalResult compileSelect(mlir::Operation *op, bool scalarCondition,
                                    Instrs &out);

  // CompileCasts.cpp
  mlir::LogicalResult compileCast(mlir::Operation *op, Instrs &out);

  // CompileMath.cpp
  mlir::LogicalResult compileMath(mlir::Operation *op, Instrs &out);
  template <typename Op>
  mlir::LogicalResult compileMathUnary(Op op, Instrs &out);
  template <typename Op>
  mlir::LogicalResult compileMathBinary(Op op, Instrs &out);
  mlir::LogicalResult compileFma(mlir::math::FmaOp op, Instrs &out);

  // CompileTile.cpp
  mlir::LogicalResult compileTile(mlir::Operation *op, Instrs &out);
  mlir::LogicalResult
  compileAccess(mlir::Operation *op, mlir::Value view, mlir::ValueRange indices,
                std::optional<llvm::ArrayRef<int64_t>> order, mlir::Value tile,
                bool isLoad, mlir::tile::Padding padding, Instrs &out);
  mlir::LogicalResult compileLoadScalar(mlir::tile::LoadScalarOp op,
                                       Instrs &out);
  mlir::LogicalResult compileDim(mlir::tile::DimOp op, Instrs &out);
  mlir::LogicalResult compileBlockId(mlir::tile::BlockIdOp op, Instrs &out);
  mlir::LogicalResult compileNumBlocks(mlir::tile::NumBlocksOp op, Instrs &out);
  mlir::LogicalResult compileFull(mlir::tile::FullOp op, Instrs &out);
  mlir::LogicalResult compileArange(mlir::tile::ArangeOp op, Instrs &out);
  mlir::LogicalResult compileReshape(mlir::tile::ReshapeOp op, Instrs &out);
  mlir::LogicalResult compileGather(mlir::Operation *op, Instrs &out);
  mlir::LogicalResult compileCumsum(mlir::tile::CumsumOp op, Instrs &out);
  mlir::LogicalResult compileReduce(mlir::tile::ReduceOp op, Instrs &out);
  mlir::LogicalResult compileMma(mlir::tile::MmaOp op, Instrs &out);

  // CompileControlFlow.cpp
  mlir::LogicalResult compileControlFlow(mlir::Operation *op, Instrs &out);
  mlir::LogicalResult compileFor(mlir::scf::ForOp op, Instrs &out);
  mlir::LogicalResult compileIf(mlir::scf::IfOp op, Instrs &out);
  mlir::LogicalResult compileWhile(mlir::scf::WhileOp op, Instrs &out);

  mlir::tile::KernelOp kernel;
  Program &program;
  std::string &error;
  llvm::DenseMap<mlir::Value, unsigned> slots;
  llvm::DenseMap<mlir::Value, unsigned> views;
  /// Slots set once per frame (constants): never swapped away.
  llvm::DenseSet<unsigned> hoisted;
};

} // namespace tilec::interp::detail

#endif // TILEC_LIB_INTERPRETER_COMPILER_H
