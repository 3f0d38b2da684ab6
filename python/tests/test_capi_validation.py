"""The C ABI's argument checks through the ctypes layer, on CPU and meta
tensors: they run before the driver is used, so each status and message
is the same on a machine without a GPU (docs/mamba2-gpu.md, "Order of the
checks")."""

import ctypes
import os
import subprocess
import sys

import pytest
import torch

from tilec import _capi
from tilec.errors import Mamba2ArgumentError, Mamba2Error, Status

# (batch, seqlen, heads, headdim, groups, dstate, chunk)
SIZES = (2, 100, 4, 32, 2, 16, 64)
# What a call whose arguments all pass validation gets from the driver step
# (no driver, no device, no context, or host pointers): never a launch.
REACHED_DRIVER = {Status.NO_DRIVER, Status.NO_DEVICE, Status.NO_CONTEXT,
                  Status.NOT_DEVICE_POINTER}


class Call:
    """A valid call on CPU tensors (fresh random contents); tests break one
    thing and expect its status."""

    def __init__(self, sizes=SIZES, generator=None):
        batch, seqlen, heads, headdim, groups, dstate, chunk = sizes
        self.problem = _capi.Problem(batch, seqlen, heads, groups, headdim,
                                     dstate, chunk)
        g = generator
        bf16, f32 = torch.bfloat16, torch.float32
        self.tensors = dict(
            x=torch.randn(batch, seqlen, heads, headdim, generator=g).to(bf16),
            dt=torch.rand(batch, seqlen, heads, generator=g),
            A=-torch.rand(heads, generator=g),
            B=torch.randn(batch, seqlen, groups, dstate, generator=g).to(bf16),
            C=torch.randn(batch, seqlen, groups, dstate, generator=g).to(bf16),
            D=torch.randn(heads, generator=g),
            initial_state=torch.randn(batch, heads, headdim, dstate,
                                      generator=g),
            y=torch.full((batch, seqlen, heads, headdim), float("nan"),
                         dtype=f32),
            final_state=torch.full((batch, heads, headdim, dstate),
                                   float("nan"), dtype=f32))
        self.descriptors = {name: _capi.describe(name, t)
                            for name, t in self.tensors.items()}
        self.workspace_bytes = _capi.workspace_size(self.problem)
        self.workspace = torch.empty(self.workspace_bytes + 16,
                                     dtype=torch.uint8)
        self.workspace_ptr = self.workspace.data_ptr()
        self.problem_arg = self.problem

    def run(self):
        d = self.descriptors
        _capi.forward(self.problem_arg, d["x"], d["dt"], d["A"], d["B"],
                      d["C"], d["D"], d["initial_state"], d["y"],
                      d["final_state"], workspace=self.workspace_ptr,
                      workspace_bytes=self.workspace_bytes)

    def expect(self, status, *words):
        with pytest.raises(Mamba2Error) as caught:
            self.run()
        error = caught.value
        assert error.status == status, str(error)
        assert error.status_name == f"TILEC_MAMBA2_ERROR_{status.name}"
        assert str(error).startswith(error.status_name + ": ")
        for word in words:
            assert word in error.message, error.message
        # The outputs were not touched.
        assert torch.isnan(self.tensors["y"]).all()
        return error


@pytest.fixture
def call(cpu_generator):
    return Call(generator=cpu_generator)


def test_valid_arguments_pass_validation_and_reach_the_driver(call):
    with pytest.raises(Mamba2Error) as caught:
        call.run()
    assert caught.value.status in REACHED_DRIVER, str(caught.value)


def test_no_driver_in_a_fresh_process():
    # TILEC_CUDA_DRIVER names the driver library the runtime loads.
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from test_capi_validation import Call;"
        "from tilec.errors import Mamba2Error\n"
        "try:\n    Call().run()\n"
        "except Mamba2Error as e:\n    print(e.status_name, e.message)\n")
    env = dict(os.environ, TILEC_CUDA_DRIVER="/nonexistent/libcuda.so.1")
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run([sys.executable, "-c", code, here], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("TILEC_MAMBA2_ERROR_NO_DRIVER "), out.stdout
    assert "/nonexistent/libcuda.so.1" in out.stdout


@pytest.mark.parametrize("field, size", [("batch", 0), ("seqlen", -1),
                                         ("dstate", 0)])
def test_non_positive_size(call, field, size):
    setattr(call.problem, field, size)
    call.expect(Status.INVALID_SHAPE, f"problem: {field} is {size}")


def test_shape_not_the_problems(call):
    call.descriptors["dt"] = _capi.describe("dt", call.tensors["dt"][:, :99])
    call.expect(Status.INVALID_SHAPE, "dt (batch, seqlen, heads) has shape "
                "(2, 99, 4); the problem needs (2, 100, 4)")


def test_rank_not_the_problems(call):
    call.descriptors["x"] = _capi.describe("x", call.tensors["x"][0])
    call.expect(Status.INVALID_SHAPE, "x (batch, seqlen, heads, headdim) "
                "has rank 3, not 4")


def test_rank_outside_the_limit(call):
    call.descriptors["B"].rank = 9
    call.expect(Status.INVALID_SHAPE, "B: rank 9 is outside [0, 8]")


def test_negative_stride(call):
    call.descriptors["C"].strides[1] = -16
    call.expect(Status.INVALID_STRIDE, "C", "negative stride -16")


def test_output_stride_zero(call):
    call.descriptors["y"].strides[0] = 0
    call.expect(Status.INVALID_STRIDE, "y", "stride 0 in dimension 0")


def test_final_state_stride_zero(call):
    call.descriptors["final_state"].strides[3] = 0
    call.expect(Status.INVALID_STRIDE, "final state", "dimension 3")


def test_dtype_not_supported(call):
    call.descriptors["x"] = _capi.describe(
        "x", call.tensors["x"].to(torch.int32))
    call.expect(Status.INVALID_DTYPE, "x (batch, seqlen, heads, headdim) is "
                "i32; only bf16, f16 and f32 are supported")


def test_b_and_c_share_xs_dtype(call):
    call.descriptors["B"] = _capi.describe(
        "B", call.tensors["B"].to(torch.float16))
    call.expect(Status.INVALID_DTYPE, "B (batch, seqlen, groups, dstate) is "
                "f16; only x's dtype (bf16) is supported")


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_dt_in_16_bits_passes_validation(call, dtype):
    call.descriptors["dt"] = _capi.describe("dt", call.tensors["dt"].to(dtype))
    with pytest.raises(Mamba2Error) as caught:
        call.run()
    assert caught.value.status in REACHED_DRIVER, str(caught.value)


def test_A_in_bf16_is_rejected(call):
    call.descriptors["A"] = _capi.describe(
        "A", call.tensors["A"].to(torch.bfloat16))
    call.expect(Status.INVALID_DTYPE, "A (heads) is bf16", "only f32 is "
                "supported")


def test_torch_dtype_without_a_c_name(call):
    call.descriptors["A"] = _capi.describe(
        "A", call.tensors["A"].to(torch.float64))
    error = call.expect(Status.INVALID_DTYPE, "A: dtype -1 is not a "
                        "tilec_mamba2_dtype", "A is torch.float64")
    assert isinstance(error, ValueError)


def test_dtype_value_out_of_range(call):
    call.descriptors["D"].dtype = 7
    call.expect(Status.INVALID_DTYPE, "D: dtype 7 is not a tilec_mamba2_dtype")


def test_misaligned_data(call):
    call.descriptors["dt"].data += 2
    call.expect(Status.UNALIGNED, "dt")


def test_misaligned_workspace(call):
    call.workspace_ptr += 8
    call.expect(Status.UNALIGNED, "workspace")


def test_groups_do_not_divide_heads(cpu_generator):
    call = Call(sizes=(1, 64, 6, 32, 2, 16, 64), generator=cpu_generator)
    call.problem.groups = 4
    call.expect(Status.GROUPS_DO_NOT_DIVIDE_HEADS,
                "heads (6) must be a multiple of groups (4)")


@pytest.mark.parametrize("chunk", [32, 100, 512])
def test_unsupported_chunk(call, chunk):
    call.problem.chunk = chunk
    call.expect(Status.UNSUPPORTED_CHUNK, f"chunk is {chunk}")


def test_null_problem(call):
    call.problem_arg = None
    call.expect(Status.NULL_POINTER, "problem")


def test_null_descriptor(call):
    call.descriptors["B"] = None
    call.expect(Status.NULL_POINTER, "B: the tensor descriptor is null")


def test_null_shape_array(call):
    call.descriptors["x"].shape = None
    call.expect(Status.NULL_POINTER, "x: the shape array is null")


def test_meta_tensor_has_no_data(call):
    meta = torch.empty(call.tensors["C"].shape, dtype=torch.bfloat16,
                       device="meta")
    call.descriptors["C"] = _capi.describe("C", meta)
    call.expect(Status.NULL_POINTER, "C", "the data pointer is null")


def test_workspace_too_small(call):
    call.workspace_bytes -= 1
    call.expect(Status.WORKSPACE_TOO_SMALL)


def test_descriptors_are_checked_before_the_problem(call):
    call.problem.chunk = 100
    call.descriptors["C"].dtype = 5
    call.expect(Status.INVALID_DTYPE, "C: dtype 5")


def test_workspace_size_follows_the_documented_layout():
    # docs/mamba2.md: dt_chunks and G, the states entering each chunk, the
    # chunks' own states (the four-kernel default), a final state and
    # bmm_chunk's C B^T tiles, f32, each starting on 256 bytes.
    batch, seqlen, heads, headdim, groups, dstate, chunk = SIZES
    nchunks = -(-seqlen // chunk)
    buffers = [batch * heads * nchunks * chunk,
               batch * heads * nchunks * chunk,
               batch * nchunks * heads * headdim * dstate,
               batch * nchunks * heads * headdim * dstate,
               batch * heads * headdim * dstate,
               batch * nchunks * groups * chunk * chunk]
    expected = sum(-(-4 * n // 256) * 256 for n in buffers)
    problem = _capi.Problem(batch, seqlen, heads, groups, headdim, dstate,
                            chunk)
    assert _capi.workspace_size(problem) == expected


def test_workspace_size_of_an_invalid_problem():
    problem = _capi.Problem(1, 64, 4, 1, 32, 16, 96)
    with pytest.raises(Mamba2ArgumentError) as caught:
        _capi.workspace_size(problem)
    assert caught.value.status == Status.UNSUPPORTED_CHUNK


def test_status_names():
    for status in Status:
        expected = "TILEC_MAMBA2_" + (
            "SUCCESS" if status == Status.SUCCESS else "ERROR_" + status.name)
        assert _capi.status_name(status) == expected
    assert _capi.status_name(99) == "TILEC_MAMBA2_ERROR_UNKNOWN"


def test_driver_statuses_are_not_value_errors():
    error = _capi.error(Status.NO_DRIVER, "no driver")
    assert isinstance(error, Mamba2Error) and isinstance(error, RuntimeError)
    assert not isinstance(error, ValueError)
    assert isinstance(_capi.error(Status.INVALID_SHAPE, "x"), ValueError)


class OptionsCall(Call):
    """A valid tilec_mamba2_forward_with_options call: every option given
    (z, dt_bias, softplus, a limit, D per channel, a bf16 y)."""

    def __init__(self, sizes=SIZES, generator=None):
        super().__init__(sizes, generator=generator)
        batch, seqlen, heads, headdim, _, _, _ = sizes
        g = generator
        for name, t in dict(
                z=torch.randn(batch, seqlen, heads, headdim, generator=g)
                .to(torch.bfloat16),
                dt_bias=torch.randn(heads, generator=g),
                D=torch.randn(heads, headdim, generator=g),
                y=torch.full((batch, seqlen, heads, headdim), float("nan"),
                             dtype=torch.bfloat16)).items():
            self.tensors[name] = t
            self.descriptors[name] = _capi.describe(name, t)
        self.options = _capi.Options(ctypes.sizeof(_capi.Options), None, None,
                                     None, 1, 1, 0.0, float("inf"))

    def run(self):
        d = self.descriptors
        _capi.forward_with_options(
            self.problem_arg, d["x"], d["dt"], d["A"], d["B"], d["C"],
            d["D"], d["initial_state"], d["y"], d["final_state"],
            self.options, workspace=self.workspace_ptr,
            workspace_bytes=self.workspace_bytes, z=d.get("z"),
            dt_bias=d.get("dt_bias"), seq_idx=d.get("seq_idx"),
            cu_seqlens=d.get("cu_seqlens"),
            varlen_states=d.get("varlen_states"))


@pytest.fixture
def options_call(cpu_generator):
    return OptionsCall(generator=cpu_generator)


def test_options_pass_validation_and_reach_the_driver(options_call):
    with pytest.raises(Mamba2Error) as caught:
        options_call.run()
    assert caught.value.status in REACHED_DRIVER, str(caught.value)


@pytest.mark.parametrize("name, change, status, words", [
    ("z", lambda t: t.float(), Status.INVALID_DTYPE,
     "z (batch, seqlen, heads, headdim) is f32; only x's dtype (bf16) is "
     "supported"),
    ("z", lambda t: t[:, :-1], Status.INVALID_SHAPE,
     "z (batch, seqlen, heads, headdim) has shape (2, 99, 4, 32)"),
    ("dt_bias", lambda t: t[None], Status.INVALID_SHAPE,
     "dt bias (heads) has rank 2, not 1"),
    ("dt_bias", lambda t: t.half(), Status.INVALID_DTYPE,
     "dt bias (heads) is f16"),
    ("dt_bias", lambda t: t.to("meta"), Status.NULL_POINTER,
     "dt bias (heads): the data pointer is null"),
    ("D", lambda t: t[:, :-1], Status.INVALID_SHAPE,
     "D (heads, headdim) has shape (4, 31); the problem needs (4, 32)"),
    ("y", lambda t: t.half(), Status.INVALID_DTYPE,
     "only f32 and x's dtype (bf16) are supported"),
])
def test_option_tensor_rules(options_call, name, change, status, words):
    options_call.descriptors[name] = _capi.describe(
        name, change(options_call.tensors[name]))
    options_call.expect(status, words)


def packed(options_call):
    batch, seqlen = options_call.tensors["x"].shape[:2]
    seq_idx = torch.zeros(batch, seqlen, dtype=torch.int32)
    seq_idx[:, seqlen // 3:] = 1
    return seq_idx


def test_seq_idx_passes_validation(options_call):
    options_call.descriptors["seq_idx"] = _capi.describe(
        "seq_idx", packed(options_call))
    test_options_pass_validation_and_reach_the_driver(options_call)


@pytest.mark.parametrize("change, status, words", [
    (lambda t: t.float(), Status.INVALID_DTYPE,
     "seq idx (batch, seqlen) is f32; only i32 is supported"),
    (lambda t: t.long(), Status.INVALID_DTYPE, "(seq_idx is torch.int64)"),
    (lambda t: t[:, :-1], Status.INVALID_SHAPE,
     "seq idx (batch, seqlen) has shape (2, 99); the problem needs (2, 100)"),
    (lambda t: t[0], Status.INVALID_SHAPE,
     "seq idx (batch, seqlen) has rank 1, not 2"),
    (lambda t: t.to("meta"), Status.NULL_POINTER,
     "seq idx (batch, seqlen): the data pointer is null"),
])
def test_seq_idx_rules(options_call, change, status, words):
    options_call.descriptors["seq_idx"] = _capi.describe(
        "seq_idx", change(packed(options_call)))
    options_call.expect(status, words)


def test_version_one_options_have_no_seq_idx(options_call):
    # A struct of the first version's size ends before seq_idx: an invalid
    # one there is not read.
    options_call.descriptors["seq_idx"] = _capi.describe(
        "seq_idx", packed(options_call).float())
    options_call.options.size = _capi.Options.seq_idx.offset
    test_options_pass_validation_and_reach_the_driver(options_call)


# cu_seqlens (device memory, whose values the library never reads on the
# host: the kernel checks them) and the varlen states (version 3), on one
# packed row of three sequences.
VARLEN_SIZES = (1, 100, 4, 32, 2, 16, 64)
OFFSETS = [0, 30, 64, 100]


@pytest.fixture
def varlen_call(cpu_generator):
    call = OptionsCall(VARLEN_SIZES, generator=cpu_generator)
    seq_idx = torch.zeros(1, 100, dtype=torch.int32)
    seq_idx[0, 30:], seq_idx[0, 64:] = 1, 2
    for name, t in dict(
            seq_idx=seq_idx,
            cu_seqlens=torch.tensor(OFFSETS, dtype=torch.int32),
            varlen_states=torch.full((3, 4, 32, 16), float("nan"))).items():
        call.tensors[name] = t
        call.descriptors[name] = _capi.describe(name, t)
    return call


def test_cu_seqlens_passes_validation(varlen_call):
    test_options_pass_validation_and_reach_the_driver(varlen_call)


@pytest.mark.parametrize("offsets", [[0, 64, 30, 100], [0, 30, 64, 99],
                                     [1, 30, 64, 100]])
def test_cu_seqlens_values_are_not_read_on_the_host(varlen_call, offsets):
    varlen_call.descriptors["cu_seqlens"] = _capi.describe(
        "cu_seqlens", torch.tensor(offsets, dtype=torch.int32))
    test_options_pass_validation_and_reach_the_driver(varlen_call)


@pytest.mark.parametrize("name, value, status, words", [
    ("cu_seqlens", torch.tensor(OFFSETS), Status.INVALID_DTYPE,
     "(cu_seqlens is torch.int64)"),
    ("cu_seqlens", torch.tensor(OFFSETS, dtype=torch.int32)[None],
     Status.INVALID_SHAPE, "cu seqlens (nseq + 1) has rank 2, not 1"),
    ("cu_seqlens", torch.tensor([0], dtype=torch.int32),
     Status.INVALID_SHAPE, "two offsets or more"),
    ("cu_seqlens", torch.tensor(OFFSETS, dtype=torch.int32).to("meta"),
     Status.NULL_POINTER, "cu seqlens (nseq + 1): the data pointer is null"),
    ("varlen_states", torch.zeros(2, 4, 32, 16), Status.INVALID_SHAPE,
     "varlen states (nseq, heads, headdim, dstate) has shape (2, 4, 32, 16)"
     "; the problem needs (3, 4, 32, 16)"),
    ("varlen_states", torch.zeros(3, 4, 32, 16, dtype=torch.bfloat16),
     Status.INVALID_DTYPE, "varlen states"),
])
def test_cu_seqlens_rules(varlen_call, name, value, status, words):
    varlen_call.descriptors[name] = _capi.describe(name, value)
    varlen_call.expect(status, words)


def test_cu_seqlens_needs_seq_idx_and_varlen_states_need_cu_seqlens(
        varlen_call):
    seq_idx = varlen_call.descriptors.pop("seq_idx")
    varlen_call.expect(Status.INVALID_ARGUMENT, "cu seqlens: needs seq idx")
    varlen_call.descriptors["seq_idx"] = seq_idx
    del varlen_call.descriptors["cu_seqlens"]
    varlen_call.expect(Status.INVALID_ARGUMENT, "varlen states",
                       "need cu seqlens")


def test_cu_seqlens_needs_batch_one(options_call):
    options_call.descriptors["seq_idx"] = _capi.describe(
        "seq_idx", packed(options_call))
    options_call.descriptors["cu_seqlens"] = _capi.describe(
        "cu_seqlens", torch.tensor([0, 100], dtype=torch.int32))
    options_call.expect(Status.INVALID_ARGUMENT, "one row (batch 1)",
                        "batch 2")


def test_version_two_options_have_no_cu_seqlens(varlen_call):
    varlen_call.descriptors["cu_seqlens"] = _capi.describe(
        "cu_seqlens", torch.tensor(OFFSETS, dtype=torch.float32))
    varlen_call.options.size = _capi.Options.cu_seqlens.offset
    test_options_pass_validation_and_reach_the_driver(varlen_call)


def test_dt_limit_must_be_an_interval(options_call):
    options_call.options.dt_min, options_call.options.dt_max = 1.0, 0.5
    options_call.expect(Status.INVALID_ARGUMENT, "dt limit",
                        "low <= high")
    options_call.options.dt_min = float("nan")
    options_call.expect(Status.INVALID_ARGUMENT, "no NaN")


def test_options_struct_size(options_call):
    options_call.options.size = 8
    options_call.expect(Status.INVALID_ARGUMENT, "options: size 8")


# The state dtype (version 4 of the options struct): bf16 states between
# chunks with a bf16 x, chunk_states in that dtype; through
# tensors_forward, the packed call the plans make.
def state_dtype_call(call, state_dtype, chunk_states_dtype):
    t = call.tensors
    batch, seqlen, heads, headdim = t["x"].shape
    nchunks = -(-seqlen // call.problem.chunk)
    states = torch.full((batch, nchunks, heads, headdim, call.problem.dstate),
                        float("nan"), dtype=chunk_states_dtype)
    with pytest.raises(Mamba2Error) as caught:
        _capi.tensors_forward(
            call.problem, [t["x"], t["dt"], t["A"], t["B"], t["C"], t["D"],
                           t["initial_state"], t["y"], t["final_state"],
                           None, None, states],
            workspace=call.workspace_ptr,
            workspace_bytes=call.workspace_bytes, state_dtype=state_dtype)
    return caught.value


def test_bf16_states_pass_validation_and_reach_the_driver(call):
    error = state_dtype_call(call, _capi.BF16, torch.bfloat16)
    assert error.status in REACHED_DRIVER, str(error)
    error = state_dtype_call(call, _capi.F32, torch.float32)
    assert error.status in REACHED_DRIVER, str(error)


@pytest.mark.parametrize("state_dtype, states, status, words", [
    (_capi.BF16, torch.float32, Status.INVALID_DTYPE,
     "only the state dtype (bf16) is supported"),
    (_capi.F32, torch.bfloat16, Status.INVALID_DTYPE, "only f32 is"),
    (_capi.F16, torch.float16, Status.INVALID_ARGUMENT,
     "state dtype: f16 with x in bf16 is not supported"),
    (_capi.I32, torch.float32, Status.INVALID_DTYPE,
     "options: state_dtype 3 is not a float"),
    (99, torch.float32, Status.INVALID_DTYPE, "options: state_dtype 99"),
])
def test_state_dtype_is_checked(call, state_dtype, states, status, words):
    error = state_dtype_call(call, state_dtype, states)
    assert error.status == status, str(error)
    assert words in error.message, error.message
    assert torch.isnan(call.tensors["y"]).all()
