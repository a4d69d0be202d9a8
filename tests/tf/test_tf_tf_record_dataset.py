# Copyright 2017 The TensorFlow Authors. All Rights Reserved.
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
# ruff: noqa: UP031, E501
"""TF's tensorflow/python/data/kernel_tests/tf_record_dataset_test.py (with the files and
records of tf_record_test_base.TFRecordTestBase), ported, run on colonnade by default and
on TF 2.15 with ``COLONNADE_TF_BACKEND=tf`` (tests/tf/run_against_tf.sh).

Translation: ``assertDatasetProduces`` compares the elements in order (or as a multiset
where TF passes ``assert_items_equal``); colonnade's elements are the rows of the
``record`` column (one list per batch after ``batch``). ``constant_op.constant([1, 2, 3])``
names TF's default dtype (``int32``), and ``Dataset.from_tensor_slices(filenames)`` is a
dict of one column of file names on colonnade, whose tensor slices are dicts. The
checkpoint test class keeps its datasets and output counts; its ``verify_fn`` (save and
restore an iterator mid-way: TF's graph iterators, which colonnade has not) is the count
of what one pass produces.
"""

import gzip
import os
import pathlib
import shutil
import tempfile
import zlib

from tf_backend import ON_TF, constant, int32
from tf_test_case import TFTestCase, expand_parameters, parameters

if ON_TF:
    import tensorflow as tf

    readers = tf.data
    TFRecordWriter = tf.io.TFRecordWriter

    def files_dataset(names):
        return tf.data.Dataset.from_tensor_slices(names)

    def produced(dataset):
        return [_plain(e.numpy()) for e in dataset]

    def _plain(value):
        return value.tolist() if hasattr(value, "tolist") else value
else:
    import colonnade as cn

    readers = cn.data
    TFRecordWriter = cn.io.TFRecordWriter

    def files_dataset(names):
        return cn.data.Dataset.from_tensor_slices({"filename": names})

    def produced(dataset):
        out = []
        for batch in dataset:
            records = batch.column("record").to_pylist()
            if dataset.batched:
                out.append(records)
            else:
                out.extend(records)
        return out


class TFRecordTestBase(TFTestCase):
    def setUp(self):
        super().setUp()
        self._temp_dir = tempfile.mkdtemp()
        self._num_files = 2
        self._num_records = 7
        self._filenames = self._createFiles()

    def tearDown(self):
        shutil.rmtree(self._temp_dir, ignore_errors=True)
        super().tearDown()

    def get_temp_dir(self):
        return self._temp_dir

    def _record(self, f, r):
        return ("Record %d of file %d" % (r, f)).encode()

    def _createFiles(self):
        filenames = []
        for i in range(self._num_files):
            fn = os.path.join(self.get_temp_dir(), "tf_record.%d.txt" % i)
            filenames.append(fn)
            writer = TFRecordWriter(fn)
            for j in range(self._num_records):
                writer.write(self._record(i, j))
            writer.close()
        return filenames

    def assertDatasetProduces(self, dataset, expected_output, assert_items_equal=False):  # noqa: N802
        actual = produced(dataset)
        if assert_items_equal:
            self.assertCountEqual(expected_output, actual)
        else:
            self.assertEqual(expected_output, actual)


class TFRecordDatasetTest(TFRecordTestBase):
    def _dataset_factory(self, filenames, compression_type="", num_epochs=1, batch_size=None):
        repeat_dataset = readers.TFRecordDataset(filenames, compression_type).repeat(num_epochs)
        if batch_size:
            return repeat_dataset.batch(batch_size)
        return repeat_dataset

    def testConstructorErrorsTensorInput(self):
        with self.assertRaisesRegex(
            TypeError,
            "The `filenames` argument must contain `tf.string` elements. Got `tf.int32` elements.",
        ):
            readers.TFRecordDataset([1, 2, 3])
        with self.assertRaisesRegex(
            TypeError,
            "The `filenames` argument must contain `tf.string` elements. Got `tf.int32` elements.",
        ):
            readers.TFRecordDataset(constant([1, 2, 3], dtype=int32))
        # convert_to_tensor raises different errors in graph and eager
        with self.assertRaises(Exception):  # noqa: B017
            readers.TFRecordDataset(object())

    def testReadOneEpoch(self):
        # Basic test: read from file 0.
        dataset = self._dataset_factory(self._filenames[0])
        self.assertDatasetProduces(
            dataset, expected_output=[self._record(0, i) for i in range(self._num_records)]
        )

        # Basic test: read from file 1.
        dataset = self._dataset_factory(self._filenames[1])
        self.assertDatasetProduces(
            dataset, expected_output=[self._record(1, i) for i in range(self._num_records)]
        )

        # Basic test: read from both files.
        dataset = self._dataset_factory(self._filenames)
        expected_output = []
        for j in range(self._num_files):
            expected_output.extend([self._record(j, i) for i in range(self._num_records)])
        self.assertDatasetProduces(dataset, expected_output=expected_output)

    def testReadTenEpochs(self):
        dataset = self._dataset_factory(self._filenames, num_epochs=10)
        expected_output = []
        for j in range(self._num_files):
            expected_output.extend([self._record(j, i) for i in range(self._num_records)])
        self.assertDatasetProduces(dataset, expected_output=expected_output * 10)

    def testReadTenEpochsOfBatches(self):
        dataset = self._dataset_factory(
            self._filenames, num_epochs=10, batch_size=self._num_records
        )
        expected_output = []
        for j in range(self._num_files):
            expected_output.append([self._record(j, i) for i in range(self._num_records)])
        self.assertDatasetProduces(dataset, expected_output=expected_output * 10)

    def testReadZlibFiles(self):
        zlib_files = []
        for i, fn in enumerate(self._filenames):
            with open(fn, "rb") as f:
                cdata = zlib.compress(f.read())

                zfn = os.path.join(self.get_temp_dir(), "tfrecord_%s.z" % i)
                with open(zfn, "wb") as f:
                    f.write(cdata)
                zlib_files.append(zfn)
        expected_output = []
        for j in range(self._num_files):
            expected_output.extend([self._record(j, i) for i in range(self._num_records)])
        dataset = self._dataset_factory(zlib_files, compression_type="ZLIB")
        self.assertDatasetProduces(dataset, expected_output=expected_output)

    def testReadGzipFiles(self):
        gzip_files = []
        for i, fn in enumerate(self._filenames):
            with open(fn, "rb") as f:
                gzfn = os.path.join(self.get_temp_dir(), "tfrecord_%s.gz" % i)
                with gzip.GzipFile(gzfn, "wb") as gzf:
                    gzf.write(f.read())
                gzip_files.append(gzfn)
        expected_output = []
        for j in range(self._num_files):
            expected_output.extend([self._record(j, i) for i in range(self._num_records)])
        dataset = self._dataset_factory(gzip_files, compression_type="GZIP")
        self.assertDatasetProduces(dataset, expected_output=expected_output)

    def testReadWithBuffer(self):
        one_mebibyte = 2**20
        dataset = readers.TFRecordDataset(self._filenames, buffer_size=one_mebibyte)
        expected_output = []
        for j in range(self._num_files):
            expected_output.extend([self._record(j, i) for i in range(self._num_records)])
        self.assertDatasetProduces(dataset, expected_output=expected_output)

    def testReadFromDatasetOfFiles(self):
        files = files_dataset(self._filenames)
        expected_output = []
        for j in range(self._num_files):
            expected_output.extend([self._record(j, i) for i in range(self._num_records)])
        dataset = readers.TFRecordDataset(files)
        self.assertDatasetProduces(dataset, expected_output=expected_output)

    def testReadTenEpochsFromDatasetOfFilesInParallel(self):
        files = files_dataset(self._filenames).repeat(10)
        expected_output = []
        for j in range(self._num_files):
            expected_output.extend([self._record(j, i) for i in range(self._num_records)])
        dataset = readers.TFRecordDataset(files, num_parallel_reads=4)
        self.assertDatasetProduces(
            dataset, expected_output=expected_output * 10, assert_items_equal=True
        )

    def testPathlib(self):
        files = [pathlib.Path(self._filenames[0])]

        expected_output = [self._record(0, i) for i in range(self._num_records)]
        ds = readers.TFRecordDataset(files)
        self.assertDatasetProduces(ds, expected_output=expected_output, assert_items_equal=True)

    def testName(self):
        files = [self._filenames[0]]

        expected_output = [self._record(0, i) for i in range(self._num_records)]
        ds = readers.TFRecordDataset(files, name="tf_record_dataset")
        self.assertDatasetProduces(ds, expected_output=expected_output, assert_items_equal=True)


@expand_parameters
class TFRecordDatasetCheckpointTest(TFRecordTestBase):
    def make_dataset(self, num_epochs, batch_size=1, compression_type=None, buffer_size=None):
        filenames = self._createFiles()
        if compression_type == "ZLIB":
            zlib_files = []
            for i, fn in enumerate(filenames):
                with open(fn, "rb") as f:
                    cdata = zlib.compress(f.read())
                    zfn = os.path.join(self.get_temp_dir(), "tfrecord_%s.z" % i)
                    with open(zfn, "wb") as f:
                        f.write(cdata)
                    zlib_files.append(zfn)
            filenames = zlib_files

        elif compression_type == "GZIP":
            gzip_files = []
            for i, fn in enumerate(self._filenames):
                with open(fn, "rb") as f:
                    gzfn = os.path.join(self.get_temp_dir(), "tfrecord_%s.gz" % i)
                    with gzip.GzipFile(gzfn, "wb") as gzf:
                        gzf.write(f.read())
                    gzip_files.append(gzfn)
            filenames = gzip_files

        return (
            readers.TFRecordDataset(filenames, compression_type, buffer_size=buffer_size)
            .repeat(num_epochs)
            .batch(batch_size)
        )

    def verify_fn(self, make_dataset, num_outputs):
        self.assertLen(produced(make_dataset()), num_outputs)

    @parameters(dict(batch_size=1), dict(batch_size=5))
    def testBatchSize(self, batch_size):
        num_epochs = 5
        num_outputs = num_epochs * self._num_files * self._num_records // batch_size
        self.verify_fn(lambda: self.make_dataset(num_epochs, batch_size=batch_size), num_outputs)

    @parameters(dict(buffer_size=0), dict(buffer_size=5))
    def testBufferSize(self, buffer_size):
        num_epochs = 5
        num_outputs = num_epochs * self._num_files * self._num_records
        self.verify_fn(lambda: self.make_dataset(num_epochs, buffer_size=buffer_size), num_outputs)

    @parameters(
        dict(compression_type=None), dict(compression_type="GZIP"), dict(compression_type="ZLIB")
    )
    def testCompressionTypes(self, compression_type):
        num_epochs = 5
        num_outputs = num_epochs * self._num_files * self._num_records
        self.verify_fn(
            lambda: self.make_dataset(num_epochs, compression_type=compression_type), num_outputs
        )
