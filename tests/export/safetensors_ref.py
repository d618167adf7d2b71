"""A small reference implementation of the .safetensors format in Python
(json + numpy), written from the format description
(https://github.com/huggingface/safetensors, README "Format"), used to
cross-check symonnx's C reader and writer.  The `safetensors` package is not
installed here and torch 1.13 has no writer.

A tensor is (DTYPE, shape tuple, raw little-endian C-order bytes).
"""
import json
import struct

import numpy as np

MAX_HEADER = 100_000_000
SIZES = {'BOOL': 1, 'U8': 1, 'I8': 1, 'F8_E5M2': 1, 'F8_E4M3': 1, 'I16': 2,
         'U16': 2, 'F16': 2, 'BF16': 2, 'I32': 4, 'U32': 4, 'F32': 4, 'F64': 8,
         'I64': 8, 'U64': 8}
# The reference writer sorts by this order (its Dtype enum), descending, then
# by name, so every tensor is aligned to its element size.
DTYPE_ORDER = list(SIZES)
# numpy views of the raw bytes (bf16 has no numpy type: its bit pattern).
NUMPY = {'BOOL': '|b1', 'U8': '|u1', 'I8': '|i1', 'I16': '<i2', 'U16': '<u2',
         'F16': '<f2', 'BF16': '<u2', 'I32': '<i4', 'U32': '<u4', 'F32': '<f4',
         'F64': '<f8', 'I64': '<i8', 'U64': '<u8'}


def serialize(tensors, metadata=None):
    """tensors: {name: (dtype, shape, bytes)} -> the file's bytes."""
    order = sorted(tensors, key=lambda n: (-DTYPE_ORDER.index(tensors[n][0]), n))
    header = {}
    if metadata is not None:
        header['__metadata__'] = {k: metadata[k] for k in sorted(metadata)}
    offset = 0
    for name in order:
        dtype, shape, data = tensors[name]
        n = SIZES[dtype] * int(np.prod(shape, dtype=np.int64))
        assert len(data) == n, name
        header[name] = {'dtype': dtype, 'shape': list(shape),
                        'data_offsets': [offset, offset + n]}
        offset += n
    text = json.dumps(header, separators=(',', ':'), ensure_ascii=False).encode('utf-8')
    text += b' ' * ((8 - len(text) % 8) % 8)
    return struct.pack('<Q', len(text)) + text + b''.join(tensors[n][2] for n in order)


class FormatError(Exception):
    pass


def _no_dup_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise FormatError('duplicate key')
    return dict(pairs)


def deserialize(buf):
    """-> ({name: (dtype, shape, bytes)}, metadata or None); strict checks."""
    if len(buf) < 8:
        raise FormatError('shorter than 8 bytes')
    (n,) = struct.unpack('<Q', buf[:8])
    if n > MAX_HEADER or 8 + n > len(buf):
        raise FormatError(f'bad header length {n}')
    text = buf[8:8 + n].decode('utf-8')
    if not text.startswith('{'):
        raise FormatError('header does not start with {')
    header = json.loads(text, object_pairs_hook=_no_dup_keys)
    if not isinstance(header, dict):
        raise FormatError('header is not an object')
    metadata = header.pop('__metadata__', None)
    if metadata is not None and not (isinstance(metadata, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())):
        raise FormatError('bad __metadata__')
    data = buf[8 + n:]
    entries = []
    for name, info in header.items():
        dtype, shape, (b, e) = info['dtype'], info['shape'], info['data_offsets']
        if dtype not in SIZES or not all(isinstance(d, int) and d >= 0 for d in shape):
            raise FormatError(f'{name}: bad dtype or shape')
        if SIZES[dtype] * int(np.prod(shape, dtype=object)) != e - b:
            raise FormatError(f'{name}: size mismatch')
        entries.append((b, e, name))
    entries.sort()
    pos = 0
    for b, e, name in entries:
        if b != pos or e < b:
            raise FormatError(f'{name}: offsets do not tile the buffer')
        pos = e
    if pos != len(data):
        raise FormatError('data buffer not fully covered')
    out = {name: (header[name]['dtype'], tuple(header[name]['shape']), bytes(data[b:e]))
           for b, e, name in entries}
    return out, metadata


def to_numpy(dtype, shape, data):
    return np.frombuffer(data, dtype=np.dtype(NUMPY[dtype])).reshape(shape)
