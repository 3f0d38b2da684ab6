//===- Passes.td - tile dialect transformations ------------*- tablegen -*-===//

#ifndef TILE_TRANSFORMS_PASSES
#define TILE_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def TileBindParams : Pass<"tile-bind-params", "::mlir::ModuleOp"> {
  let summary = "binds kernel parameters and makes every tile shape static";
  let description = [{
    Gives every compile-time parameter of every `tile.kernel` a value: the one
    named in `params` (NAME=VALUE), else the kernel's default. `tile.param`
    becomes a constant, each tile typed with `#tile.dims` gets its static
    type, and each element-type parameter (`!tile.type_param<XT>`, in tiles,
    views, scalars and the kernel's signature) its bound type, so one kernel
    source serves every instantiation. The VALUE of an extent is a positive
    integer, that of a type parameter an element type (`XT=bf16`).

    Example: `tile-opt --tile-bind-params="params=CHUNK=128,BLOCK_P=64,XT=f16"`
  }];
  let options = [
    ListOption<"params", "params", "std::string",
               "NAME=VALUE bindings (an extent or an element type); unnamed "
               "parameters keep their defaults">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileExpandForms : Pass<"tile-expand-forms"> {
  let summary = "writes the kernel language's shorthands out";
  let description = [{
    Rewrites each shorthand into the ops it is defined as: a `tile.load ...
    if %c` into `scf.if` of the unconditional load with `tile.full` of the
    padding in the else branch; a `tile.load` with
    `dims` into the full-rank load (extent 1 along the view dimensions `dims`
    leaves out, `order` where `dims` transposes) and a `tile.reshape`, a
    `tile.store` with `dims` likewise; literal tile indices into
    `arith.constant`s; a `tile.broadcast` with `new_dims` into a reshape that
    inserts the extent-1 axes and an equal-rank broadcast; `tile.full` of a
    literal into `arith.constant` and `tile.full`; `tile.arange %start` into
    `arith.index_cast`, `tile.full`, `tile.arange` and `arith.addi`, and
    `tile.arange ... dim d` into the 1-D arange broadcast along the other
    dimensions;
    `tile.mma` with
    `precision = tf32` into `tile.convert`s of its operands to tf32 (through
    f32) and a plain `tile.mma`, and a `tile.convert` from bf16 or f16 to
    tf32 likewise; the broadcasting ops (`tile.addf` ... `tile.divf`,
    `tile.maximumf`, `tile.minimumf`, the integer ops, `tile.cmpi`,
    `tile.cmpf`, and `tile.where` in its `-> R` form) into `tile.broadcast`
    or `tile.full` of each operand whose type is not the result's and the
    arith op (the plain `tile.where`); `tile.softplus` and `tile.silu` into
    the `math`, `arith` and `tile.where` ops that define them (an `scf.if`
    for `tile.softplus ... if %c`). Runs before or after `tile-bind-params`.

    Example: `tile-opt --tile-bind-params --tile-expand-forms`
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // TILE_TRANSFORMS_PASSES
