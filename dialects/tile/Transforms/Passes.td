//===- Passes.td - tile dialect transformations ------------*- tablegen -*-===//

#ifndef TILE_TRANSFORMS_PASSES
#define TILE_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def TileBindParams : Pass<"tile-bind-params", "::mlir::ModuleOp"> {
  let summary = "binds kernel parameters and makes every tile shape static";
  let description = [{
    Gives every compile-time parameter of every `tile.kernel` a value: the one
    named in `params` (NAME=VALUE), else the kernel's default. `tile.param`
    becomes a constant and each tile typed with `#tile.dims` gets its static
    type, so one kernel source serves every instantiation.

    Example: `tile-opt --tile-bind-params="params=CHUNK=128,BLOCK_P=64"`
  }];
  let options = [
    ListOption<"params", "params", "std::string",
               "NAME=VALUE bindings; unnamed parameters keep their defaults">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // TILE_TRANSFORMS_PASSES
