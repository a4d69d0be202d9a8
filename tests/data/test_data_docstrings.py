"""Every public name of colonnade.data has an example (they run in tests/test_doctests.py)."""

import inspect

import colonnade as cn


def test_public_names_have_examples():
    assert sorted(cn.data.__all__) == [
        "AUTOTUNE",
        "Dataset",
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
        cn.data.make_csv_dataset,
        cn.data.make_one_shot_iterator,
        cn.data.experimental,
    ]
    public += [
        member
        for name, member in vars(cn.data.Dataset).items()
        if not name.startswith("_") and name != "AUTOTUNE"
    ]
    for obj in public:
        obj = getattr(obj, "__func__", obj)
        doc = inspect.getdoc(obj.fget if isinstance(obj, property) else obj)
        assert doc and ">>>" in doc, obj
