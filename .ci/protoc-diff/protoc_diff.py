"""quarry's protobuf printers and JSON parser against protobuf's own, on
random messages.

`quarry proto decode` promises the text format as `protoc --decode` prints
it and, with `--json`, protobuf's canonical JSON; `quarry proto encode`
reads that JSON back. This script holds all three to
protobuf itself: libprotoc (through the grpcio-tools package, which bundles
protoc) for the text format, and protobuf's Python `json_format` for JSON.
It builds random messages of the project's test schemas, of WhatsApp's
schema (from the waproto package that `cargo metadata` resolves) and of the
CLI tests' schema of well-known types, encodes them with protobuf, and
compares.

* Text: every canonical message, and a mutated copy of each (fields
  shuffled, repeated, and inserted with random values, also inside nested
  messages), must print exactly as `protoc --decode` prints it.
* JSON: every input must print the same JSON value as
  `json_format.MessageToJson` of protobuf's parse of it, numbers compared
  as numbers (C++'s printer,
  which quarry follows, writes `float`s with 6 or 9 digits where Python
  writes the fewest; both read back as the same float).
* JSON in: `quarry proto encode --json` of that `MessageToJson` text must
  encode the message `json_format.Parse` reads from it (compared as
  protobuf's deterministic encodings of both, or as JSON where only an
  `Any`'s packed map order differs).

Where quarry deliberately differs from protoc (docs/protobuf.md), a mutated
input may be refused: a known field with the wrong wire type (quarry, like
prost, reports it; protobuf keeps it as an unknown field) and invalid UTF-8
in a proto2 `string` (quarry, like prost, checks every `string`). Those are
counted and printed, not failed. Two more documented differences are kept
out of the inputs: a closed enum's unlisted value encoded in more than 32
bits (protoc keeps the truncated value as the unknown field, quarry the
bytes) and a map entry with a repeated value field (protoc re-encodes an
unknown entry from its last key and value, quarry keeps its bytes). A map
key repeated in a mutated input is a documented difference of the text
format: protoc's dynamic message prints every entry, quarry the last of
each key, as a parsed map holds it; such an input's text is compared with
protoc's text of protobuf's own parse of the bytes instead, and counted.

Where protobuf's C++ and Python JSON printers part, quarry follows C++ and
the differences are counted, not failed: an Any type URL without a `/`
past its first byte (C++ refuses it), and a FieldMask path that one of the
two refuses (C++ takes only `a`-`z`, `0`-`9`, `.` and single `_`s; Python
refuses upper case and a `_` not followed by a lower-case letter).

Usage: protoc_diff.py QUARRY_BINARY [MESSAGES_PER_TYPE]
"""

import concurrent.futures
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TEST_PROTO = os.path.join(ROOT, "crates", "quarry-proto-tests", "proto")
CLI_DATA = os.path.join(ROOT, "crates", "quarry-cli", "tests", "data")


def waproto_dir():
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout
    for p in json.loads(meta)["packages"]:
        if p["name"] == "waproto" and p["version"].startswith("0.7."):
            return os.path.join(os.path.dirname(p["manifest_path"]), "src")
    sys.exit("protoc_diff: waproto 0.7 is not in the resolved graph")


def protoc(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", *args],
        input=stdin, capture_output=True,
    )


def wkt_include():
    import grpc_tools
    return os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")


# Each schema: (directory, file, root types).
SCHEMAS = [
    (TEST_PROTO, "test2.proto", ["quarry.test2.All2", "quarry.test2.Link", "quarry.test2.Pair"]),
    (TEST_PROTO, "test3.proto", ["quarry.test3.All3"]),
    (None, "whatsapp.proto", ["whatsapp.Message", "whatsapp.SyncActionData", "whatsapp.HistorySync"]),
    (CLI_DATA, "wkt.proto", ["quarry.wkt.Known"]),
    (TEST_PROTO, "odd2.proto", ["quarry.odd2.Odd", "quarry.odd2.Maps"]),
    (TEST_PROTO, "odd3.proto", ["quarry.odd3.Odd", "quarry.odd3.Maps"]),
    (TEST_PROTO, "names.proto", ["quarry.names.Keywords"]),
]

# ---------------------------------------------------------------- values

STRINGS = ["", "a", "h\u00e9llo", '"q"\\', "\x00\x01\x1f\x7f", "\u2028\u2029",
           "\U0001f600x", "<>&='", "\t\n\r\b\f", "ab\u0085c", "\ufeff"]
DOUBLES = [0.0, -0.0, 1.0, -1.5, 0.1, 1e20, 1e21, 1e-7, 1e-6, 5e-324,
           1.7976931348623157e308, math.inf, -math.inf, math.nan,
           123456789.125, 1e16, 2.0 ** 53]
FLOATS = [0.0, -0.0, 1.0, 0.1, 1e-45, 1e-40, 3.4028234663852886e38, math.inf,
          math.nan, 16777216.0, 1e10, 3.14159]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def int(self, bits, signed):
        r = self.r
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        c = r.random()
        if c < 0.3:
            return r.choice([lo, hi, 0, 1, 127, 128, 300])
        if c < 0.6:
            return r.randint(max(lo, -1000), min(hi, 1000))
        return r.randint(lo, hi)

    def string(self):
        r = self.r
        if r.random() < 0.5:
            return r.choice(STRINGS)
        pick = lambda: r.choice([r.randint(0x20, 0x7E), r.randint(0, 0x1F), r.randint(0xA0, 0x7FF),
                                 r.randint(0x800, 0xD7FF), r.randint(0x10000, 0x10FFFF)])
        return "".join(chr(pick()) for _ in range(r.randint(0, 8)))

    def bytes(self):
        return bytes(self.r.randint(0, 255) for _ in range(self.r.randint(0, 10)))

    def scalar(self, f):
        from google.protobuf.descriptor import FieldDescriptor as FD
        r, t = self.r, f.type
        if t == FD.TYPE_DOUBLE:
            return r.choice(DOUBLES) if r.random() < 0.6 else r.uniform(-1e6, 1e6)
        if t == FD.TYPE_FLOAT:
            if r.random() < 0.6:
                return r.choice(FLOATS)
            return struct.unpack("<f", struct.pack("<f", r.uniform(-1e4, 1e4)))[0]
        if t in (FD.TYPE_INT64, FD.TYPE_SINT64, FD.TYPE_SFIXED64):
            return self.int(64, True)
        if t in (FD.TYPE_UINT64, FD.TYPE_FIXED64):
            return self.int(64, False)
        if t in (FD.TYPE_INT32, FD.TYPE_SINT32, FD.TYPE_SFIXED32):
            return self.int(32, True)
        if t in (FD.TYPE_UINT32, FD.TYPE_FIXED32):
            return self.int(32, False)
        if t == FD.TYPE_BOOL:
            return r.random() < 0.5
        if t == FD.TYPE_STRING:
            return self.string()
        if t == FD.TYPE_BYTES:
            return self.bytes()
        if t == FD.TYPE_ENUM:
            if not f.enum_type.is_closed and r.random() < 0.2:
                return r.choice([7, -1, 99, 2 ** 31 - 1])
            return r.choice([v.number for v in f.enum_type.values])
        raise ValueError(t)

    def fill(self, m, depth, p):
        """Set each field of `m` with probability `p`, nesting `depth` deep."""
        r = self.r
        wkt = WELL_KNOWN.get(m.DESCRIPTOR.full_name)
        if wkt is not None:
            wkt(self, m, depth)
            return
        oneofs = set()
        for f in m.DESCRIPTOR.fields:
            if not f.is_required and r.random() > p:
                continue
            if f.containing_oneof is not None:
                if f.containing_oneof.name in oneofs:
                    continue
                oneofs.add(f.containing_oneof.name)
            if f.message_type is not None and f.message_type.GetOptions().map_entry:
                kf = f.message_type.fields_by_name["key"]
                vf = f.message_type.fields_by_name["value"]
                entries = getattr(m, f.name)
                for _ in range(r.randint(0, 3)):
                    k = self.scalar(kf)
                    if vf.message_type is None:
                        entries[k] = self.scalar(vf)
                    elif depth > 0:
                        self.fill(entries[k], depth - 1, p * 0.6)
                continue
            self.fill_field(m, f, depth, p)
        if m.DESCRIPTOR.is_extendable:
            # By number: the pool's own order may differ between runs.
            extensions = m.DESCRIPTOR.file.pool.FindAllExtensions(m.DESCRIPTOR)
            for f in sorted(extensions, key=lambda f: f.number):
                if r.random() <= p:
                    self.fill_field(m, f, depth, p)

    def fill_field(self, m, f, depth, p):
        """Set field or extension `f` of `m`: a random value, list or
        message."""
        r = self.r
        get = (lambda: m.Extensions[f]) if f.is_extension else (lambda: getattr(m, f.name))
        if f.is_repeated:
            values = get()
            for _ in range(r.randint(0, 4)):
                if f.message_type is None:
                    values.append(self.scalar(f))
                elif depth > 0:
                    self.fill(values.add(), depth - 1, p * 0.6)
        elif f.message_type is not None:
            # A required message is set even past the depth (its own
            # fields then only as required).
            if depth > 0 or f.is_required:
                sub = get()
                self.fill(sub, depth - 1, p * 0.6 if depth > 0 else 0.0)
                sub.SetInParent()
        elif f.is_extension:
            m.Extensions[f] = self.scalar(f)
        else:
            setattr(m, f.name, self.scalar(f))


# Well-known types get values protobuf's JSON printers agree on: a Value
# always holds something (C++ leaves an empty Value out where Python prints
# null).
def _timestamp(g, m, depth):
    m.seconds = g.r.choice([0, 1, -1, 253402300799, -62135596800, 1700000000,
                            g.r.randint(-62135596800, 253402300799)])
    m.nanos = g.r.choice([0, 1, 10, 1000, 120000, 1000000, 123456789, 500000000, 999999999])


def _duration(g, m, depth):
    s = g.r.choice([0, 1, -1, 315576000000, -315576000000, g.r.randint(-10 ** 6, 10 ** 6)])
    n = g.r.choice([0, 1, 1000, 1000000, 123456789, 999999999, 500000000])
    m.seconds, m.nanos = s, -n if s < 0 or (s == 0 and g.r.random() < 0.5) else n


def _value(g, m, depth):
    c = g.r.randint(0, 5 if depth > 0 else 3)
    if c == 0:
        m.null_value = 0
    elif c == 1:
        m.number_value = g.r.choice([0.0, 1.0, -2.5, 1e20, 1e21, 0.1, 1e-7, 2.0 ** 53, -0.0])
    elif c == 2:
        m.string_value = g.string()
    elif c == 3:
        m.bool_value = g.r.random() < 0.5
    elif c == 4:
        m.struct_value.SetInParent()
        _struct(g, m.struct_value, depth - 1)
    else:
        m.list_value.SetInParent()
        _list(g, m.list_value, depth - 1)


def _struct(g, m, depth):
    for _ in range(g.r.randint(0, 3)):
        _value(g, m.fields[g.string()], depth)


def _list(g, m, depth):
    for _ in range(g.r.randint(0, 3)):
        _value(g, m.values.add(), depth)


def _field_mask(g, m, depth):
    for _ in range(g.r.randint(0, 3)):
        m.paths.append(g.r.choice(["a", "foo_bar", "x.y_z", "abc_def.ghi", "a1_b2"]))


def _any(g, m, depth):
    from google.protobuf import duration_pb2, struct_pb2, timestamp_pb2, wrappers_pb2
    import wkt_pb2
    c = g.r.randint(0, 5)
    if c == 5:
        # An empty message packs as a type URL and no value.
        packed = wkt_pb2.Inner()
    elif c == 0:
        packed = wkt_pb2.Inner(x=g.int(32, True) or 1, name=g.string())
    elif c == 1:
        packed = timestamp_pb2.Timestamp(seconds=1700000000, nanos=g.r.choice([0, 5000]))
    elif c == 2:
        packed = duration_pb2.Duration(seconds=g.r.choice([1, -1, 30]))
    elif c == 3:
        packed = struct_pb2.Value(string_value=g.string() or "v")
    else:
        packed = wrappers_pb2.Int64Value(value=g.int(64, True) or 7)
    m.Pack(packed)


WELL_KNOWN = {
    "google.protobuf.Timestamp": _timestamp,
    "google.protobuf.Duration": _duration,
    "google.protobuf.Value": lambda g, m, d: _value(g, m, min(d, 2)),
    "google.protobuf.Struct": lambda g, m, d: _struct(g, m, min(d, 2)),
    "google.protobuf.ListValue": lambda g, m, d: _list(g, m, min(d, 2)),
    "google.protobuf.FieldMask": _field_mask,
    "google.protobuf.Any": _any,
}

# -------------------------------------------------------------- mutation


def varint(v):
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def read_varint(b, p):
    v = s = 0
    while True:
        x = b[p]
        p += 1
        v |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return v, p


def skip_value(b, p, tag):
    """The position past the value of the field whose tag ends at `p` (a
    group up to its end tag)."""
    wt = tag & 7
    if wt == 0:
        return read_varint(b, p)[1]
    if wt == 1:
        return p + 8
    if wt == 5:
        return p + 4
    if wt == 2:
        n, p = read_varint(b, p)
        return p + n
    if wt == 3:
        while True:
            inner, p = read_varint(b, p)
            if inner & 7 == 4:
                return p
            p = skip_value(b, p, inner)
    raise ValueError(f"wire type {wt}")


def split_fields(b):
    """(tag, raw field bytes) for each field of `b`."""
    p, out = 0, []
    while p < len(b):
        start = p
        tag, p = read_varint(b, p)
        p = skip_value(b, p, tag)
        out.append((tag, b[start:p]))
    return out


def repeats_a_map_key(data, desc, path=(), seen=None):
    """Whether two entries of one map field in `data` (a message of type
    `desc`, nested messages included) have the same key bytes. Entries
    are grouped by the field numbers on their way down, so occurrences of
    a message that protobuf merges count together (and so do elements of
    a repeated message: an over-approximation, which only sends more
    inputs to the comparison that allows for repeated keys)."""
    seen = set() if seen is None else seen
    try:
        fields = split_fields(data)
    except (IndexError, ValueError):
        return False
    for tag, raw in fields:
        f = desc.fields_by_number.get(tag >> 3)
        if f is None or f.message_type is None or (tag & 7) != 2:
            continue
        _, p = read_varint(raw, 0)
        _, q = read_varint(raw, p)
        body = raw[q:]
        if f.message_type.GetOptions().map_entry:
            try:
                entry = split_fields(body)
            except (IndexError, ValueError):
                continue
            keys = [r for t, r in entry if t >> 3 == 1]
            key = (path, f.number, keys[-1] if keys else b"")
            if key in seen:
                return True
            seen.add(key)
            vf = f.message_type.fields_by_name["value"]
            if vf.message_type is not None:
                for t, r in entry:
                    if t >> 3 == 2 and (t & 7) == 2:
                        _, a = read_varint(r, 0)
                        _, b = read_varint(r, a)
                        if repeats_a_map_key(r[b:], vf.message_type,
                                             path + (f.number, key[2]), seen):
                            return True
        elif repeats_a_map_key(body, f.message_type, path + (f.number,), seen):
            return True
    return False


def wire_type(f):
    from google.protobuf.descriptor import FieldDescriptor as FD
    return {FD.TYPE_DOUBLE: 1, FD.TYPE_FIXED64: 1, FD.TYPE_SFIXED64: 1, FD.TYPE_FLOAT: 5,
            FD.TYPE_FIXED32: 5, FD.TYPE_SFIXED32: 5, FD.TYPE_STRING: 2, FD.TYPE_BYTES: 2,
            FD.TYPE_MESSAGE: 2}.get(f.type, 0)


def mutate(g, data, desc, depth=0):
    fields = split_fields(data)
    if not fields:
        return data
    r = g.r
    out = []
    for tag, raw in fields:
        f = desc.fields_by_number.get(tag >> 3)
        nested = (f is not None and (tag & 7) == 2 and f.message_type is not None
                  and not f.message_type.GetOptions().map_entry)
        if nested and depth < 4 and r.random() < 0.5:
            _, p = read_varint(raw, 0)
            _, q = read_varint(raw, p)
            inner = mutate(g, raw[q:], f.message_type, depth + 1)
            raw = raw[:p] + varint(len(inner)) + inner
        out.append((tag, raw))
    for _ in range(r.randint(1, 3)):
        c = r.random()
        if c < 0.3 and len(out) > 1:
            r.shuffle(out)
        elif c < 0.7:
            out.insert(r.randrange(len(out) + 1), r.choice(out))
        elif desc.fields:
            f = r.choice(desc.fields)
            wt = wire_type(f) if r.random() < 0.8 else r.choice([0, 1, 2, 5])
            field = varint((f.number << 3) | wt)
            if wt == 0:
                field += varint(r.choice([0, 1, 7, 99, 2 ** 31 - 1, 2 ** 64 - 1]))
            elif wt == 1:
                field += bytes(r.randint(0, 255) for _ in range(8))
            elif wt == 5:
                field += bytes(r.randint(0, 255) for _ in range(4))
            else:
                payload = r.choice([b"", b"\x08\x01", b"\x01\x02\x03", b"\xff\xfe",
                                    "\u00e9".encode(), b"\x08\x96\x01\x10\x02"])
                field += varint(len(payload)) + payload
            out.insert(r.randrange(len(out) + 1), (0, field))
    return b"".join(raw for _, raw in out)

# ------------------------------------------------------------ comparison


def same_number(a, b):
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if x == y or (math.isnan(x) and math.isnan(y)):
        return True
    try:
        return struct.pack("<f", x) == struct.pack("<f", y)
    except OverflowError:
        return False


def same_json(a, b):
    """`a` (quarry's) holds what `b` (Python's) holds. A `google.protobuf.
    Value` that holds nothing (mutations make them) is where the two
    printers part: C++, which quarry follows, leaves it out of an object or
    a list, Python prints null. So a null member or element of `b` may be
    missing from `a`."""
    if isinstance(a, dict) and isinstance(b, dict):
        if any(k not in b for k in a) or any(k not in a and b[k] is not None for k in b):
            return False
        return all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        i = 0
        for y in b:
            if i < len(a) and same_json(a[i], y):
                i += 1
            elif y is not None:
                return False
        return i == len(a)
    if isinstance(a, str) and isinstance(b, str):
        return a == b or same_number(a, b)
    return a == b


def first_difference(ours, theirs):
    for n, (x, y) in enumerate(zip(ours.splitlines(), theirs.splitlines())):
        if x != y:
            return f"line {n + 1}: quarry {x!r}, protoc {y!r}"
    return f"{len(ours.splitlines())} lines against {len(theirs.splitlines())}"


def messages_in(message):
    """`message` and every message inside it (fields, lists, map values)."""
    yield message
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            values = value.values() if field.message_type.fields_by_name["value"].message_type else []
        elif field.is_repeated:
            values = value
        else:
            values = [value]
        for v in values:
            yield from messages_in(v)


def cpp_refuses_field_mask(message):
    """Whether protobuf's C++ JSON printer, which quarry follows, refuses a
    FieldMask in `message` (at any depth): it takes only `a`-`z`, `0`-`9`,
    `.` and single `_`s in a path, byte by byte. Python's printer refuses
    upper case, a `_` not followed by a lower-case letter and a trailing
    `_`, and prints anything else, so the two part on such paths."""
    for m in messages_in(message):
        if m.DESCRIPTOR.full_name != "google.protobuf.FieldMask":
            continue
        for path in m.paths:
            after_underscore = False
            for c in path.encode("utf-8"):
                if (ord("a") <= c <= ord("z")) or (ord("0") <= c <= ord("9")) or c == ord("."):
                    after_underscore = False
                elif c == ord("_") and not after_underscore:
                    after_underscore = True
                else:
                    return True
    return False


def cpp_refuses_any_url(message):
    """Whether protobuf's C++ JSON printer refuses an Any in `message`
    for its type URL: it needs a `/` past the first byte ("@type must
    contain at least one / and a nonempty host"). Python's printer takes
    whatever follows the last `/`, or the whole URL."""
    return any(m.DESCRIPTOR.full_name == "google.protobuf.Any" and m.type_url
               and m.type_url.rfind("/") <= 0 for m in messages_in(message))


# What quarry refuses on purpose where protoc reads on (docs/protobuf.md):
# the words of its error message.
DOCUMENTED_REFUSALS = ("wrong wire type", "invalid UTF-8")


def documented_refusal(why):
    """The documented refusal `why` (an error message) reports, or None."""
    return next((k for k in DOCUMENTED_REFUSALS if k in why), None)


def check(quarry, work, case):
    """The differences of one input: a list of strings, or a refusal's
    documented reason."""
    n, directory, file, root, i, kind, data, message = case
    from google.protobuf import json_format
    path = os.path.join(work, f"input-{n}.bin")
    with open(path, "wb") as out:
        out.write(data)
    args = [quarry, "proto", "decode", "--proto", os.path.join(directory, file),
            "--include", wkt_include(), "--type", root]
    ours = subprocess.run(args + [path], capture_output=True)
    theirs = protoc(f"-I{directory}", f"-I{wkt_include()}", f"--decode={root}", file, stdin=data)
    shown = data.hex() if len(data) <= 64 else data[:64].hex() + "…"
    where = f"{root} #{i} ({kind}, {len(data)} bytes: {shown})"
    if ours.returncode != 0 and theirs.returncode == 0:
        why = ours.stderr.decode().strip()
        known = documented_refusal(why)
        if kind == "mutated" and known:
            return known
        return [f"{where}: quarry refused it ({why}), protoc did not"]
    if (ours.returncode == 0) != (theirs.returncode == 0):
        return [f"{where}: quarry exit {ours.returncode}, protoc exit {theirs.returncode}"
                f" ({theirs.stderr.decode().strip()})"]
    found, documented = [], None
    if (ours.returncode == 0 and ours.stdout != theirs.stdout and kind == "mutated"
            and repeats_a_map_key(data, message.DESCRIPTOR)):
        # protoc's dynamic message keeps every entry of a repeated map key
        # and prints each; quarry keeps the last, as a parsed map does
        # (docs/protobuf.md). Compare with protoc's text of protobuf's own
        # parse of the bytes, which holds the map as quarry does.
        again = type(message).FromString(data).SerializePartialToString()
        theirs = protoc(f"-I{directory}", f"-I{wkt_include()}", f"--decode={root}", file,
                        stdin=again)
        if ours.stdout == theirs.stdout:
            documented = "map key repeated (protoc prints every entry)"
    if ours.returncode == 0 and ours.stdout != theirs.stdout:
        found.append(f"{where}: text differs at "
                     + first_difference(ours.stdout.decode(), theirs.stdout.decode()))
    if ours.returncode == 0:
        # The mutated bytes as protobuf (upb) parses them: merges, repeated
        # scalars, oneof switches and unknown fields by its rules.
        parsed = message if kind == "canonical" else type(message).FromString(data)
        ours_json = subprocess.run(args + ["--json", path], capture_output=True)
        try:
            theirs_json = json_format.MessageToJson(parsed, indent=None)
        except Exception as e:  # SerializeToJsonError, or a packed Any that does not parse
            # A value with no JSON form (a duration whose signs disagree, a
            # timestamp past 9999, …): quarry must refuse it too, except a
            # FieldMask path that only Python refuses (C++ prints it).
            if ours_json.returncode == 0:
                if "FieldMask" in str(e) and not cpp_refuses_field_mask(parsed) and not found:
                    return "FieldMask path only Python refuses"
                found.append(f"{where}: --json printed what protobuf refuses ({e})")
            return found
        parse = lambda s: json.loads(s, parse_float=str, parse_int=str)
        if ours_json.returncode != 0:
            why = ours_json.stderr.decode().strip()
            if "unexpected character in FieldMask" in why and cpp_refuses_field_mask(parsed):
                # A path C++ refuses and Python prints.
                if not found:
                    return "FieldMask path only C++ refuses"
            elif "nonempty host" in why and cpp_refuses_any_url(parsed):
                if not found:
                    return "Any type URL only C++ refuses"
            elif (kind == "mutated" and "google.protobuf.Any: its" in why
                  and documented_refusal(why)):
                # The same documented refusals as above, met in the bytes an
                # Any packs, which only the JSON printer decodes.
                if not found:
                    return "in an Any: " + documented_refusal(why)
            else:
                found.append(f"{where}: --json failed: {why}")
        elif not same_json(parse(ours_json.stdout), parse(theirs_json)):
            found.append(f"{where}: JSON differs: quarry {ours_json.stdout.decode().strip()}"
                         f" protobuf {theirs_json}")
        found += check_encode(quarry, args, where, type(message), theirs_json)
    return found if found or documented is None else documented


def check_encode(quarry, args, where, cls, text):
    """`quarry proto encode --json` of protobuf's JSON `text` against
    `json_format.Parse` of it: the same message. Compared as protobuf's
    deterministic encodings of the two parses (map entries sorted by key),
    or, where those differ only inside an `Any` (whose packed bytes keep
    their map entries in the order each encoder wrote), as their JSON."""
    from google.protobuf import json_format
    encode = [quarry, "proto", "encode"] + args[3:] + ["--json", "-"]
    ours = subprocess.run(encode, input=text.encode(), capture_output=True)
    if ours.returncode != 0:
        return [f"{where}: encode --json failed: {ours.stderr.decode().strip()}\n    JSON: {text}"]
    try:
        got = cls.FromString(ours.stdout)
    except Exception as e:  # DecodeError
        return [f"{where}: encode --json wrote what protobuf cannot parse ({e})"]
    try:
        want = json_format.Parse(text, cls())
    except json_format.ParseError as e:
        # Python's printer writes the largest float as 3.4028235e+38, which
        # its parser then refuses as too large; quarry reads it (it rounds
        # to that float), so its own printer's output reads back.
        if "Float value too large" in str(e):
            return []
        return [f"{where}: protobuf cannot parse its own JSON ({e})"]
    if (got.SerializePartialToString(deterministic=True)
            == want.SerializePartialToString(deterministic=True)):
        return []
    parse = lambda s: json.loads(s, parse_float=str, parse_int=str)
    try:
        again = json_format.MessageToJson(got, indent=None)
    except Exception as e:
        return [f"{where}: encode --json wrote what has no JSON form ({e})"]
    if same_json(parse(again), parse(text)):
        return []
    return [f"{where}: encode --json of {text} reads back as {again}"]


def main():
    quarry = os.path.abspath(sys.argv[1])
    per_type = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    work = tempfile.mkdtemp(prefix="protoc-diff-")
    cases = []
    for directory, file, roots in SCHEMAS:
        directory = directory or waproto_dir()
        built = protoc(f"-I{directory}", f"-I{wkt_include()}", f"--python_out={work}", file)
        if built.returncode != 0:
            sys.exit(f"protoc_diff: protoc does not compile {file}: {built.stderr.decode()}")
        sys.path.insert(0, work)
        module = __import__(file[:-len(".proto")] + "_pb2")
        for root in roots:
            cls = getattr(module, root.rsplit(".", 1)[1])
            g = Gen(zlib.crc32(root.encode()))
            fill = 0.5 if file != "whatsapp.proto" else 0.15
            for i in range(per_type):
                message = cls()
                g.fill(message, 3, fill)
                canonical = message.SerializeToString()
                mutated = mutate(g, canonical, cls.DESCRIPTOR)
                for kind, data in (("canonical", canonical), ("mutated", mutated)):
                    cases.append((len(cases), directory, file, root, i, kind, data, message))
    # Each check is two or three processes: run as many at once as there
    # are cores.
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda c: check(quarry, work, c), cases))
    failures = [f for r in results if isinstance(r, list) for f in r]
    refused = {}
    for r in results:
        if isinstance(r, str):
            refused[r] = refused.get(r, 0) + 1
    print(f"protoc_diff: {len(cases)} inputs, {len(failures)} differences;"
          f" refused as documented: {refused}")
    for f in failures[:20]:
        print("  " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
