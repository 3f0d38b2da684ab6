#!/usr/bin/env python3
"""Lists what a fatbin holds, one line per image, like cuobjdump's --list-elf
and --list-ptx (which this machine's toolkit may lack):

    elf sm_80 kernels: copy
    ptx sm_80 entries: copy

With --cubin, what one cubin holds: "elf machine 190 kernels: copy" (190 is
EM_CUDA).

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


def main():
    if sys.argv[1] == "--cubin":
        elf = open(sys.argv[2], "rb").read()
        machine = struct.unpack_from("<H", elf, 18)[0]
        print("elf machine %d kernels: %s" % (machine, kernels(elf)))
        return
    data = open(sys.argv[1], "rb").read()
    for kind, arch, payload in images(data):
        if kind == 2:
            print("elf %s kernels: %s" % (arch, kernels(payload)))
        elif kind == 1:
            names = re.findall(r"\.entry\s+([A-Za-z_$][\w$]*)", ptx_text(payload))
            print("ptx %s entries: %s" % (arch, " ".join(names)))
        else:
            print("kind %d %s" % (kind, arch))


main()
