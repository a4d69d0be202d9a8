# Copyright 2016 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# ==============================================================================
# Ported to colonnade: TF's inputs, expected values and tolerances are kept verbatim;
# graph-mode branches are replaced by their eager equivalents.
# ruff: noqa: E501, UP004, UP031, UP034
"""TF's tensorflow/python/util/nest_test.py, ported: every test of the public ``tf.nest``
(``flatten``, ``pack_sequence_as``, ``map_structure``, ``assert_same_structure``,
``is_nested``), run on colonnade by default and on TF 2.15 with
``COLONNADE_TF_BACKEND=tf`` (tests/tf/run_against_tf.sh).

``constant_op.constant`` / ``array_ops.ones`` / ``math_ops.tanh`` come from tf_backend
(numpy arrays under colonnade). Not ported (not public ``tf.nest``, or graph-only): the
``*_up_to``, ``*_with_paths``, ``*_with_tuple_paths``, ``yield_flat_paths``,
``get_traverse_shallow_structure``, ``assert_shallow_structure``, ``list_to_tuple``,
``flatten_dict_items``, ``is_namedtuple``, ``same_namedtuples`` and ``CustomNestProtocol``
tests; testAttrsFlattenAndPack's two asserts on the private ``nest._is_attrs``;
testPackSequenceAs_CompositeTensor (RaggedTensor, ``expand_composites``);
testMapStructureOverPlaceholders (placeholders need graph mode). tests/tf/MANIFEST.md
lists them.
"""

import collections
import collections.abc
import dataclasses

import attr
import numpy as np
from tf_backend import constant, nest, ones, reduce_all, tanh, zeros
from tf_test_case import TFTestCase, expand_parameters, parameters


class _CustomMapping(collections.abc.Mapping):
    def __init__(self, *args, **kwargs):
        self._wrapped = dict(*args, **kwargs)

    def __getitem__(self, key):
        return self._wrapped[key]

    def __iter__(self):
        return iter(self._wrapped)

    def __len__(self):
        return len(self._wrapped)


class _CustomSequenceThatRaisesException(collections.abc.Sequence):
    def __len__(self):
        return 1

    def __getitem__(self, item):
        raise ValueError("Cannot get item: %s" % item)


@dataclasses.dataclass
class MaskedTensor:
    mask: bool
    value: object

    def __tf_flatten__(self):
        metadata = (self.mask,)
        components = (self.value,)
        return metadata, components

    @classmethod
    def __tf_unflatten__(cls, metadata, components):
        mask = metadata[0]
        value = components[0]
        return MaskedTensor(mask=mask, value=value)

    def __eq__(self, other):
        return self.mask == other.mask and reduce_all(self.value == other.value)

    def __len__(self):
        return 1


@dataclasses.dataclass
class NestedMaskedTensor:
    mask: bool
    value: MaskedTensor

    @classmethod
    def nested_masked_tensor_with_opposite_masks(cls, mask, inner_value):
        return NestedMaskedTensor(mask=mask, value=MaskedTensor(mask=not mask, value=inner_value))

    def __tf_flatten__(self):
        metadata = (self.mask,)
        components = (self.value,)
        return metadata, components

    @classmethod
    def __tf_unflatten__(cls, metadata, components):
        mask = metadata[0]
        value = components[0]
        return NestedMaskedTensor(mask=mask, value=value)

    def __eq__(self, other):
        return self.mask == other.mask and self.value == other.value

    def __len__(self):
        return 1


PointXY = collections.namedtuple("Point", ["x", "y"])


@expand_parameters
class NestTest(TFTestCase):
    PointXY = PointXY
    unsafe_map_pattern = "nest cannot guarantee that it is safe to map one to the other."
    bad_pack_pattern = (
        "Attempted to pack value:\n  .+\ninto a structure, but "
        "found incompatible type `<(type|class) 'str'>` instead."
    )

    class BadAttr(object):
        """Class that has a non-iterable __attrs_attrs__."""

        __attrs_attrs__ = None

    @attr.s
    class SampleAttr(object):
        field1 = attr.ib()
        field2 = attr.ib()

    @attr.s
    class UnsortedSampleAttr(object):
        field3 = attr.ib()
        field1 = attr.ib()
        field2 = attr.ib()

    def testDataclassIsNested(self):
        mt = MaskedTensor(mask=True, value=constant([1]))
        self.assertTrue(nest.is_nested(mt))

    def testDataclassFlatten(self):
        mt = MaskedTensor(mask=True, value=constant([1]))
        leaves = nest.flatten(mt)
        self.assertLen(leaves, 1)
        self.assertAllEqual(leaves[0], [1])

    def testDataclassFlattenAndPack(self):
        mt = MaskedTensor(mask=True, value=constant([1]))
        leaves = nest.flatten(mt)
        reconstructed_mt = nest.pack_sequence_as(mt, leaves)
        self.assertIsInstance(reconstructed_mt, MaskedTensor)
        self.assertEqual(reconstructed_mt, mt)

    def testDataclassMapStructure(self):
        mt = MaskedTensor(mask=True, value=constant([1]))
        mt_doubled = nest.map_structure(lambda x: x * 2, mt)
        self.assertIsInstance(mt_doubled, MaskedTensor)
        self.assertEqual(mt_doubled.mask, True)
        self.assertAllEqual(mt_doubled.value, [2])

    def testNestedDataclassIsNested(self):
        mt = MaskedTensor(mask=True, value=constant([1]))
        self.assertTrue(nest.is_nested(mt))

        nmt = NestedMaskedTensor.nested_masked_tensor_with_opposite_masks(
            mask=True, inner_value=constant([1])
        )
        self.assertTrue(nest.is_nested(nmt))

    def testNestedDataclassFlatten(self):
        nmt = NestedMaskedTensor.nested_masked_tensor_with_opposite_masks(
            mask=True, inner_value=constant([1])
        )
        leaves = nest.flatten(nmt)
        self.assertLen(leaves, 1)
        self.assertAllEqual(leaves[0], [1])

    def testNestedDataclassFlattenAndPack(self):
        nmt = NestedMaskedTensor.nested_masked_tensor_with_opposite_masks(
            mask=True, inner_value=constant([1])
        )
        leaves = nest.flatten(nmt)
        reconstructed_mt = nest.pack_sequence_as(nmt, leaves)
        self.assertIsInstance(reconstructed_mt, NestedMaskedTensor)
        self.assertEqual(reconstructed_mt, nmt)

    def testNestedDataclassMapStructure(self):
        nmt = NestedMaskedTensor.nested_masked_tensor_with_opposite_masks(
            mask=True, inner_value=constant([1])
        )
        mt_doubled = nest.map_structure(lambda x: x * 2, nmt)
        expected = NestedMaskedTensor.nested_masked_tensor_with_opposite_masks(
            mask=True, inner_value=constant([2])
        )

        self.assertIsInstance(mt_doubled, NestedMaskedTensor)
        self.assertEqual(mt_doubled.mask, expected.mask)
        self.assertEqual(mt_doubled.value.mask, expected.value.mask)
        self.assertAllEqual(mt_doubled.value.value, expected.value.value)

    def testAttrsFlattenAndPack(self):
        field_values = [1, 2]
        sample_attr = NestTest.SampleAttr(*field_values)
        flat = nest.flatten(sample_attr)
        self.assertEqual(field_values, flat)
        restructured_from_flat = nest.pack_sequence_as(sample_attr, flat)
        self.assertIsInstance(restructured_from_flat, NestTest.SampleAttr)
        self.assertEqual(restructured_from_flat, sample_attr)

        # Check that flatten fails if attributes are not iterable
        with self.assertRaisesRegex(TypeError, "object is not iterable"):
            flat = nest.flatten(NestTest.BadAttr())

    @parameters(
        {"values": [1, 2, 3]},
        {"values": [{"B": 10, "A": 20}, [1, 2], 3]},
        {"values": [(1, 2), [3, 4], 5]},
        {"values": [PointXY(1, 2), 3, 4]},
    )
    def testAttrsMapStructure(self, values):
        structure = NestTest.UnsortedSampleAttr(*values)
        new_structure = nest.map_structure(lambda x: x, structure)
        self.assertEqual(structure, new_structure)

    def testFlattenAndPack(self):
        structure = ((3, 4), 5, (6, 7, (9, 10), 8))
        flat = ["a", "b", "c", "d", "e", "f", "g", "h"]
        self.assertEqual(nest.flatten(structure), [3, 4, 5, 6, 7, 9, 10, 8])
        self.assertEqual(
            nest.pack_sequence_as(structure, flat), (("a", "b"), "c", ("d", "e", ("f", "g"), "h"))
        )
        structure = (NestTest.PointXY(x=4, y=2), ((NestTest.PointXY(x=1, y=0),),))
        flat = [4, 2, 1, 0]
        self.assertEqual(nest.flatten(structure), flat)
        restructured_from_flat = nest.pack_sequence_as(structure, flat)
        self.assertEqual(restructured_from_flat, structure)
        self.assertEqual(restructured_from_flat[0].x, 4)
        self.assertEqual(restructured_from_flat[0].y, 2)
        self.assertEqual(restructured_from_flat[1][0][0].x, 1)
        self.assertEqual(restructured_from_flat[1][0][0].y, 0)

        self.assertEqual([5], nest.flatten(5))
        self.assertEqual([np.array([5])], nest.flatten(np.array([5])))

        self.assertEqual("a", nest.pack_sequence_as(5, ["a"]))
        self.assertEqual(np.array([5]), nest.pack_sequence_as("scalar", [np.array([5])]))

        with self.assertRaisesRegex(ValueError, self.unsafe_map_pattern):
            nest.pack_sequence_as("scalar", [4, 5])

        with self.assertRaisesRegex(TypeError, self.bad_pack_pattern):
            nest.pack_sequence_as([4, 5], "bad_sequence")

        with self.assertRaises(ValueError):
            nest.pack_sequence_as([5, 6, [7, 8]], ["a", "b", "c"])

    @parameters({"mapping_type": collections.OrderedDict}, {"mapping_type": _CustomMapping})
    def testFlattenDictOrder(self, mapping_type):
        """`flatten` orders dicts by key, including OrderedDicts."""
        ordered = mapping_type([("d", 3), ("b", 1), ("a", 0), ("c", 2)])
        plain = {"d": 3, "b": 1, "a": 0, "c": 2}
        ordered_flat = nest.flatten(ordered)
        plain_flat = nest.flatten(plain)
        self.assertEqual([0, 1, 2, 3], ordered_flat)
        self.assertEqual([0, 1, 2, 3], plain_flat)

    @parameters({"mapping_type": collections.OrderedDict}, {"mapping_type": _CustomMapping})
    def testPackDictOrder(self, mapping_type):
        """Packing orders dicts by key, including OrderedDicts."""
        custom = mapping_type([("d", 0), ("b", 0), ("a", 0), ("c", 0)])
        plain = {"d": 0, "b": 0, "a": 0, "c": 0}
        seq = [0, 1, 2, 3]
        custom_reconstruction = nest.pack_sequence_as(custom, seq)
        plain_reconstruction = nest.pack_sequence_as(plain, seq)
        self.assertIsInstance(custom_reconstruction, mapping_type)
        self.assertIsInstance(plain_reconstruction, dict)
        self.assertEqual(
            mapping_type([("d", 3), ("b", 1), ("a", 0), ("c", 2)]), custom_reconstruction
        )
        self.assertEqual({"d": 3, "b": 1, "a": 0, "c": 2}, plain_reconstruction)

    def testFlattenAndPackMappingViews(self):
        """`flatten` orders dicts by key, including OrderedDicts."""
        ordered = collections.OrderedDict([("d", 3), ("b", 1), ("a", 0), ("c", 2)])

        # test flattening
        ordered_keys_flat = nest.flatten(ordered.keys())
        ordered_values_flat = nest.flatten(ordered.values())
        ordered_items_flat = nest.flatten(ordered.items())
        self.assertEqual([3, 1, 0, 2], ordered_values_flat)
        self.assertEqual(["d", "b", "a", "c"], ordered_keys_flat)
        self.assertEqual(["d", 3, "b", 1, "a", 0, "c", 2], ordered_items_flat)

        # test packing
        self.assertEqual(
            [("d", 3), ("b", 1), ("a", 0), ("c", 2)],
            nest.pack_sequence_as(ordered.items(), ordered_items_flat),
        )

    Abc = collections.namedtuple("A", ("b", "c"))

    def testFlattenAndPack_withDicts(self):  # noqa: N802
        # A nice messy mix of tuples, lists, dicts, and `OrderedDict`s.
        mess = [
            "z",
            NestTest.Abc(3, 4),
            {
                "d": _CustomMapping({41: 4}),
                "c": [
                    1,
                    collections.OrderedDict(
                        [
                            ("b", 3),
                            ("a", 2),
                        ]
                    ),
                ],
                "b": 5,
            },
            17,
        ]

        flattened = nest.flatten(mess)
        self.assertEqual(flattened, ["z", 3, 4, 5, 1, 2, 3, 4, 17])

        structure_of_mess = [
            14,
            NestTest.Abc("a", True),
            {
                "d": _CustomMapping({41: 42}),
                "c": [
                    0,
                    collections.OrderedDict(
                        [
                            ("b", 9),
                            ("a", 8),
                        ]
                    ),
                ],
                "b": 3,
            },
            "hi everybody",
        ]

        unflattened = nest.pack_sequence_as(structure_of_mess, flattened)
        self.assertEqual(unflattened, mess)

        # Check also that the OrderedDict was created, with the correct key order.
        unflattened_ordered_dict = unflattened[2]["c"][1]
        self.assertIsInstance(unflattened_ordered_dict, collections.OrderedDict)
        self.assertEqual(list(unflattened_ordered_dict.keys()), ["b", "a"])

        unflattened_custom_mapping = unflattened[2]["d"]
        self.assertIsInstance(unflattened_custom_mapping, _CustomMapping)
        self.assertEqual(list(unflattened_custom_mapping.keys()), [41])

    def testFlatten_numpyIsNotFlattened(self):  # noqa: N802
        structure = np.array([1, 2, 3])
        flattened = nest.flatten(structure)
        self.assertLen(flattened, 1)

    def testFlatten_stringIsNotFlattened(self):  # noqa: N802
        structure = "lots of letters"
        flattened = nest.flatten(structure)
        self.assertLen(flattened, 1)
        unflattened = nest.pack_sequence_as("goodbye", flattened)
        self.assertEqual(structure, unflattened)

    def testPackSequenceAs_notIterableError(self):  # noqa: N802
        with self.assertRaisesRegex(TypeError, self.bad_pack_pattern):
            nest.pack_sequence_as("hi", "bye")

    def testPackSequenceAs_wrongLengthsError(self):  # noqa: N802
        with self.assertRaisesRegex(
            ValueError, "Structure had 2 atoms, but flat_sequence had 3 items."
        ):
            nest.pack_sequence_as(["hello", "world"], ["and", "goodbye", "again"])

    def testIsNested(self):
        self.assertFalse(nest.is_nested("1234"))
        self.assertTrue(nest.is_nested([1, 3, [4, 5]]))
        self.assertTrue(nest.is_nested(((7, 8), (5, 6))))
        self.assertTrue(nest.is_nested([]))
        self.assertTrue(nest.is_nested({"a": 1, "b": 2}))
        self.assertTrue(nest.is_nested({"a": 1, "b": 2}.keys()))
        self.assertTrue(nest.is_nested({"a": 1, "b": 2}.values()))
        self.assertTrue(nest.is_nested({"a": 1, "b": 2}.items()))
        self.assertFalse(nest.is_nested(set([1, 2])))
        ones_ = ones([2, 3])
        self.assertFalse(nest.is_nested(ones_))
        self.assertFalse(nest.is_nested(tanh(ones_)))
        self.assertFalse(nest.is_nested(np.ones((4, 5))))

    Named0ab = collections.namedtuple("named_0", ("a", "b"))
    Named1ab = collections.namedtuple("named_1", ("a", "b"))
    SameNameab = collections.namedtuple("same_name", ("a", "b"))
    SameNameab2 = collections.namedtuple("same_name", ("a", "b"))
    SameNamexy = collections.namedtuple("same_name", ("x", "y"))
    SameName1xy = collections.namedtuple("same_name_1", ("x", "y"))
    SameName1xy2 = collections.namedtuple("same_name_1", ("x", "y"))
    NotSameName = collections.namedtuple("not_same_name", ("a", "b"))

    class SameNamedType1(SameNameab):
        pass

    def testAssertSameStructure(self):
        structure1 = (((1, 2), 3), 4, (5, 6))
        structure2 = ((("foo1", "foo2"), "foo3"), "foo4", ("foo5", "foo6"))
        structure_different_num_elements = ("spam", "eggs")
        structure_different_nesting = (((1, 2), 3), 4, 5, (6,))
        nest.assert_same_structure(structure1, structure2)
        nest.assert_same_structure("abc", 1.0)
        nest.assert_same_structure("abc", np.array([0, 1]))
        nest.assert_same_structure("abc", constant([0, 1]))

        with self.assertRaisesRegex(
            ValueError,
            (
                "The two structures don't have the same nested structure\\.\n\n"
                "First structure:.*?\n\n"
                "Second structure:.*\n\n"
                "More specifically: Substructure "
                r'"type=tuple str=\(\(1, 2\), 3\)" is a sequence, while '
                'substructure "type=str str=spam" is not\n'
                "Entire first structure:\n"
                r"\(\(\(\., \.\), \.\), \., \(\., \.\)\)\n"
                "Entire second structure:\n"
                r"\(\., \.\)"
            ),
        ):
            nest.assert_same_structure(structure1, structure_different_num_elements)

        with self.assertRaisesRegex(
            ValueError,
            (
                "The two structures don't have the same nested structure\\.\n\n"
                "First structure:.*?\n\n"
                "Second structure:.*\n\n"
                r'More specifically: Substructure "type=list str=\[0, 1\]" '
                r'is a sequence, while substructure "type=ndarray str=\[0 1\]" '
                "is not"
            ),
        ):
            nest.assert_same_structure([0, 1], np.array([0, 1]))

        with self.assertRaisesRegex(
            ValueError,
            (
                "The two structures don't have the same nested structure\\.\n\n"
                "First structure:.*?\n\n"
                "Second structure:.*\n\n"
                r'More specifically: Substructure "type=list str=\[0, 1\]" '
                'is a sequence, while substructure "type=int str=0" '
                "is not"
            ),
        ):
            nest.assert_same_structure(0, [0, 1])

        self.assertRaises(TypeError, nest.assert_same_structure, (0, 1), [0, 1])

        with self.assertRaisesRegex(
            ValueError,
            (
                "don't have the same nested structure\\.\n\nFirst structure: .*?\n\nSecond structure: "
            ),
        ):
            nest.assert_same_structure(structure1, structure_different_nesting)

        self.assertRaises(
            TypeError, nest.assert_same_structure, (0, 1), NestTest.Named0ab("a", "b")
        )

        nest.assert_same_structure(NestTest.Named0ab(3, 4), NestTest.Named0ab("a", "b"))

        self.assertRaises(
            TypeError,
            nest.assert_same_structure,
            NestTest.Named0ab(3, 4),
            NestTest.Named1ab(3, 4),
        )

        with self.assertRaisesRegex(
            ValueError,
            (
                "don't have the same nested structure\\.\n\nFirst structure: .*?\n\nSecond structure: "
            ),
        ):
            nest.assert_same_structure(NestTest.Named0ab(3, 4), NestTest.Named0ab([3], 4))

        with self.assertRaisesRegex(
            ValueError,
            (
                "don't have the same nested structure\\.\n\nFirst structure: .*?\n\nSecond structure: "
            ),
        ):
            nest.assert_same_structure([[3], 4], [3, [4]])

        structure1_list = [[[1, 2], 3], 4, [5, 6]]
        with self.assertRaisesRegex(TypeError, "don't have the same sequence type"):
            nest.assert_same_structure(structure1, structure1_list)
        nest.assert_same_structure(structure1, structure2, check_types=False)
        nest.assert_same_structure(structure1, structure1_list, check_types=False)

        with self.assertRaisesRegex(ValueError, "don't have the same set of keys"):
            nest.assert_same_structure({"a": 1}, {"b": 1})

        nest.assert_same_structure(NestTest.SameNameab(0, 1), NestTest.SameNameab2(2, 3))

        # This assertion is expected to pass: two namedtuples with the same
        # name and field names are considered to be identical.
        nest.assert_same_structure(
            NestTest.SameNameab(NestTest.SameName1xy(0, 1), 2),
            NestTest.SameNameab2(NestTest.SameName1xy2(2, 3), 4),
        )

        expected_message = "The two structures don't have the same.*"
        with self.assertRaisesRegex(ValueError, expected_message):
            nest.assert_same_structure(
                NestTest.SameNameab(0, NestTest.SameNameab2(1, 2)),
                NestTest.SameNameab2(NestTest.SameNameab(0, 1), 2),
            )

        self.assertRaises(
            TypeError,
            nest.assert_same_structure,
            NestTest.SameNameab(0, 1),
            NestTest.NotSameName(2, 3),
        )

        self.assertRaises(
            TypeError,
            nest.assert_same_structure,
            NestTest.SameNameab(0, 1),
            NestTest.SameNamexy(2, 3),
        )

        self.assertRaises(
            TypeError,
            nest.assert_same_structure,
            NestTest.SameNameab(0, 1),
            NestTest.SameNamedType1(2, 3),
        )

    EmptyNT = collections.namedtuple("empty_nt", "")

    def testHeterogeneousComparison(self):
        nest.assert_same_structure({"a": 4}, _CustomMapping(a=3))
        nest.assert_same_structure(_CustomMapping(b=3), {"b": 4})

    def testMapStructure(self):
        structure1 = (((1, 2), 3), 4, (5, 6))
        structure2 = (((7, 8), 9), 10, (11, 12))
        structure1_plus1 = nest.map_structure(lambda x: x + 1, structure1)
        nest.assert_same_structure(structure1, structure1_plus1)
        self.assertAllEqual([2, 3, 4, 5, 6, 7], nest.flatten(structure1_plus1))
        structure1_plus_structure2 = nest.map_structure(lambda x, y: x + y, structure1, structure2)
        self.assertEqual(
            (((1 + 7, 2 + 8), 3 + 9), 4 + 10, (5 + 11, 6 + 12)), structure1_plus_structure2
        )

        self.assertEqual(3, nest.map_structure(lambda x: x - 1, 4))

        self.assertEqual(7, nest.map_structure(lambda x, y: x + y, 3, 4))

        structure3 = collections.defaultdict(list)
        structure3["a"] = [1, 2, 3, 4]
        structure3["b"] = [2, 3, 4, 5]

        expected_structure3 = collections.defaultdict(list)
        expected_structure3["a"] = [2, 3, 4, 5]
        expected_structure3["b"] = [3, 4, 5, 6]
        self.assertEqual(expected_structure3, nest.map_structure(lambda x: x + 1, structure3))

        # Empty structures
        self.assertEqual((), nest.map_structure(lambda x: x + 1, ()))
        self.assertEqual([], nest.map_structure(lambda x: x + 1, []))
        self.assertEqual({}, nest.map_structure(lambda x: x + 1, {}))
        self.assertEqual(
            NestTest.EmptyNT(), nest.map_structure(lambda x: x + 1, NestTest.EmptyNT())
        )

        # This is checking actual equality of types, empty list != empty tuple
        self.assertNotEqual((), nest.map_structure(lambda x: x + 1, []))

        with self.assertRaisesRegex(TypeError, "callable"):
            nest.map_structure("bad", structure1_plus1)

        with self.assertRaisesRegex(ValueError, "at least one structure"):
            nest.map_structure(lambda x: x)

        with self.assertRaisesRegex(ValueError, "same number of elements"):
            nest.map_structure(lambda x, y: None, (3, 4), (3, 4, 5))

        with self.assertRaisesRegex(ValueError, "same nested structure"):
            nest.map_structure(lambda x, y: None, 3, (3,))

        with self.assertRaisesRegex(TypeError, "same sequence type"):
            nest.map_structure(lambda x, y: None, ((3, 4), 5), [(3, 4), 5])

        with self.assertRaisesRegex(ValueError, "same nested structure"):
            nest.map_structure(lambda x, y: None, ((3, 4), 5), (3, (4, 5)))

        structure1_list = [[[1, 2], 3], 4, [5, 6]]
        with self.assertRaisesRegex(TypeError, "same sequence type"):
            nest.map_structure(lambda x, y: None, structure1, structure1_list)

        nest.map_structure(lambda x, y: None, structure1, structure1_list, check_types=False)

        with self.assertRaisesRegex(ValueError, "same nested structure"):
            nest.map_structure(lambda x, y: None, ((3, 4), 5), (3, (4, 5)), check_types=False)

        with self.assertRaisesRegex(ValueError, "Only valid keyword argument.*foo"):
            nest.map_structure(lambda x: None, structure1, foo="a")

        with self.assertRaisesRegex(ValueError, "Only valid keyword argument.*foo"):
            nest.map_structure(lambda x: None, structure1, check_types=False, foo="a")

    ABTuple = collections.namedtuple("ab_tuple", "a, b")

    def testMapStructureWithStrings(self):
        inp_a = NestTest.ABTuple(a="foo", b=("bar", "baz"))
        inp_b = NestTest.ABTuple(a=2, b=(1, 3))
        out = nest.map_structure(lambda string, repeats: string * repeats, inp_a, inp_b)
        self.assertEqual("foofoo", out.a)
        self.assertEqual("bar", out.b[0])
        self.assertEqual("bazbazbaz", out.b[1])

        nt = NestTest.ABTuple(a=("something", "something_else"), b="yet another thing")
        rev_nt = nest.map_structure(lambda x: x[::-1], nt)
        # Check the output is the correct structure, and all strings are reversed.
        nest.assert_same_structure(nt, rev_nt)
        self.assertEqual(nt.a[0][::-1], rev_nt.a[0])
        self.assertEqual(nt.a[1][::-1], rev_nt.a[1])
        self.assertEqual(nt.b[::-1], rev_nt.b)

    def testFlattenCustomSequenceThatRaisesException(self):  # b/140746865
        seq = _CustomSequenceThatRaisesException()
        with self.assertRaisesRegex(ValueError, "Cannot get item"):
            nest.flatten(seq)

    def testInvalidCheckTypes(self):
        with self.assertRaises((ValueError, TypeError)):
            nest.assert_same_structure(
                nest1=zeros((1)), nest2=ones((1, 1, 1)), check_types=ones((2))
            )
        with self.assertRaises((ValueError, TypeError)):
            nest.assert_same_structure(
                nest1=zeros((1)), nest2=ones((1, 1, 1)), expand_composites=ones((2))
            )
