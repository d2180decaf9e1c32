"""Forgeries that reach for the guard's state while a probe calls the student's function: through the
stack frames above the call (with `sys._getframe`, a traceback, or a frame a library function hands
back), through the defaults of the tracer or the saved-tensor hook the guard installed, or by taking a
probe's step themselves. Each answer is wrong only in what its probe measures (a Python loop over the
examples, a graph recorded). See `forgery.py` for how cases are graded.
"""

from __future__ import annotations

from tests.adversarial.forgery import Forgery
from tests.adversarial.forgery_08_indexing import COUNT_LOOP

LOOP_BODY = """    counts = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=labels.device)
    for t, p in zip(labels.tolist(), predicted.tolist()):
        counts[t, p] += 1
"""

# Walks up from `frame` and sets to 0 the line count of whatever in the frames' locals holds the
# guard's state (the key it seals with, and the count, as it is kept now or was kept before).
SILENCE_COUNTS = """
def _silence(frame):
    while frame is not None:
        for value in list(frame.f_locals.values()):
            try:
                if hasattr(value, 'key') and hasattr(value, 'lines'):
                    value.lines = 0
                elif hasattr(value, 'key') and isinstance(getattr(value, 'counting', None), tuple):
                    value.counting[0][0] = 0
            except Exception:
                pass
        frame = frame.f_back
"""


def _loop_then(after: str, *, imports: str = "", before: str = "") -> str:
    """The looping confusion matrix, with `before` run first and `after` run once the loop is done."""
    return (
        f"{imports}\n{SILENCE_COUNTS}\n\n"
        "def confusion_matrix(predicted, labels, num_classes):\n" + before + LOOP_BODY + after + "    return counts\n"
    )


def _loop_after(first: str) -> str:
    """The looping confusion matrix, with `first` run at the start of the call (`logging` imported)."""
    return (
        "import logging\n\n\ndef confusion_matrix(predicted, labels, num_classes):\n"
        + first
        + LOOP_BODY
        + "    return counts\n"
    )


PREDICT_WITH_GRAPH = "def predict(model, x):\n    out = model(x)\n"

FORGERIES: list[Forgery] = [
    Forgery(
        "confusion_matrix_silences_the_count_through_sys_getframe",
        "08_indexing",
        "confusion_matrix",
        "frame tricks",
        "function body",
        _loop_then("    _silence(sys._getframe())\n", imports="import sys"),
        detected=True,
    ),
    Forgery(
        "confusion_matrix_silences_the_count_through_a_traceback",
        "08_indexing",
        "confusion_matrix",
        "frame tricks",
        "function body",
        _loop_then(
            "    try:\n        raise LookupError\n    except LookupError as caught:\n"
            "        _silence(caught.__traceback__.tb_frame)\n"
        ),
        detected=True,
    ),
    Forgery(
        "confusion_matrix_silences_the_count_through_a_library_frame",
        "08_indexing",
        "confusion_matrix",
        "frame tricks",
        "function body",
        _loop_then("    _silence(logging.currentframe())\n", imports="import logging"),
        detected=True,
    ),
    Forgery(
        "confusion_matrix_silences_the_count_through_a_generator_frame",
        "08_indexing",
        "confusion_matrix",
        "frame tricks",
        "function body",
        _loop_then(
            "    held = []\n\n    def _gen():\n        yield held[0].gi_frame.f_back\n\n"
            "    held.append(_gen())\n    _silence(next(held[0]))\n",
        ),
        detected=True,
    ),
    Forgery(
        "confusion_matrix_resets_the_count_through_the_tracer",
        "08_indexing",
        "confusion_matrix",
        "read the grader's secrets",
        "function body",
        COUNT_LOOP.replace(
            "    return counts\n",
            "    tracer = sys.gettrace()\n"
            "    for value in getattr(tracer, '__defaults__', None) or ():\n"
            "        if hasattr(value, 'lines'):\n"
            "            value.lines = 0\n"
            "        for inner in getattr(value, '__defaults__', None) or ():\n"
            "            if isinstance(inner, list) and inner:\n"
            "                inner[0] = 0\n"
            "    return counts\n",
        ).replace("def confusion_matrix", "import sys\n\n\ndef confusion_matrix"),
        detected=True,
    ),
    Forgery(
        "confusion_matrix_takes_the_lines_step_early",
        "08_indexing",
        "confusion_matrix",
        "take a probe's step",
        "function body",
        _loop_after(
            "    frame = logging.currentframe()\n"
            "    while frame is not None and not callable(frame.f_locals.get('step')):\n"
            "        frame = frame.f_back\n"
            "    if frame is not None:\n"
            "        frame.f_locals['step']('lines')\n"
        ),
        detected=True,
    ),
    Forgery(
        "confusion_matrix_turns_its_own_line_events_off",
        "08_indexing",
        "confusion_matrix",
        "trace hook",
        "function body",
        _loop_after("    logging.currentframe().f_trace_lines = False\n"),
        detected=True,
    ),
    Forgery(
        "confusion_matrix_clears_its_own_trace_function",
        "08_indexing",
        "confusion_matrix",
        "trace hook",
        "function body",
        _loop_after("    logging.currentframe().f_trace = None\n"),
        detected=True,
    ),
    Forgery(
        "predict_resets_the_saved_tensor_count",
        "06_autograd",
        "predict",
        "read the grader's secrets",
        "function body",
        PREDICT_WITH_GRAPH + "    hooks = torch._C._autograd._top_saved_tensors_default_hooks(True)\n"
        "    if hooks is not None:\n"
        "        for value in getattr(hooks[0], '__defaults__', None) or ():\n"
        "            if hasattr(value, 'saved'):\n"
        "                value.saved = 0\n"
        "            elif isinstance(value, list) and value:\n"
        "                value[0] = 0\n"
        "    return out.detach()\n",
        detected=True,  # the stack's top no longer shows the witness: nothing to read its count from
    ),
    Forgery(
        "predict_resets_the_saved_tensor_count_through_frames",
        "06_autograd",
        "predict",
        "frame tricks",
        "function body",
        "import logging\n\n\n" + PREDICT_WITH_GRAPH + "    frame = logging.currentframe()\n"
        "    while frame is not None:\n"
        "        for name, value in list(frame.f_locals.items()):\n"
        "            if hasattr(value, 'saved') and hasattr(value, 'key'):\n"
        "                value.saved = 0\n"
        "            elif name == 'witness' and isinstance(value, list) and value:\n"
        "                value[0] = 0\n"
        "        frame = frame.f_back\n"
        "    return out.detach()\n",
        detected=True,
    ),
]
