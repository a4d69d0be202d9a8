"""tf.Example message classes for tests and benchmarks, built with the ``protobuf``
runtime from a descriptor written here (no protoc, nothing taken from TensorFlow).

``protobuf`` is not a colonnade dependency: callers skip when it is missing.
"""

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto


def _message(file, name, fields, nested=()):
    msg = file.message_type.add(name=name)
    for spec in nested:
        entry = msg.nested_type.add(name=spec[0])
        entry.options.map_entry = True
        for number, (fname, ftype, label, type_name) in enumerate(spec[1], start=1):
            f = entry.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                f.type_name = type_name
    for number, fname, ftype, label, type_name, packed in fields:
        f = msg.field.add(name=fname, number=number, type=ftype, label=label)
        if type_name:
            f.type_name = type_name
        if packed:
            f.options.packed = True
    return msg


def build():
    """``{name: message class}`` for Example, SequenceExample and their parts."""
    file = descriptor_pb2.FileDescriptorProto(
        name="colonnade_test_example.proto", package="cntest", syntax="proto3"
    )
    opt, rep = _F.LABEL_OPTIONAL, _F.LABEL_REPEATED
    _message(file, "BytesList", [(1, "value", _F.TYPE_BYTES, rep, None, False)])
    _message(file, "FloatList", [(1, "value", _F.TYPE_FLOAT, rep, None, True)])
    _message(file, "Int64List", [(1, "value", _F.TYPE_INT64, rep, None, True)])
    feature = _message(
        file,
        "Feature",
        [
            (1, "bytes_list", _F.TYPE_MESSAGE, opt, ".cntest.BytesList", False),
            (2, "float_list", _F.TYPE_MESSAGE, opt, ".cntest.FloatList", False),
            (3, "int64_list", _F.TYPE_MESSAGE, opt, ".cntest.Int64List", False),
        ],
    )
    feature.oneof_decl.add(name="kind")
    for f in feature.field:
        f.oneof_index = 0
    _message(
        file,
        "Features",
        [(1, "feature", _F.TYPE_MESSAGE, rep, ".cntest.Features.FeatureEntry", False)],
        nested=[
            (
                "FeatureEntry",
                [
                    ("key", _F.TYPE_STRING, opt, None),
                    ("value", _F.TYPE_MESSAGE, opt, ".cntest.Feature"),
                ],
            )
        ],
    )
    _message(file, "FeatureList", [(1, "feature", _F.TYPE_MESSAGE, rep, ".cntest.Feature", False)])
    _message(
        file,
        "FeatureLists",
        [(1, "feature_list", _F.TYPE_MESSAGE, rep, ".cntest.FeatureLists.FeatureListEntry", False)],
        nested=[
            (
                "FeatureListEntry",
                [
                    ("key", _F.TYPE_STRING, opt, None),
                    ("value", _F.TYPE_MESSAGE, opt, ".cntest.FeatureList"),
                ],
            )
        ],
    )
    _message(file, "Example", [(1, "features", _F.TYPE_MESSAGE, opt, ".cntest.Features", False)])
    _message(
        file,
        "SequenceExample",
        [
            (1, "context", _F.TYPE_MESSAGE, opt, ".cntest.Features", False),
            (2, "feature_lists", _F.TYPE_MESSAGE, opt, ".cntest.FeatureLists", False),
        ],
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    names = ["Example", "SequenceExample", "Features", "Feature", "FeatureList"]
    return {
        n: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"cntest.{n}")) for n in names
    }
