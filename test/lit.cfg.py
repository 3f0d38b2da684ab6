# -*- Python -*- lit configuration for tilec.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "TILEC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilec_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.substitutions.append(("%tilec_src", config.tilec_src_root))
config.substitutions.append(("%tilec_version", config.tilec_version))
config.substitutions.append(("%llvm_version", config.llvm_version))
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.tilec_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["tile-opt", "tilec", "tile-golden"], tool_dirs)
if config.cuda_root and os.path.exists(os.path.join(config.cuda_root, "bin", "ptxas")):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", os.path.join(config.cuda_root, "bin", "ptxas")))
# test/Target/Inputs/list-fatbin.py decompresses the PTX that fatbinary
# compresses with the zstd command.
if shutil.which("zstd"):
    config.available_features.add("zstd")
