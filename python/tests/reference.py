"""The Mamba-2 forward as its f64 recurrence, one time step at a time, and
random inputs for it.

    h_t = exp(A dt_t) h_{t-1} + dt_t x_t B_t^T       (h: headdim x dstate)
    y_t = h_t C_t + D x_t

with the heads of a group sharing its B and C (docs/mamba2.md). It is the
definition, not the chunked algorithm the kernels use, so it checks them
independently.
"""

import torch


def recurrence(x, dt, A, B, C, D=None, initial_states=None):
    """y (batch, seqlen, heads, headdim) and the final states (batch, heads,
    headdim, dstate), both f64, from the inputs in mamba_ssm's layouts."""
    batch, seqlen, heads, headdim = x.shape
    groups, dstate = B.shape[2], B.shape[3]
    f64 = torch.float64
    x, dt, A = x.to(f64), dt.to(f64), A.to(f64)
    # (batch, seqlen, heads, dstate): each head's group's B and C.
    B = B.to(f64).repeat_interleave(heads // groups, dim=2)
    C = C.to(f64).repeat_interleave(heads // groups, dim=2)
    h = (torch.zeros(batch, heads, headdim, dstate, dtype=f64, device=x.device)
         if initial_states is None else initial_states.to(f64).clone())
    decay = torch.exp(A * dt)  # (batch, seqlen, heads)
    y = torch.empty(batch, seqlen, heads, headdim, dtype=f64, device=x.device)
    for t in range(seqlen):
        update = (dt[:, t, :, None, None] * x[:, t, :, :, None]
                  * B[:, t, :, None, :])
        h = decay[:, t, :, None, None] * h + update
        y[:, t] = torch.einsum("bhpn,bhn->bhp", h, C[:, t])
    if D is not None:
        y += D.to(f64)[None, None, :, None] * x
    return y, h


def random_inputs(batch, seqlen, heads, headdim, groups, dstate, device,
                  generator, initial_states=False):
    """Fresh inputs in the dtypes tilec takes: x, B, C bf16; dt, A, D f32.
    Slow decay (A in [-1, -0.01], dt in [1e-3, 1e-1]) so that the state
    carried across chunks matters to every output."""
    def uniform(shape, low, high):
        return low + (high - low) * torch.rand(shape, generator=generator,
                                               device=device)

    def normal(shape):
        return torch.randn(shape, generator=generator, device=device)

    inputs = dict(
        x=normal((batch, seqlen, heads, headdim)).to(torch.bfloat16),
        dt=uniform((batch, seqlen, heads), 1e-3, 1e-1),
        A=uniform((heads,), -1.0, -0.01),
        B=normal((batch, seqlen, groups, dstate)).to(torch.bfloat16),
        C=normal((batch, seqlen, groups, dstate)).to(torch.bfloat16),
        D=normal((heads,)))
    if initial_states:
        inputs["initial_states"] = normal((batch, heads, headdim, dstate))
    return inputs


def relative_error(actual, expected):
    """Norm-wise relative error ||actual - expected|| / ||expected||."""
    expected = expected.to(torch.float64)
    return ((actual.to(torch.float64) - expected).norm()
            / expected.norm()).item()
