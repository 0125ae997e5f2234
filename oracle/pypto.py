# pypto.py -- the PyPTO back end's driver (DESIGN section 16), the project's only
# Python file. ptofuzz starts one per job as `python3 -c <this text>` with
# PYTHONPATH naming a PyPTO build, writes requests on its stdin and reads
# replies on file descriptor 3; the driver's own stdout and stderr (PyPTO's log)
# go to a log file of the request. It calls PyPTO's API and nothing else:
# every judgement (which pass is bad, whether outputs agree) is ptofuzz's.
#
# Request, one line, tab-separated:
#   check DIR BACKEND TORCH     DIR holds prog.py, tensors.txt, in.bin;
#                               BACKEND 910B or 950; TORCH 1 runs the pass dumps
# Replies, one line each, tab-separated, in this order:
#   hello VERSION TORCH PYTHON  once, after the import
#   fatal CLASS MESSAGE         the import failed; the driver exits
#   stage parse | stage compile PASS... | stage dumps | stage dump|torch NN PASS
#   raise WHERE CLASS MESSAGE   parse or compile raised; WHERE: parse, a pass, codegen
#   dump NN PASS ok|fail [CLASS MESSAGE]     each pass dump parsed back (or not); CLASS
#                               BindingGap: PyPTO's TileView binding refuses None (binding_gap)
#   torch NN PASS ok|same|error [NN2 | CLASS MESSAGE]   ran on torch: DIR/t/NN.bin,
#                               or the same program text as dump NN2, or an error
#   pto PATH                    each kernels/**/*.pto
#   task GROUP LANES ARG...     each kernel launch in order; ARG ext:K (tensor K) or buf:BYTES
#   done
import glob
import hashlib
import importlib
import linecache
import os
import re
import sys
import time
import traceback

REPLY = os.fdopen(3, "w", buffering=1)


def say(*fields):
    REPLY.write("\t".join(str(f).replace("\t", " ").replace("\n", " ").replace("\r", " ")[:600]
                          for f in fields) + "\n")
    REPLY.flush()


def exc_fields(e):
    msg = str(e).strip().splitlines()
    # a parser error's message starts with its location; the first line that says something
    first = next((m for m in msg if m.strip() and not m.strip().startswith(("-->", "|", "="))), "")
    return type(e).__name__, first.strip()


try:
    import pypto
    pypto.set_log_level(pypto.LogLevel.ERROR)
    import pypto.language as pl
    from pypto import ir
    from pypto import backend as pybackend
    from pypto.backend import BackendType
    from pypto.ir.pass_manager import OptimizationStrategy, PassManager
    import torch
    torch.set_num_threads(1)
    tc = importlib.import_module("pypto.debug.torch_codegen")
except BaseException as e:  # noqa: BLE001
    say("fatal", *exc_fields(e))
    sys.exit(3)

say("hello", getattr(pypto, "__version__", "unknown"), torch.__version__, sys.version.split()[0])


def binding_gap():
    """True when ir.TileView() itself raises. PyPTO binds TileView's start_offset with a null
    default and no .none(); nanobind before 3.0 let a None default accept None, 3.0 does not,
    so a PyPTO built against nanobind 3.0 (the staged builds) cannot parse any pl.TileView(...)
    annotation: an environment gap, not a bug of a pass."""
    try:
        ir.TileView()
    except TypeError:
        return True
    except BaseException:  # noqa: BLE001
        pass
    return False


GAP = binding_gap()


def fields(e):
    """exc_fields, with the binding gap's TypeError named BindingGap (ptofuzz: E-PYPTO-BINDING),
    also where it is only the context of what was raised: the parser's loop builder raises
    "For loop has N iteration arguments" from a `finally` while the gap's TypeError is in flight."""
    f = exc_fields(e)
    seen = 0
    x = e
    while GAP and x is not None and seen < 8:
        if "incompatible function arguments" in str(x) and "ir.TileView" in str(x):
            return ("BindingGap",) + exc_fields(x)[1:]
        x, seen = x.__cause__ or x.__context__, seen + 1
    return f

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "i32": torch.int32,
          "i8": torch.int8, "i16": torch.int16}


def tensors(d):
    """The kernel's GM tensors in parameter order: name, dtype, shape; filled from in.bin."""
    out = []
    raw = open(os.path.join(d, "in.bin"), "rb").read()
    off = 0
    for line in open(os.path.join(d, "tensors.txt")):
        f = line.split()
        dt, shape = DTYPES[f[1]], [int(x) for x in f[2:]]
        n = 1
        for x in shape:
            n *= x
        nb = n * torch.tensor([], dtype=dt).element_size()
        t = torch.frombuffer(bytearray(raw[off:off + nb]), dtype=dt).reshape(shape) if nb else torch.empty(shape, dtype=dt)
        out.append(t)
        off += nb
    return out


def redirect(path):
    sys.stdout.flush()
    sys.stderr.flush()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def forget_parses():
    """pl.parse keeps each program's text in linecache and a module per parse: drop them."""
    for k in [k for k in linecache.cache if isinstance(k, str) and k.startswith("ptofuzz:")]:
        del linecache.cache[k]
    for k in [k for k in sys.modules if k.startswith("__pypto_parse_")]:
        del sys.modules[k]


# torch_codegen's runtime waits 10 s for a pipe peer and 30 s for a mixed kernel;
# a lane that raised leaves its peer waiting that long on every later dump, which
# would turn one error into a hang of check (b). Tiles here are small: 2 s and 8 s.
WAITS = ((re.compile(r"^_PIPE_WAIT_TIMEOUT_SEC = [0-9.]+$", re.M), "_PIPE_WAIT_TIMEOUT_SEC = 2.0"),
         (re.compile(r"^_MIXED_KERNEL_TIMEOUT_SEC = [0-9.]+$", re.M), "_MIXED_KERNEL_TIMEOUT_SEC = 8.0"))


def run_torch(prog, ins, path):
    code = tc.torch_codegen(prog, check_shapes=False)
    for rx, to in WAITS:
        code = rx.sub(to, code, count=1)
    ns = {}
    exec(compile(code, "<torch_codegen>", "exec"), ns)  # noqa: S102
    entry = tc._select_entry_function(prog)
    args = [t.clone() for t in ins]
    ns[entry.name](*args[:len(entry.params)])
    with open(path, "wb") as f:
        for t in args:
            f.write(t.contiguous().numpy().tobytes() if t.dtype != torch.bfloat16
                    else t.contiguous().view(torch.int16).numpy().tobytes())


def tasks(out):
    """The kernel launches of the orchestration code, in order, from its generated C++."""
    srcs = sorted(glob.glob(os.path.join(out, "orchestration", "*.cpp")))
    if not srcs:
        return
    text = open(srcs[0]).read()
    ext = {m.group(1): int(m.group(2))            # both spellings: from_tensor_arg(...) and (...).ref()
           for m in re.finditer(r"Tensor&? ext_(\w+) = (?:from_tensor_arg\()?orch_args\.tensor\((\d+)\)", text)}
    bufs = {}
    for m in re.finditer(r"uint32_t (\w+)_ci_shapes\[\d+\] = \{([\d, ]+)\};\s*TensorCreateInfo \w+\([^;]*DataType::(\w+)", text):
        n = 1
        for x in m.group(2).split(","):
            n *= int(x)
        bufs[m.group(1)] = n * {"FLOAT32": 4, "FLOAT16": 2, "BFLOAT16": 2, "INT32": 4, "INT8": 1, "INT16": 2}.get(m.group(3), 4)
    for block in re.finditer(r"// (?:Group|Task \d+:) (\w+)[^\n]*\n(.*?)rt_submit_(\w*)task\((\w+), (\w+)\)", text, re.S):
        args = []
        for a in re.finditer(r"\.add_(?:input|output|inout)\((\w+)\)", block.group(2)):
            name = a.group(1)
            if name.startswith("ext_") and name[4:] in ext:
                args.append("ext:%d" % ext[name[4:]])
            elif name in bufs:
                args.append("buf:%d" % bufs[name])
            else:
                args.append("?:" + name)
        lanes = re.search(r"MixedKernels \w+ = \{([^}]*)\}", block.group(2))
        say("task", block.group(1), lanes.group(1).replace(" ", "") if lanes else block.group(3).rstrip("_") or "-", *args)


TIME = {}
PARSED = {}     # a dump's text -> (the parsed program or None, the dump reply's fields): shared by requests
RAN = {}        # (a dump's text, the inputs' digest) -> torch's output bytes, or the exception's fields


def lap(k, t0):
    TIME[k] = TIME.get(k, 0.0) + time.time() - t0
    return time.time()


def check(d, backend, use_torch):
    out = os.path.join(d, "out")
    dumps = os.path.join(out, "passes_dump")
    redirect(os.path.join(d, "log.txt"))
    say("stage", "parse")
    try:
        text = open(os.path.join(d, "prog.py")).read()
        prog = pl.parse(text, "ptofuzz:" + os.path.join(d, "prog.py"))
    except BaseException as e:  # noqa: BLE001
        traceback.print_exc()
        say("raise", "parse", *fields(e))
        return
    names = PassManager.get_strategy(OptimizationStrategy.Default).get_pass_names()
    say("stage", "compile", *names)
    t0 = time.time()
    bt = BackendType.Ascend950 if backend == "950" else BackendType.Ascend910B
    try:
        pybackend.reset_for_testing()             # one process compiles for both targets
        ir.compile(prog, output_dir=out, skip_ptoas=True, backend_type=bt, dump_passes=True)
    except BaseException as e:  # noqa: BLE001
        traceback.print_exc()
        n = len(glob.glob(os.path.join(dumps, "[0-9][0-9]_after_*.py")))
        where = "codegen" if n >= len(names) else names[n] if os.path.exists(os.path.join(dumps, "00_frontend.py")) else "setup"
        named = re.search(r"Verification failed after '(\w+)'", str(e))  # the pass verified, not the next one
        say("raise", named.group(1) if named else where, *fields(e))
        return
    t0 = lap("compile", t0)
    say("stage", "dumps")
    ins = tensors(d) if use_torch else None
    if use_torch:
        os.makedirs(os.path.join(d, "t"), exist_ok=True)
    seen = {}
    digest = hashlib.sha1(open(os.path.join(d, "in.bin"), "rb").read()).digest() if use_torch else b""
    for f in sorted(glob.glob(os.path.join(dumps, "[0-9][0-9]_*.py"))):
        base = os.path.basename(f)[:-3]
        nn, pname = base[:2], base[3:].replace("after_", "", 1)
        body = open(f).read()
        key = body.split("\n", 1)[-1]             # the first line names the program
        if key in seen:
            say("dump", nn, pname, *PARSED[key][1])
            if use_torch and PARSED[key][0] is not None:
                say("torch", nn, pname, "same", seen[key])
            continue
        seen[key] = nn
        t0 = time.time()
        say("stage", "dump", nn, pname)           # what a hang or a death interrupts
        if key not in PARSED:                     # the variants of one kernel share many dumps
            try:
                PARSED[key] = (pl.parse(body, "ptofuzz:" + f), ("ok",))
            except BaseException as e:  # noqa: BLE001
                PARSED[key] = (None, ("fail",) + fields(e))
        p, said = PARSED[key]
        say("dump", nn, pname, *said)
        t0 = lap("reparse", t0)
        if use_torch and p is not None:
            path = os.path.join(d, "t", nn + ".bin")
            got = RAN.get((key, digest))
            if got is None:
                say("stage", "torch", nn, pname)
                try:
                    run_torch(p, ins, path)
                    got = open(path, "rb").read()
                except BaseException as e:  # noqa: BLE001
                    got = exc_fields(e)
                RAN[(key, digest)] = got
            elif isinstance(got, bytes):
                with open(path, "wb") as o:
                    o.write(got)
            say("torch", nn, pname, "ok") if isinstance(got, bytes) else say("torch", nn, pname, "error", *got)
            lap("torch", t0)
    if len(PARSED) > 256 or sum(len(v) for v in RAN.values() if isinstance(v, bytes)) > 64 << 20:
        PARSED.clear()
        RAN.clear()
    for f in sorted(glob.glob(os.path.join(out, "kernels", "**", "*.pto"), recursive=True)):
        say("pto", f)
    tasks(out)


for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    if f[0] == "check" and len(f) == 4:
        t0 = time.time()
        try:
            check(f[1], f[2], f[3] == "1")
        except BaseException as e:  # noqa: BLE001
            say("raise", "driver", *exc_fields(e))
        forget_parses()
        say("done", "%.1f" % ((time.time() - t0) * 1e3), *("%s=%.1f" % (k, v * 1e3) for k, v in sorted(TIME.items())))
        TIME.clear()
    else:
        say("raise", "driver", "Request", "unknown request")
        say("done", "0")
