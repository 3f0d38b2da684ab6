#!/usr/bin/env python3
"""Builds the C++ torch op (tilec_torch_op.so) against the torch of the
Python that runs this script and an existing libtilec_mamba2.so.

    python3 python/torch_op/build.py [--library PATH] [--out DIR]

--library: libtilec_mamba2.so to link (default: the one tilec._loader finds:
$TILEC_MAMBA2_LIBRARY, the package's copy, an install prefix, this
checkout's build/lib). The objects and the op are built in this checkout's
build/torch_op/, where tilec.mamba2 looks for it; --out copies the op to
another directory too (python/tilec/lib to ship it in the package;
$TILEC_MAMBA2_TORCH_OP names any other file). The header is this checkout's
kernels/mamba2/include/tilec/Mamba2/tilec_mamba2.h (--include for another
directory). Only C++ is compiled (no nvcc): for a torch with CUDA with the
toolkit's headers and c10/cuda (the current stream), defining
TILEC_TORCH_OP_CUDA; for a CPU-only torch without them (the same ops,
which refuse CUDA tensors). The driver is reached through dlopen, never
linked. torch.utils.cpp_extension compiles it with torch's flags (its C++
ABI and standard) and ninja.
"""

import argparse
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.dirname(os.path.dirname(HERE))
SOURCES = ["Mamba2Ops.cpp", "DeviceContext.cpp", "Workspaces.cpp",
           "Errors.cpp", "Profile.cpp"]
NAME = "tilec_torch_op"


def default_library():
    sys.path.insert(0, os.path.join(CHECKOUT, "python"))
    from tilec import _loader
    explicit = os.environ.get(_loader.LIBRARY_ENV)
    if explicit:
        return explicit
    for path in _loader.candidate_paths():
        if os.path.exists(path):
            return path
    sys.exit(f"build.py: {_loader.LIBRARY_NAME} not found (tried "
             f"{', '.join(_loader.candidate_paths())}); pass --library")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library")
    parser.add_argument("--out")
    parser.add_argument("--include", default=os.path.join(
        CHECKOUT, "kernels", "mamba2", "include"))
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    library = os.path.abspath(args.library or default_library())
    if not os.path.isfile(library):
        sys.exit(f"build.py: {library} is not a file")
    header = os.path.join(args.include, "tilec", "Mamba2", "tilec_mamba2.h")
    if not os.path.isfile(header):
        sys.exit(f"build.py: {header} not found; pass --include")
    build = os.path.join(CHECKOUT, "build", "torch_op")
    os.makedirs(build, exist_ok=True)
    import torch
    from torch.utils import cpp_extension
    cuda = torch.version.cuda is not None
    libdir = os.path.dirname(library)
    # Linked by file name, found at run time through the RUNPATH (the
    # library's directory here) or, when tilec._loader loaded it first from
    # elsewhere, as that already loaded object (the same soname).
    cpp_extension.load(
        name=NAME, sources=[os.path.join(HERE, s) for s in SOURCES],
        extra_include_paths=[args.include, HERE],
        extra_cflags=["-O2", "-Wall"] + (["-DTILEC_TORCH_OP_CUDA"] if cuda
                                         else []),
        extra_ldflags=[library, f"-Wl,-rpath,{libdir}", "-ldl"],
        build_directory=build, is_python_module=False, with_cuda=cuda,
        verbose=args.verbose)
    built = os.path.join(build, NAME + ".so")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        built = shutil.copy2(built, os.path.join(args.out, NAME + ".so"))
    print(built, f"({'CUDA' if cuda else 'CPU-only'} torch {torch.__version__})")


if __name__ == "__main__":
    main()
