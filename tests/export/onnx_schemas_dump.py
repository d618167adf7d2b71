#!/usr/bin/python3
"""Prints every ONNX schema python3-onnx knows, one line each, in the form
tests/export/test-onnx-check.c rebuilds from export/check/onnx-schemas-generated.c:

  domain|op|since|deprecated|min_in|max_in|min_out|max_out|attrs|params

attrs: name:type:required,... sorted by name (type: AttributeProto number);
params: formal inputs then outputs, ';'-separated, each
  name:option:homogeneous:type_param:types
(option 0 single, 1 optional, 2 variadic; type_param '-' for a fixed type
list; types sorted, maps collapsed to 'map' / 'seq(map)').
With `lookup`, prints instead "op|opset|since" for every default-domain op
and opsets 1..onnx_opset_version()+1: the since_version of
onnx.defs.get_schema(op, opset, ""), or -1 when there is none.
Exit 77 when python3-onnx is missing.
"""
import sys

try:
    import onnx.defs
except ImportError:
    sys.exit(77)


def norm(ty):
    ty = ty.replace(' ', '')
    if ty.startswith('map('):
        return 'map'
    if ty.startswith('seq(map('):
        return 'seq(map)'
    return ty


def lookups():
    ops = sorted({s.name for s in onnx.defs.get_all_schemas_with_history() if s.domain == ''})
    for op in ops:
        for opset in range(1, onnx.defs.onnx_opset_version() + 2):
            try:
                since = onnx.defs.get_schema(op, opset, '').since_version
            except onnx.defs.SchemaError:
                since = -1
            print('%s|%d|%d' % (op, opset, since))


if len(sys.argv) > 1 and sys.argv[1] == 'lookup':
    lookups()
    sys.exit(0)

for s in sorted(onnx.defs.get_all_schemas_with_history(),
                key=lambda s: (s.domain, s.name, s.since_version)):
    tps = {tc.type_param_str for tc in s.type_constraints}
    attrs = ','.join('%s:%d:%d' % (n, a.type.value, a.required)
                     for n, a in sorted(s.attributes.items()))
    params = ';'.join('%s:%d:%d:%s:%s' % (p.name, p.option.value, p.isHomogeneous,
                                          p.typeStr if p.typeStr in tps else '-',
                                          ' '.join(sorted({norm(t) for t in p.types})))
                      for p in list(s.inputs) + list(s.outputs))
    print('%s|%s|%d|%d|%d|%d|%d|%d|%s|%s' % (s.domain, s.name, s.since_version, s.deprecated,
                                             s.min_input, s.max_input, s.min_output,
                                             s.max_output, attrs, params))
