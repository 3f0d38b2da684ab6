"""tilec.mamba2's own checks, on CPU and meta tensors: the options of
mamba_ssm it does not implement, Python types, devices, the torch version,
and the fake (meta) implementation's shapes."""

import math
import struct

import pytest
import torch

from conftest import requires_op
from tilec import mamba2
from tilec.errors import Mamba2ArgumentError, Status, TorchVersionError


def inputs(device="cpu", batch=2, seqlen=64, heads=4, headdim=32, groups=2,
           dstate=16):
    def empty(*shape, dtype=torch.bfloat16):
        return torch.zeros(shape, dtype=dtype, device=device)

    return dict(x=empty(batch, seqlen, heads, headdim),
                dt=empty(batch, seqlen, heads, dtype=torch.float32),
                A=empty(heads, dtype=torch.float32),
                B=empty(batch, seqlen, groups, dstate),
                C=empty(batch, seqlen, groups, dstate))


def call(**overrides):
    args = inputs()
    args.update(overrides)
    return mamba2.chunk_scan_combined(
        args.pop("x"), args.pop("dt"), args.pop("A"), args.pop("B"),
        args.pop("C"), args.pop("chunk_size", 64), **args)


@pytest.mark.parametrize("argument, value, named", [
    ("state_dtype", torch.float64, "state_dtype=torch.float64"),
    ("y_dtype", torch.float16, "y_dtype=torch.float16"),
])
def test_unsupported_option_is_named(argument, value, named):
    with pytest.raises(NotImplementedError, match="chunk_scan_combined: "
                       + named.replace("(", r"\(").replace(")", r"\)")
                       .replace(".", r"\.")):
        call(**{argument: value})


@pytest.mark.parametrize("argument, value", [
    ("x", [[1.0]]), ("dt", None), ("B", 3.0), ("D", [1.0, 2.0]),
    ("initial_states", "zeros"), ("chunk_size", 64.0),
    ("chunk_size", True), ("return_final_states", 1),
    ("z", [[0.0]]), ("dt_bias", 0.5), ("dt_softplus", 1),
    ("return_chunk_states", None), ("seq_idx", [[0] * 64] * 2),
    ("cu_seqlens", [0, 64]), ("return_varlen_states", 1),
    ("dt_limit", 0.5), ("dt_limit", (0.0,)), ("dt_limit", ("a", 1.0))])
def test_wrong_python_type_is_named(argument, value):
    with pytest.raises(TypeError, match=argument):
        call(**{argument: value})


@pytest.mark.parametrize("options", [
    dict(state_dtype=torch.float32, dt_limit=(0.0, float("inf"))),
    dict(state_dtype=torch.bfloat16), dict(state_dtype=torch.float16),
    dict(z=torch.zeros(2, 64, 4, 32, dtype=torch.bfloat16),
         dt_bias=torch.zeros(4), dt_softplus=True, dt_limit=(1e-4, 0.1),
         D=torch.zeros(4, 32), y_dtype=torch.float32),
    dict(seq_idx=torch.zeros(2, 64, dtype=torch.int32)),
])
def test_supported_options_are_accepted_before_the_version_check(options):
    # The options tilec implements pass the Python checks; what follows is
    # the op (or the version error).
    expected = (TorchVersionError if not mamba2.HAS_OP
                else Mamba2ArgumentError)
    with pytest.raises(expected):
        call(**options)


def test_dt_limit_bounds_beyond_f32_become_infinite():
    # As the kernel compares them: beyond f32's range is infinite; below the
    # rounding threshold a bound stays finite and packs as f32 (the C ABI
    # packing rounds it).
    inf = float("inf")
    assert mamba2._dt_limit((0, 1e40)) == (0.0, inf)
    assert mamba2._dt_limit((-1e39, 2)) == (-inf, 2.0)
    threshold = 2.0 ** 128 - 2.0 ** 103
    assert mamba2._dt_limit((0, threshold))[1] == inf
    below = math.nextafter(threshold, 0.0)
    high = mamba2._dt_limit((0, below))[1]
    assert high == below
    packed = struct.unpack("f", struct.pack("f", high))[0]
    assert packed == torch.finfo(torch.float32).max


def test_varlen_states_need_cu_seqlens():
    with pytest.raises(Mamba2ArgumentError) as caught:
        call(return_varlen_states=True)
    assert caught.value.status == Status.INVALID_ARGUMENT
    assert "return_varlen_states=True needs cu_seqlens" in str(caught.value)


def test_cu_seqlens_on_a_device_the_library_cannot_read():
    offsets = torch.tensor([0, 64], dtype=torch.int32)
    x = torch.empty(1, 64, 1, 1)
    with pytest.raises(Mamba2ArgumentError) as caught:
        mamba2._device_offsets(offsets.to("meta"), torch.device("cuda", 0), x)
    assert caught.value.status == Status.NOT_DEVICE_POINTER
    assert "cu_seqlens is on meta" in str(caught.value)
    # Already on x's device: passed as it is (the kernel reads it there).
    assert mamba2._device_offsets(offsets, torch.device("cpu"), x) is offsets


@pytest.mark.parametrize("offsets, words", [
    ([1, 30, 64, 100], "cu seqlens starts at 1; the first offset must be 0"),
    ([0, 64, 30, 100], "cu seqlens is not increasing: offset 2 is 30 after 64"),
    ([0, 30, 30, 100], "offset 2 is 30 after 30"),
    ([0, 30, 64, 99], "cu seqlens ends at 99; the last offset must be seqlen "
     "(100)"),
])
def test_cpu_cu_seqlens_values_are_checked_on_the_host(offsets, words):
    with pytest.raises(Mamba2ArgumentError) as caught:
        mamba2._check_host_offsets(torch.tensor(offsets, dtype=torch.int32),
                                   100)
    assert caught.value.status == Status.INVALID_ARGUMENT
    assert words in str(caught.value)
    # Good ones pass; a form the library refuses is left to it.
    mamba2._check_host_offsets(torch.tensor([0, 30, 64, 100],
                                            dtype=torch.int32), 100)
    mamba2._check_host_offsets(torch.tensor(offsets), 100)


@pytest.mark.skipif(mamba2.HAS_OP, reason="torch is new enough for the op")
def test_old_torch_gets_a_clear_error():
    with pytest.raises(TorchVersionError, match=r"needs torch >= 2\.4; "
                       r"this is torch " + torch.__version__.split("+")[0]):
        call()


def entries():
    """The implementation (any torch), and the op when torch has it."""
    yield pytest.param(mamba2.forward, id="impl")
    yield pytest.param(lambda *a, **k: mamba2.chunk_scan_combined(*a, **k),
                       id="op", marks=requires_op)


@pytest.mark.parametrize("entry", entries())
def test_cpu_tensors_are_rejected(entry):
    args = inputs()
    with pytest.raises(Mamba2ArgumentError) as caught:
        entry(args["x"], args["dt"], args["A"], args["B"], args["C"], 64)
    assert caught.value.status == Status.NOT_DEVICE_POINTER
    assert caught.value.status_name == "TILEC_MAMBA2_ERROR_NOT_DEVICE_POINTER"
    assert "are on cpu" in caught.value.message
    assert "needs CUDA tensors" in caught.value.message


@pytest.mark.parametrize("entry", entries())
def test_tensors_on_different_devices_are_rejected(entry):
    args = inputs()
    D = torch.zeros(4, device="meta")
    with pytest.raises(Mamba2ArgumentError) as caught:
        entry(args["x"], args["dt"], args["A"], args["B"], args["C"], 64, D=D)
    assert caught.value.status == Status.NOT_DEVICE_POINTER
    assert "x is on cpu but D on meta" in caught.value.message


@pytest.mark.parametrize("return_final_states", [False, True])
@pytest.mark.parametrize("y_f32", [False, True])
def test_fake_implementation_shapes(return_final_states, y_f32):
    args = inputs(device="meta", batch=3, seqlen=50, heads=6, headdim=40,
                  groups=3, dstate=24)
    outputs = mamba2._fake(
        args["x"], args["dt"], args["A"], args["B"], args["C"], 64, None,
        None, return_final_states, y_f32=y_f32,
        return_chunk_states=return_final_states,
        cu_seqlens=torch.tensor([0, 20, 50], dtype=torch.int32),
        return_varlen_states=return_final_states)
    # Only the outputs asked for: y, then final, chunk and varlen states.
    assert len(outputs) == (4 if return_final_states else 1)
    y = outputs[0]
    assert y.shape == (3, 50, 6, 40)
    assert y.dtype == (torch.float32 if y_f32 else torch.bfloat16)
    if return_final_states:
        final, states, varlen = outputs[1:]
        assert final.dtype == torch.float32
        assert final.shape == (3, 6, 40, 24)
        # seqlen 50 in chunks of 64: one chunk.
        assert states.shape == (3, 1, 6, 40, 24)
        assert varlen.shape == (2, 6, 40, 24)


@pytest.mark.parametrize("asked", [(False, False, False), (True, False, True),
                                   (False, True, True), (True, True, False)])
def test_unpacked_outputs_follow_the_flags(asked):
    final, chunk, varlen = asked
    made = [torch.zeros(1)] + [torch.full((1,), float(i + 1))
                               for i, a in enumerate(asked) if a]
    got = mamba2._unpacked(made, final, chunk, varlen)
    assert got[0] is made[0]
    rest = iter(made[1:])
    for flag, out in zip(asked, got[1:]):
        assert out is (next(rest) if flag else None)


@requires_op
def test_op_on_meta_tensors_uses_the_fake():
    args = inputs(device="meta", batch=3, seqlen=50, heads=6, headdim=40,
                  groups=3, dstate=24)
    y, final = mamba2.chunk_scan_combined(
        args["x"], args["dt"], args["A"], args["B"], args["C"], 128,
        return_final_states=True)
    assert y.device.type == "meta" and y.shape == (3, 50, 6, 40)
    assert final.shape == (3, 6, 40, 24)


def test_chunk_beyond_64_bits_is_not_wrapped():
    # ctypes would silently wrap 2^64 + 64 to 64.
    with pytest.raises(Mamba2ArgumentError) as caught:
        call(chunk_size=2**64 + 64)
    assert caught.value.status == Status.UNSUPPORTED_CHUNK
    assert "does not fit in 64 bits" in caught.value.message


@pytest.mark.parametrize("wrong", ["x", "B"])
def test_sizes_of_a_tensor_of_the_wrong_rank_keep_the_problem_valid(wrong):
    args = inputs()
    args[wrong] = args[wrong][0]
    sizes = mamba2.problem_sizes(args["x"], args["B"])
    batch, seqlen, heads, headdim, groups, dstate = sizes
    assert heads % groups == 0 and min(sizes) >= 1


@pytest.mark.parametrize("asked", ["varlen", "chunk", "both"])
def test_state_dtype_rounds_only_the_states_returned(asked):
    # The eager path's plan gives None for an output not asked for (the op
    # an empty tensor): only those asked for are rounded.
    y, final = torch.zeros(2, 3), torch.zeros(2, 4)
    varlen, chunks = torch.rand(3, 5), torch.rand(2, 2, 5)
    want_varlen, want_chunks = asked in ("varlen", "both"), asked in (
        "chunk", "both")
    got = mamba2._returned(y, final, chunks if want_chunks else None,
                           varlen if want_varlen else None, True, want_varlen,
                           want_chunks, torch.bfloat16)
    assert got[0] is y and got[1] is final
    assert final.dtype == torch.float32
    rest = list(got[2:])
    if want_varlen:
        assert torch.equal(rest.pop(0), varlen.to(torch.bfloat16))
    if want_chunks:
        assert torch.equal(rest.pop(0), chunks.to(torch.bfloat16))
    assert not rest
