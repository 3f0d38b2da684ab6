#!/usr/bin/env python3
"""Lists what a fatbin holds, one line per image, like cuobjdump's --list-elf
and --list-ptx (which this machine's toolkit may lack):

    elf sm_80 kernels: copy
    ptx sm_80 entries: copy

With --cubin, what one cubin holds: "elf machine 190 kernels: copy" (190 is
EM_CUDA). With --source, the fatbins of a source that tilec --emit=cpp
wrote (C string literals), each line after the name of its array:

    tilec_fatbin_generic: elf sm_80 kernels: copy

A fatbin is a 16-byte header (magic 0xba55ed50, version, header size, size
of the images) and images, each a header (kind 1 PTX or 2 ELF, its header
size, its payload size, the architecture as 80, 90, 100, ...) and a payload.
Kernels of an ELF image are its .text.<name> sections; entries of a PTX
image its .entry lines. PTX compressed with zstd (fatbinary's default) is
decompressed with the zstd command.
"""
import re
import struct
import subprocess
import sys

# The image flag of an arch-specific cubin (sm_90a: "sm=90a" for fatbinary).
ARCH_SPECIFIC = 0x100000


def images(data):
    magic, _, header, size = struct.unpack_from("<IHHQ", data, 0)
    if magic != 0xBA55ED50:
        sys.exit("not a fatbin: magic %#x" % magic)
    offset, end = header, header + size
    while offset < end:
        kind, _, image_header, padded = struct.unpack_from("<HHIQ", data, offset)
        compressed, _, _, arch = struct.unpack_from("<IIII", data, offset + 16)
        flags = struct.unpack_from("<Q", data, offset + 40)[0]
        name = "sm_%d%s" % (arch, "a" if flags & ARCH_SPECIFIC else "")
        start = offset + image_header
        yield kind, name, data[start:start + (compressed or padded)]
        offset = start + padded


def ptx_text(payload):
    if payload.startswith(b"\x28\xb5\x2f\xfd"):
        payload = subprocess.run(["zstd", "-d", "-c", "-q"], input=payload,
                                 stdout=subprocess.PIPE, check=True).stdout
    return payload.rstrip(b"\0").decode()


def kernels(elf):
    if not elf.startswith(b"\x7fELF"):
        sys.exit("an ELF image that is not ELF")
    return " ".join(sorted(set(
        m.decode() for m in re.findall(rb"\.text\.([A-Za-z_$][\w$]*)\0", elf))))


def source_fatbins(text):
    """The (name, bytes) of each fatbin array of a generated source."""
    literals = r'(?:\s*"(?:[^"\\]|\\.)*")+'
    for array in re.finditer(
            r"const unsigned char (\w+)\[\d+\] =(%s);" % literals, text):
        literal = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', array.group(2)))
        data = re.sub(rb"\\([0-7]{3}|.)",
                      lambda m: bytes([int(m.group(1), 8)]) if len(m.group(1)) == 3
                      else m.group(1), literal.encode("latin-1"))
        yield array.group(1), data


def list_images(data, prefix=""):
    for kind, arch, payload in images(data):
        if kind == 2:
            print("%self %s kernels: %s" % (prefix, arch, kernels(payload)))
        elif kind == 1:
            names = re.findall(r"\.entry\s+([A-Za-z_$][\w$]*)", ptx_text(payload))
            print("%sptx %s entries: %s" % (prefix, arch, " ".join(names)))
        else:
            print("%skind %d %s" % (prefix, kind, arch))


def main():
    if sys.argv[1] == "--source":
        for name, data in source_fatbins(open(sys.argv[2]).read()):
            list_images(data, name + ": ")
        return
    if sys.argv[1] == "--cubin":
        elf = open(sys.argv[2], "rb").read()
        machine = struct.unpack_from("<H", elf, 18)[0]
        print("elf machine %d kernels: %s" % (machine, kernels(elf)))
        return
    list_images(open(sys.argv[1], "rb").read())


main()
