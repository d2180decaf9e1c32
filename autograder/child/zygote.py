"""The warm process that forks one sandboxed child per notebook.

It imports torch, NumPy, IPython and the course package once, builds an IPython shell, starts no
thread, and then only forks. Judges talk to it over SOCK_SEQPACKET control sockets with small JSON
messages: `fork` (with the child's channel passed as a file descriptor) answers the child's pid;
`kill` stops a child (one the same judge asked for) and everything it started and answers at once: the child's scratch folder is a
tmpfs of its own that the kernel frees with it, and whatever a weak sandbox left in the folder is
removed by a small cleaner process, never in the fork loop. A `fork` may carry a second descriptor,
the `cgroup.procs` of the judge's notebook memory cgroup, which the child joins before anything
else. The coordinator's own control socket also hands it new judge sockets (`add`). When a judge's
socket closes (the judge died or was stopped), its children are killed; when the coordinator's
closes, it kills every child and exits.

    python -m autograder.child.zygote CONTROL_FD THREADS [EXTRA_ENV_NAMES]
"""

from __future__ import annotations

import gc
import os
import selectors
import shutil
import signal
import socket
import sys
import tempfile
from pathlib import Path

from autograder.wire.control import recv_message, send_message
from autograder.wire.ops import ZygoteOp

# Imported on first use by what lessons do (drawing a figure, an error's traceback, the benchmark timer):
# loaded once here rather than in every notebook's process.
WARM_MODULES = (
    "matplotlib.pyplot",
    "matplotlib.backends.backend_agg",
    "PIL.features",
    "PIL.PngImagePlugin",
    "bdb",
    "encodings.unicode_escape",
    "torch._subclasses.schema_check_mode",
    "torch.utils.benchmark",
    "torch.utils.data",
)


def warm_torch(torch: object) -> None:
    """The first operation on a `meta` tensor imports some 800 modules (seconds): do it once, before forking."""
    (torch.zeros(2, 3, device="meta") + 1).float().permute(1, 0).sum(0)


def warm_optimizers(torch: object) -> None:
    """Each optimizer wraps its class's `step` in a profiling hook the first time one is made, and the
    first step sets a profiler global: both done here, so that the guard records PyTorch as a notebook
    finds it after its first training step (it reports a PyTorch name that changes later)."""
    import torch.optim as optim

    weight = torch.zeros(1, requires_grad=True)
    weight.grad = torch.zeros(1)
    for cls in vars(optim).values():
        if isinstance(cls, type) and issubclass(cls, optim.Optimizer) and cls is not optim.Optimizer:
            try:
                cls([weight], lr=0.1).step()
            except Exception:
                pass


def quiet_progress_bars() -> None:
    """tqdm starts a monitor thread with its first bar, and a thread alive in the notebook's process is
    reported as tampering: an honest progress bar would cost its item. Without the monitor a bar works
    the same (the monitor only tunes how often a stalled bar redraws)."""
    try:
        import tqdm
        import tqdm.auto  # noqa: F401
    except ImportError:
        return
    tqdm.tqdm.monitor_interval = 0


def warm_up(threads: int) -> object:
    """Everything a notebook imports, loaded once; returns the shell children start from."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[name] = str(threads)
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ["PYTHONHASHSEED"] = os.environ.get("PYTHONHASHSEED", "0")
    import importlib
    import pkgutil

    import numpy  # noqa: F401
    import torch

    import course

    warm_torch(torch)
    warm_optimizers(torch)
    for name in WARM_MODULES:
        try:
            importlib.import_module(name)
        except Exception:
            pass
    quiet_progress_bars()
    for module in pkgutil.walk_packages(course.__path__, "course."):
        try:
            importlib.import_module(module.name)
        except Exception:
            pass
    from autograder.child import guard, runner
    from autograder.config import limits  # noqa: F401 - imported before the guard records the modules
    from autograder.sandbox import layers, processes  # noqa: F401 - likewise
    from autograder.wire import frames, values  # noqa: F401 - likewise

    shell = runner.make_shell()
    values.torch_dtype("float32")  # fill the wire's lazy tables now: the guard records modules as they are
    values.plain_tensor_dtypes()
    guard.install(exempt={"ctypes": (values.Encoder.encode_array,)})
    return shell


def run_child(
    channel_fd: int, request: dict, workdir: Path, shell: object, threads: int, cgroup_fd: int | None = None
) -> None:
    """In the forked child: confine, then serve the channel. Never returns."""
    code = 0
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        keep = sorted({channel_fd} | ({cgroup_fd} if cgroup_fd is not None else set()))
        low = 3
        for fd in keep:
            os.closerange(low, fd)
            low = fd + 1
        os.closerange(low, 65536)
        from autograder.child import runner
        from autograder.config.limits import from_dict
        from autograder.sandbox import layers
        from autograder.wire import frames

        limits = from_dict(request.get("limits", {}))
        channel = frames.Channel(socket.socket(fileno=channel_fd))
        try:
            layers.confine(
                workdir=workdir,
                limits=limits,
                keep_fds=[channel_fd],
                allow_weak=bool(request.get("allow_weak")),
                cgroup_fd=cgroup_fd,
            )
        except Exception as exc:
            channel.send({"fatal": f"the sandbox could not be set up: {exc}"})
            raise
        os.chdir(workdir)
        import torch

        torch.set_num_threads(threads)
        sys.path[:0] = [str(workdir)]
        channel.send({"ready": True})
        runner.Server(channel, shell, output_chars=limits.output_kb * 1024).serve()
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def start_cleaner(control_fd: int) -> int:
    """A small process that removes the folders the zygote hands it (one path per line on the pipe returned).

    Forked before the warm-up, so it is small; the zygote's fork loop never waits for a removal.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(write_end)
        os.close(control_fd)
        for line in os.fdopen(read_end, "rb"):
            shutil.rmtree(os.fsdecode(line.rstrip(b"\n")), ignore_errors=True)
        os._exit(0)
    os.close(read_end)
    os.set_blocking(write_end, False)
    return write_end


def _discard(cleaner: int, workdir: Path) -> None:
    """Leave `workdir` to the cleaner; an empty folder (the usual case: the tmpfs was the child's) goes at once."""
    try:
        os.rmdir(workdir)
        return
    except OSError:
        pass
    try:
        os.write(cleaner, os.fsencode(workdir) + b"\n")
    except OSError:
        pass  # the pipe is full: the folder stays in the zygote's private /tmp until the run ends


def _stop(pid: int, weak: bool) -> None:
    """SIGKILL a child. Under full confinement it is its pid namespace's init (or that init's
    supervisor), so the kernel kills the rest; a weak sandbox has its tree hunted down."""
    if weak:
        from autograder.sandbox import processes

        try:
            processes.kill_tree(pid)
        except Exception as exc:
            print(f"zygote: {exc}", file=sys.stderr)
        return
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _owned(children: dict, pid: object, sock: socket.socket) -> bool:
    """Whether `pid` is a child the judge on `sock` asked for: a judge stops only its own."""
    return type(pid) is int and pid in children and children[pid][2] is sock


def main(argv: list[str]) -> int:
    control_fd, threads = int(argv[0]), int(argv[1])
    control = socket.socket(fileno=control_fd)
    cleaner = start_cleaner(control_fd)
    from autograder.sandbox import layers

    layers.ENV_EXTRA = tuple(
        name for name in (argv[2].split(",") if len(argv) > 2 else []) if name
    )  # before the guard records it
    shell = warm_up(threads)
    # Everything loaded so far moves to gc's permanent generation, which collections skip: a child's
    # collections then walk only what it made itself (a probe's full collection takes microseconds, not
    # 0.1 s) and copy none of the zygote's pages.
    gc.collect()
    gc.freeze()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    selector = selectors.DefaultSelector()
    selector.register(control, selectors.EVENT_READ)
    judges: list[socket.socket] = []
    children: dict[int, tuple[Path, bool, socket.socket]] = {}  # pid -> its folder, weak sandbox, the judge that asked

    layers.read_only_paths()  # computed once here; every child inherits it
    try:
        own_pid_namespace: int | None = os.open("/proc/self/ns/pid", os.O_RDONLY)
    except OSError:
        own_pid_namespace = None
    send_message(control, {"ready": True, "pid": os.getpid()})

    while True:
        for key, _ in selector.select():
            sock = key.fileobj
            try:
                message, fds = recv_message(sock)
            except OSError:
                message, fds = None, []
            if message is None:
                if sock is control:
                    for pid, (workdir, weak, _) in children.items():
                        _stop(pid, weak)
                        shutil.rmtree(workdir, ignore_errors=True)
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(0)
                for pid in [pid for pid, (_, _, owner) in children.items() if owner is sock]:
                    workdir, weak, _ = children.pop(pid)  # a judge that is gone leaves no notebook running
                    _stop(pid, weak)
                    _discard(cleaner, workdir)
                selector.unregister(sock)
                judges.remove(sock)
                sock.close()
                continue
            op = message.get("op")
            if op == ZygoteOp.ADD and sock is control and fds:
                judge = socket.socket(fileno=fds[0])
                judges.append(judge)
                selector.register(judge, selectors.EVENT_READ)
                send_message(control, {"ok": True})
            elif op == ZygoteOp.FORK and fds:
                workdir = Path(tempfile.mkdtemp(prefix="notebook-"))
                pid = layers.fork_into_pid_namespace(own_pid_namespace)
                if pid == 0:
                    os.close(cleaner)
                    run_child(fds[0], message, workdir, shell, threads, fds[1] if len(fds) > 1 else None)
                for fd in fds:
                    os.close(fd)
                children[pid] = (workdir, bool(message.get("allow_weak")), sock)
                send_message(sock, {"pid": pid})
            elif op == ZygoteOp.KILL and _owned(children, message.get("pid"), sock):
                workdir, weak, _ = children.pop(message["pid"])
                _stop(message["pid"], weak)
                send_message(sock, {"ok": True})
                _discard(cleaner, workdir)
            else:
                for fd in fds:
                    os.close(fd)
                send_message(sock, {"error": f"bad request {op!r}"})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
