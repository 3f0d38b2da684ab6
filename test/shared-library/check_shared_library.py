#!/usr/bin/env python3
"""Checks what libtilec_mamba2.so offers and needs, against its C ABI header.

  check_shared_library.py exports HEADER LIBRARY
      The library's defined dynamic symbols are exactly the functions the
      header declares, each a function at symbol version TILEC_MAMBA2_0.
  check_shared_library.py needed LIBRARY
      Its NEEDED entries are system libraries only (no LLVM, MLIR, fmt, not
      even libstdc++, which it links statically), ldd resolves them all, and
      a process loads it and calls into it.

Exits 1 with a message naming each difference.
"""

import ctypes
import re
import subprocess
import sys

SYMBOL_VERSION = "TILEC_MAMBA2_0"
# glibc's libraries and libgcc_s (the unwinder, shared: docs/mamba2-gpu.md).
ALLOWED_NEEDED = re.compile(
    r"^(libc|libm|libdl|libpthread|librt)\.so\.\d+$|^libgcc_s\.so\.1$|^ld-linux[-\w]*\.so\.\d+$"
)
FORBIDDEN_NEEDED = re.compile(r"LLVM|MLIR|fmt|libstdc\+\+", re.IGNORECASE)


def header_functions(header):
    """The functions `header` declares: names followed by '(' outside
    comments and preprocessor lines."""
    text = open(header, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^\s*#[^\n]*(\\\n[^\n]*)*", " ", text, flags=re.M)
    return set(re.findall(r"\b(tilec_mamba2_\w+)\s*\(", text))


def dynamic_symbols(library):
    """(name, version, type, section index) of each dynamic symbol."""
    out = subprocess.run(
        ["readelf", "--dyn-syms", "--wide", library],
        check=True, capture_output=True, text=True).stdout
    symbols = []
    for line in out.splitlines():
        fields = line.split()
        # Num: Value Size Type Bind Vis Ndx Name [(version index)]
        if len(fields) < 8 or not fields[0].endswith(":") or not fields[0][:-1].isdigit():
            continue
        name, _, version = fields[7].partition("@")
        symbols.append((name, version.lstrip("@"), fields[3], fields[6]))
    return symbols


def check_exports(header, library):
    errors = []
    declared = header_functions(header)
    if not declared:
        errors.append(f"{header} declares no tilec_mamba2_* function")
    exported = {}
    for name, version, kind, index in dynamic_symbols(library):
        # The version definition itself is an absolute symbol of that name.
        if index in ("UND", "ABS") or not name:
            continue
        exported[name] = (version, kind)
    for name in sorted(set(exported) - declared):
        errors.append(f"exported but not in the header: {name}")
    for name in sorted(declared - set(exported)):
        errors.append(f"declared in the header but not exported: {name}")
    for name in sorted(set(exported) & declared):
        version, kind = exported[name]
        if version != SYMBOL_VERSION:
            errors.append(f"{name} has symbol version '{version}', not {SYMBOL_VERSION}")
        if kind != "FUNC":
            errors.append(f"{name} is a {kind}, not a function")
    if not errors:
        print(f"{library} exports exactly the {len(declared)} functions of "
              f"{header} at {SYMBOL_VERSION}: {', '.join(sorted(declared))}")
    return errors


def check_needed(library):
    errors = []
    out = subprocess.run(["readelf", "--dynamic", "--wide", library],
                         check=True, capture_output=True, text=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    if not needed:
        errors.append(f"readelf found no NEEDED entry in {library}")
    for name in needed:
        if FORBIDDEN_NEEDED.search(name) or not ALLOWED_NEEDED.match(name):
            errors.append(f"NEEDED {name} is not a system library it may use")
    ldd = subprocess.run(["ldd", library], capture_output=True, text=True)
    if ldd.returncode != 0:
        errors.append(f"ldd {library} failed: {ldd.stderr.strip()}")
    for line in ldd.stdout.splitlines():
        if "not found" in line or FORBIDDEN_NEEDED.search(line):
            errors.append(f"ldd: {line.strip()}")
    if not errors:
        # Loading it runs its initializers; a call shows it works in-process.
        lib = ctypes.CDLL(library)
        lib.tilec_mamba2_status_name.restype = ctypes.c_char_p
        lib.tilec_mamba2_status_name.argtypes = [ctypes.c_int]
        name = lib.tilec_mamba2_status_name(6)
        if name != b"TILEC_MAMBA2_ERROR_UNSUPPORTED_CHUNK":
            errors.append(f"tilec_mamba2_status_name(6) is {name!r}")
    if not errors:
        print(f"{library} needs only {', '.join(needed)}; it loads and answers")
    return errors


def main(argv):
    if len(argv) == 4 and argv[1] == "exports":
        errors = check_exports(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] == "needed":
        errors = check_needed(argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
