"""The Mamba-2 forward as its f64 recurrence, one time step at a time, and
random inputs for it.

    dt_t = clamp(softplus(dt_t + dt_bias), dt_limit)  (each as asked)
    h_t = exp(A dt_t) h_{t-1} + dt_t x_t B_t^T       (h: headdim x dstate)
    y_t = (h_t C_t + D x_t) * silu(z_t)

with the heads of a group sharing its B and C (docs/mamba2.md). It is the
definition, not the chunked algorithm the kernels use, so it checks them
independently.
"""

import torch


def transform_dt(dt, dt_bias=None, dt_softplus=False,
                 dt_limit=(0.0, float("inf"))):
    """mamba_ssm's dt in f64: + dt_bias, softplus (log1p(exp(v)) up to
    v = 20, v above), then the clamp."""
    dt = dt.to(torch.float64)
    if dt_bias is not None:
        dt = dt + dt_bias.to(torch.float64)
    if dt_softplus:
        dt = torch.where(dt <= 20.0, torch.log1p(torch.exp(dt)), dt)
    return dt.clamp(min=dt_limit[0], max=dt_limit[1])


def recurrence(x, dt, A, B, C, D=None, initial_states=None, z=None,
               dt_bias=None, dt_softplus=False,
               dt_limit=(0.0, float("inf")), seq_idx=None):
    """y (batch, seqlen, heads, headdim) and the final states (batch, heads,
    headdim, dstate), both f64, from the inputs in mamba_ssm's layouts. D
    is (heads) or (heads, headdim); the dt options are mamba_ssm's (and its
    default dt_limit (0, inf)). With seq_idx (batch, seqlen) the state
    restarts from zero at each step whose sequence differs from the step
    before (sequence 0 before the first: the initial state is its)."""
    batch, seqlen, heads, headdim = x.shape
    groups, dstate = B.shape[2], B.shape[3]
    f64 = torch.float64
    x, A = x.to(f64), A.to(f64)
    dt = transform_dt(dt, dt_bias, dt_softplus, dt_limit)
    # (batch, seqlen, heads, dstate): each head's group's B and C.
    B = B.to(f64).repeat_interleave(heads // groups, dim=2)
    C = C.to(f64).repeat_interleave(heads // groups, dim=2)
    h = (torch.zeros(batch, heads, headdim, dstate, dtype=f64, device=x.device)
         if initial_states is None else initial_states.to(f64).clone())
    decay = torch.exp(A * dt)  # (batch, seqlen, heads)
    y = torch.empty(batch, seqlen, heads, headdim, dtype=f64, device=x.device)
    previous = torch.zeros(batch, dtype=torch.int64, device=x.device)
    for t in range(seqlen):
        if seq_idx is not None:
            now = seq_idx[:, t].to(torch.int64)
            h = torch.where((now != previous)[:, None, None, None],
                            torch.zeros_like(h), h)
            previous = now
        update = (dt[:, t, :, None, None] * x[:, t, :, :, None]
                  * B[:, t, :, None, :])
        h = decay[:, t, :, None, None] * h + update
        y[:, t] = torch.einsum("bhpn,bhn->bhp", h, C[:, t])
    if D is not None:
        D = D.to(f64)
        y += (D[None, None] if D.dim() == 2 else D[None, None, :, None]) * x
    if z is not None:
        z = z.to(f64)
        y *= z * torch.sigmoid(z)
    return y, h


def random_inputs(batch, seqlen, heads, headdim, groups, dstate, device,
                  generator, initial_states=False, z=False, dt_bias=False,
                  dt_softplus=False, d_per_channel=False,
                  dt_dtype=torch.float32, x_dtype=torch.bfloat16):
    """Fresh inputs in the dtypes tilec takes: x, B, C, z in x_dtype (bf16,
    f16 or f32); dt in dt_dtype; A, D, dt_bias f32. Slow decay (A in [-1, -0.01], dt in [1e-3, 1e-1] after
    bias and softplus) so that the state carried across chunks matters to
    every output. With dt_softplus, dt is drawn as the inverse softplus of
    such a step (less the bias), as a model's raw dt would be, and stored
    in dt_dtype; the options asked for are keys of the result (pass them
    on as they are)."""
    def uniform(shape, low, high):
        return low + (high - low) * torch.rand(shape, generator=generator,
                                               device=device)

    def normal(shape):
        return torch.randn(shape, generator=generator, device=device)

    inputs = dict(
        x=normal((batch, seqlen, heads, headdim)).to(x_dtype),
        dt=uniform((batch, seqlen, heads), 1e-3, 1e-1),
        A=uniform((heads,), -1.0, -0.01),
        B=normal((batch, seqlen, groups, dstate)).to(x_dtype),
        C=normal((batch, seqlen, groups, dstate)).to(x_dtype),
        D=normal((heads, headdim) if d_per_channel else (heads,)))
    if initial_states:
        inputs["initial_states"] = normal((batch, heads, headdim, dstate))
    if z:
        inputs["z"] = normal((batch, seqlen, heads, headdim)).to(x_dtype)
    raw = inputs["dt"]
    if dt_softplus:
        raw = torch.log(torch.expm1(raw))
        inputs["dt_softplus"] = True
    if dt_bias:
        inputs["dt_bias"] = uniform((heads,), -1.0, 1.0)
        raw = raw - inputs["dt_bias"]
    inputs["dt"] = raw.to(dt_dtype)
    return inputs


def relative_error(actual, expected):
    """Norm-wise relative error ||actual - expected|| / ||expected||."""
    expected = expected.to(torch.float64)
    return ((actual.to(torch.float64) - expected).norm()
            / expected.norm()).item()


def random_seq_idx(batch, seqlen, chunk, device, generator):
    """(batch, seqlen) int32, non-decreasing: in each row a boundary at a
    random chunk edge (with two chunks or more) and three at random steps,
    the sequence number rising by 1 or 2 at each, from 0 in even rows and 1
    in odd ones (whose initial state is then not used)."""
    starts = torch.zeros(batch, seqlen, dtype=torch.int32)
    nchunks = -(-seqlen // chunk)
    for b in range(batch):
        if nchunks > 1:
            edge = int(torch.randint(1, nchunks, (1,), generator=generator,
                                     device=generator.device))
            starts[b, edge * chunk] = 1
        if seqlen > 1:
            steps = torch.randint(1, seqlen, (3,), generator=generator,
                                  device=generator.device).cpu()
            rises = torch.randint(1, 3, (3,), generator=generator,
                                  device=generator.device,
                                  dtype=torch.int32).cpu()
            starts[b, steps] = rises
    seq_idx = torch.cumsum(starts, dim=1, dtype=torch.int32)
    seq_idx += (torch.arange(batch, dtype=torch.int32) % 2)[:, None]
    return seq_idx.to(device)


def varlen_states(x, dt, A, B, C, cu_seqlens, initial_states=None,
                  dt_bias=None, dt_softplus=False,
                  dt_limit=(0.0, float("inf")), **unused):
    """The state at the end of each sequence of cu_seqlens (nseq + 1,) in
    one packed row (batch 1), (nseq, heads, headdim, dstate) f64: the
    recurrence run over each sequence alone, from the initial state for
    sequence 0 (tilec's rule; mamba_ssm drops it when sequence 0 ends inside
    the first chunk) and from zero for the others. `unused` takes the
    arguments of the other outputs (D, z, seq_idx)."""
    offsets = [int(v) for v in cu_seqlens.cpu()]
    states = []
    for s, (start, end) in enumerate(zip(offsets[:-1], offsets[1:])):
        piece = dict(x=x[:, start:end], dt=dt[:, start:end], A=A,
                     B=B[:, start:end], C=C[:, start:end], dt_bias=dt_bias,
                     dt_softplus=dt_softplus, dt_limit=dt_limit,
                     initial_states=initial_states if s == 0 else None)
        states.append(recurrence(**piece)[1][0])
    return torch.stack(states)


def random_cu_seqlens(seqlen, chunk, device, generator):
    """(cu_seqlens (nseq + 1,) int32, seq_idx (1, seqlen) int32) of one
    packed row: a boundary at a random chunk edge (with two chunks or more)
    and three at random steps, the sequences numbered 0, 1, 2, ..."""
    starts = torch.zeros(seqlen, dtype=torch.bool)
    nchunks = -(-seqlen // chunk)
    if nchunks > 1:
        edge = int(torch.randint(1, nchunks, (1,), generator=generator,
                                 device=generator.device))
        starts[edge * chunk] = True
    if seqlen > 1:
        steps = torch.randint(1, seqlen, (3,), generator=generator,
                              device=generator.device).cpu()
        starts[steps] = True
    boundaries = starts.nonzero()[:, 0].tolist()
    cu_seqlens = torch.tensor([0] + boundaries + [seqlen], dtype=torch.int32)
    seq_idx = torch.cumsum(starts.to(torch.int32), 0, dtype=torch.int32)
    return cu_seqlens.to(device), seq_idx[None].to(device)
