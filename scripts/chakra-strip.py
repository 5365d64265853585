#!/usr/bin/env python3
"""Strip Chakra execution traces (MLCommons Chakra ET, protobuf) to what a network replay needs,
and gzip them: the form `data/chakra/` ships.

Each rank file `PREFIX.<rank>.et` is a sequence of varint-length-delimited protobuf messages, a
GlobalMetadata then Nodes (schema: mlcommons/chakra `schema/protobuf/et_def.proto`). This keeps
every Node's id, type, control and data dependencies and timing fields, and of its attributes
those Braid's reader and ASTRA-sim's feeder read (comm_type, comm_size, pg_name, comm_group,
comm_src, comm_dst, comm_tag, num_ops, tensor_size, is_cpu_op), with their values unchanged; it
drops node names, the tensor input/output strings and every other attribute. The output is still
a valid Chakra ET (gzip-compressed, which Chakra's readers accept). Written without any protobuf
library, from the wire format alone; gzip headers carry no timestamp, so the output is the same
bytes for the same input.

Usage: python3 scripts/chakra-strip.py IN_DIR/PREFIX OUT_DIR/PREFIX   (copies PREFIX.json too)
"""
import gzip
import os
import shutil
import sys

KEEP_NODE_FIELDS = {1, 3, 4, 5, 6, 7}
KEEP_ATTRS = {b"comm_type", b"comm_size", b"pg_name", b"comm_group", b"comm_src", b"comm_dst", b"comm_tag",
              b"num_ops", b"tensor_size", b"is_cpu_op"}


def varint(buf, pos):
    result, shift = 0, 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def enc_varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def fields(buf):
    """(field number, wire type, raw bytes of the whole field) of one message body."""
    pos = 0
    while pos < len(buf):
        start = pos
        key, pos = varint(buf, pos)
        fno, wt = key >> 3, key & 7
        if wt == 0:
            _, pos = varint(buf, pos)
            yield fno, wt, buf[start:pos], None
        elif wt == 1:
            pos += 8
            yield fno, wt, buf[start:pos], None
        elif wt == 5:
            pos += 4
            yield fno, wt, buf[start:pos], None
        elif wt == 2:
            ln, p = varint(buf, pos)
            body = buf[p:p + ln]
            pos = p + ln
            yield fno, wt, buf[start:pos], body
        else:
            raise ValueError(f"wire type {wt} of field {fno}")


def attr_name(body):
    for fno, wt, _, val in fields(body):
        if fno == 1 and wt == 2:
            return bytes(val)
    return b""


def strip_node(body):
    out = bytearray()
    for fno, wt, raw, val in fields(body):
        if fno in KEEP_NODE_FIELDS:
            out += raw
        elif fno == 10 and wt == 2 and attr_name(val) in KEEP_ATTRS:
            out += raw
    return bytes(out)


def frames(data):
    pos = 0
    while pos < len(data):
        ln, pos = varint(data, pos)
        yield data[pos:pos + ln]
        pos += ln


def main():
    src, dst = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    rank = 0
    while os.path.exists(f"{src}.{rank}.et"):
        with open(f"{src}.{rank}.et", "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        out = bytearray()
        for i, msg in enumerate(frames(data)):
            m = bytes(msg) if i == 0 else strip_node(msg)
            out += enc_varint(len(m)) + m
        with open(f"{dst}.{rank}.et", "wb") as f:
            f.write(gzip.compress(bytes(out), compresslevel=9, mtime=0))
        rank += 1
    if rank == 0:
        sys.exit(f"no {src}.0.et")
    if os.path.exists(f"{src}.json"):
        shutil.copyfile(f"{src}.json", f"{dst}.json")
    print(f"{rank} ranks written to {dst}.*.et")


if __name__ == "__main__":
    main()
