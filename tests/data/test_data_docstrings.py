"""Every public name of colonnade.data has an example (they run in tests/test_doctests.py)."""

import inspect

import colonnade as cn


def test_public_names_have_examples():
    assert sorted(cn.data.__all__) == [
        "AUTOTUNE",
        "Dataset",
        "TFRecordDataset",
        "TextLineDataset",
        "experimental",
        "make_csv_dataset",
        "make_one_shot_iterator",
        "required_columns",
    ]
    public = [
        cn.data.Dataset,
        cn.data.required_columns,
        cn.data.TextLineDataset,
        cn.data.TFRecordDataset,
        cn.data.make_csv_dataset,
        cn.data.make_one_shot_iterator,
        cn.data.experimental,
    ]
    public += [
        member
        for cls in cn.data.Dataset.__mro__[:-1]  # its constructors' class too, not object
        for name, member in vars(cls).items()
        if not name.startswith("_") and name != "AUTOTUNE"
    ]
    assert {"from_files", "from_tfrecord", "batch"} <= {getattr(m, "__name__", "") for m in public}
    for obj in public:
        obj = getattr(obj, "__func__", obj)
        doc = inspect.getdoc(obj.fget if isinstance(obj, property) else obj)
        assert doc and ">>>" in doc, obj
