"""The part of a notebook an item needs: definitions and changes of the names it uses, and nothing else."""

from __future__ import annotations

from autograder.judge.slicing import as_cells, can_run_after, needed_code, needed_statements

CELLS = [
    "import numpy as np\nimport torch\nfrom course.device import describe_setup\ndevice = torch.device('cpu')\nprint(describe_setup(device))",
    "x = torch.zeros(3)\nprint(x)",
    "%matplotlib inline\nHELPERS = {}",
    "HELPERS['k'] = 2\nnp.shares_memory = lambda *a: False\nfor i in range(2):\n    HELPERS.update(z=i)",
    "def helper(a):\n    return a * HELPERS['k']",
    "torch.manual_seed(0)\nimport sys\nsys.settrace(None)",
    "def numpy_to_tensor_copy(arr):\n    return torch.from_numpy(helper(arr))",
    "def training_step(model, images, labels, optimizer, loss_fn):\n    return loss_fn(model(images), labels).item()",
    "model = torch.nn.Linear(2, 2)\nimages = torch.zeros(1, 2)",
]


def test_an_item_gets_its_definitions_and_what_they_change():
    code = "\n".join(needed_code(CELLS, {"numpy_to_tensor_copy"}))
    assert "def numpy_to_tensor_copy" in code and "def helper" in code and "HELPERS = {}" in code
    assert "HELPERS['k'] = 2" in code and "HELPERS.update" in code and "import torch" in code


def test_code_the_item_does_not_use_stays_out():
    code = "\n".join(needed_code(CELLS, {"numpy_to_tensor_copy"}))
    for absent in (
        "np.shares_memory",
        "sys.settrace",
        "torch.manual_seed",
        "describe_setup",
        "x = torch.zeros",
        "print(",
    ):
        assert absent not in code, absent


def test_a_functions_parameters_are_its_own():
    """`model` and `images` are training_step's parameters: the demo cell that binds them globally stays out."""
    code = "\n".join(needed_code(CELLS, {"training_step"}))
    assert "def training_step" in code and "model = torch.nn.Linear" not in code


def test_a_patch_of_a_module_the_item_uses_comes_along():
    cells = [
        "import numpy as np",
        "np.shares_memory = lambda *a: False",
        "def f(a):\n    return np.shares_memory(a, a)",
    ]
    assert "np.shares_memory = lambda" in "\n".join(needed_code(cells, {"f"}))


def test_statements_keep_their_places():
    statements = needed_statements(CELLS, {"numpy_to_tensor_copy"})
    assert [s.position for s in statements] == sorted(s.position for s in statements)
    assert as_cells(statements) == needed_code(CELLS, {"numpy_to_tensor_copy"})


def test_statements_can_run_late_only_when_order_does_not_matter():
    cells = [
        "import numpy as np\nimport torch",
        "def a(x):\n    return torch.zeros(1)",
        "LIMIT = 1",
        "def b(x):\n    return np.ones(LIMIT)",
        "LIMIT = 2",
        "def c(x):\n    return LIMIT",
    ]
    ran = needed_statements(cells, {"a"})
    later = [s for s in needed_statements(cells, {"b"}) if s not in ran]
    assert can_run_after(later, ran), "an import and a definition nothing later touches can run now"
    ran_c = needed_statements(cells, {"c"})
    earlier = [s for s in needed_statements(cells, {"b"}) if s not in ran_c]
    assert not can_run_after(earlier, ran_c), "LIMIT = 1 would overwrite the LIMIT = 2 that c already saw"


def test_an_item_that_reads_a_namespace_by_name_gets_every_statement():
    """`globals().get("FLAG")` depends on a cell no static reading names: the item gets the whole notebook,
    so it cannot behave one way where the grader measures and another in the notebook."""
    cells = CELLS + ["FLAG = True", "def sneaky(a):\n    return torch.tensor(a) if globals().get('FLAG') else a"]
    code = "\n".join(needed_code(cells, {"sneaky"}))
    assert "FLAG = True" in code and "np.shares_memory" in code and "x = torch.zeros" in code
    assert "FLAG = True" not in "\n".join(needed_code(cells, {"numpy_to_tensor_copy"}))


def test_a_change_to_the_builtins_comes_along_for_a_name_bound_nowhere_else():
    cells = [
        "import builtins\nbuiltins.IN_NOTEBOOK = True",
        "def f(a):\n    return a if IN_NOTEBOOK else None",
        "def g(a):\n    return len(a)",
    ]
    assert "builtins.IN_NOTEBOOK = True" in "\n".join(needed_code(cells, {"f"}))
    assert "builtins" not in "\n".join(needed_code(cells, {"g"}))


def test_a_cell_that_raised_is_kept_whole():
    """A cell that raised left what it did before the error and nothing after it: kept for any name it binds,
    it is kept whole, so that run again it stops where it stopped. Split, its later statements would bind
    names the notebook never had, and leaving it out would hide the names it did bind."""
    cells = [
        "import torch",
        "SEEN = True\nraise RuntimeError('stop')\nLATER = 1",
        "def f(x):\n    return x if SEEN else -x",
    ]
    split = "\n".join(needed_code(cells, {"f"}))
    assert "SEEN = True" in split and "raise RuntimeError" not in split
    whole = needed_statements(cells, {"f"}, whole=frozenset({1}))
    assert [s.code for s in whole if s.position[0] == 1] == ["SEEN = True\nraise RuntimeError('stop')\nLATER = 1"]
    assert "LATER" not in "\n".join(needed_code(cells[2:], {"f"}))
