"""The tells check: numbered names, undefined names, unused imports and names reused across cases
are reported when the smelly version adds them, never when the original had them already."""

from __future__ import annotations

import textwrap

from smellkit.injectors.tells import CaseNames, added_names, added_tells, reused_names

ORIGINAL = textwrap.dedent('''\
    import re


    def find_item(items, key):
        for index, item in enumerate(items):
            if item == key:
                return index
        return -1


    def words(text):
        return re.findall(r"\\w+", text)
''')


def test_a_numbered_local_is_a_tell() -> None:
    smelly = ORIGINAL.replace("for index, item", "for index_3, item").replace(
        "return index\n", "return index_3\n")
    assert added_tells({"shop.py": ORIGINAL}, {"shop.py": smelly}) == [
        "shop.py: new variable name index_3 ends in a counter"]


def test_a_numbered_module_and_class_are_tells() -> None:
    mixin = "class _OrderSteps2:\n    __slots__ = ()\n"
    found = added_tells({"shop/orders.py": ORIGINAL, "shop/_orders_steps_2.py": None},
                        {"shop/orders.py": ORIGINAL, "shop/_orders_steps_2.py": mixin})
    assert found == ["shop/_orders_steps_2.py: new module name _orders_steps_2 ends in a counter",
                     "shop/_orders_steps_2.py: new class name _OrderSteps2 ends in a counter"]


def test_an_undefined_name_is_a_tell() -> None:
    smelly = ORIGINAL + "\n\ndef matched(found):\n    return isinstance(found, regex.Match)\n"
    (tell,) = added_tells({"shop.py": ORIGINAL}, {"shop.py": smelly})
    assert tell.startswith("shop.py:16:") and "undefined name 'regex'" in tell


def test_a_copied_function_missing_its_import_is_a_tell() -> None:
    """The copy reads `re`, which its new module never imports."""
    copy = ORIGINAL[ORIGINAL.index("def words"):].replace("def words", "def _words")
    other = "from shop import words\n\n\ndef count(text):\n    return len(words(text))\n"
    smelly = f"{copy}\n\ndef count(text):\n    return len(_words(text))\n"
    found = added_tells({"shop.py": ORIGINAL, "report.py": other},
                        {"shop.py": ORIGINAL, "report.py": smelly})
    assert len(found) == 1 and "report.py:2:" in found[0] and "undefined name 're'" in found[0]
    fixed = "import re\n\n\n" + smelly
    assert added_tells({"shop.py": ORIGINAL, "report.py": other},
                       {"shop.py": ORIGINAL, "report.py": fixed}) == []


def test_an_unused_import_is_a_tell() -> None:
    smelly = "import os\n" + ORIGINAL
    (tell,) = added_tells({"shop.py": ORIGINAL}, {"shop.py": smelly})
    assert "'os' imported but unused" in tell


def test_what_the_original_had_is_not_a_tell() -> None:
    """A pre-existing unused import, undefined name and numbered name stay silent, even when
    the edit moves them to a new module or touches their file."""
    messy = "import os\nimport hashlib\n\n\ndef digest(data):\n    sha256 = hashlib.sha256\n" \
            "    return sha256(data), undefined_thing\n"
    touched = messy + "\n\ndef extra():\n    return 1\n"
    assert added_tells({"util.py": messy}, {"util.py": touched}) == []
    assert added_tells({"util.py": messy, "_digest.py": None},
                       {"util.py": "", "_digest.py": messy}) == []


def test_names_of_the_code_copied_from_are_the_repositorys_own() -> None:
    """Deep inlining pastes a callee of another file: its numbered names are context."""
    callee = "def checksum(data):\n    crc32 = 0\n    for byte in data:\n" \
             "        crc32 ^= byte\n    return crc32\n"
    caller = "def send(data):\n    return data\n"
    pasted = "def send(data):\n    crc32 = 0\n    for byte in data:\n        crc32 ^= byte\n" \
             "    return data, crc32\n"
    assert added_tells({"net.py": caller}, {"net.py": pasted}) != []
    assert added_tells({"net.py": caller}, {"net.py": pasted}, context=[callee]) == []


def test_a_helper_name_reused_across_cases_is_a_tell() -> None:
    before = {"a.py": ORIGINAL}
    first = added_names(before, {"a.py": ORIGINAL + "\n\ndef _compat(x):\n    return x\n"})
    second = added_names(before, {"a.py": ORIGINAL + "\n\ndef _compat(y):\n    return y\n",
                                  "_steps.py": "class _Steps:\n    pass\n"})
    assert first == {"_compat"} and second == {"_compat", "_steps", "_Steps"}
    cases = [CaseNames("dead_code-medium-1", ("a.find_item",), frozenset(first)),
             CaseNames("dead_code-hard-2", ("a.words",), frozenset(second))]
    (tell,) = reused_names(cases)
    assert tell.startswith("_compat is added by 2 cases of 2 targets")
    # one target at two difficulties making up one helper twice reads as machine-made too
    # (two marshmallow data_clumps cases of one class both adding `format_length_error`)
    same_target = [cases[0], CaseNames("dead_code-easy-3", ("a.find_item",), frozenset(first))]
    (tell,) = reused_names(same_target)
    assert tell.startswith("_compat is added by 2 cases of 1 target (dead_code-easy-3")
    assert reused_names([cases[0], CaseNames("dead_code-easy-4", ("a.find_item",),
                                             frozenset({"_compat_items"}))]) == []


def test_scan_rebuilds_the_smelly_files_of_a_record() -> None:
    """`scan` applies each record's smelly patch to a scratch copy of the files it touches:
    a fixture injection reads as human code; the same record with a numbered copy does not."""
    from smellkit.injectors.tells import injection_files, scan
    from tests.injectors.support import FIXTURES, injected

    root = FIXTURES / "duplicated_code" / "slugs" / "before"
    injection = injected(root, "duplicated_code", "easy", "pages.text.slugify")
    before, after = injection_files(root, injection)
    assert set(before) == set(injection.files) and before != after
    assert scan(root, [injection]) == {injection.id: [], "(across cases)": []}
    (copy,) = [target.location.qualname.rpartition(".")[2] for target in injection.targets]
    numbered = injection.model_copy(update={"smelly_patch": injection.smelly_patch.replace(
        copy, f"{copy}_2")})
    assert scan(root, [numbered])[injection.id] == [
        f"{injection.files[0]}: new function name {copy}_2 ends in a counter"]


def test_alternatives_of_one_target_may_share_names() -> None:
    """An injector's tests make one injection of a target per difficulty and seed, and a dataset
    keeps at most what sampling picks of them: with `alternatives`, only names shared by
    injections of different targets are tells."""
    from smellkit.injectors.tells import scan
    from tests.injectors.support import FIXTURES, injected

    root = FIXTURES / "duplicated_code" / "slugs" / "before"
    easy = injected(root, "duplicated_code", "easy", "pages.text.slugify")
    again = easy.model_copy(update={"id": easy.id + "-again"})
    assert scan(root, [easy, again])["(across cases)"]
    assert scan(root, [easy, again], alternatives=True)["(across cases)"] == []
    other = again.model_copy(update={"candidate": again.candidate.model_copy(update={
        "target": again.candidate.target.model_copy(update={"qualname": "pages.text.other"})})})
    assert scan(root, [easy, other], alternatives=True)["(across cases)"]
