"""The exceptions of the tilec package."""

import enum


class Status(enum.IntEnum):
    """tilec_mamba2_status ("tilec/Mamba2/tilec_mamba2.h")."""

    SUCCESS = 0
    INVALID_SHAPE = 1
    INVALID_STRIDE = 2
    INVALID_DTYPE = 3
    UNALIGNED = 4
    GROUPS_DO_NOT_DIVIDE_HEADS = 5
    UNSUPPORTED_CHUNK = 6
    NULL_POINTER = 7
    NOT_DEVICE_POINTER = 8
    NO_DRIVER = 9
    NO_DEVICE = 10
    NO_CONTEXT = 11
    WORKSPACE_TOO_SMALL = 12
    OUT_OF_MEMORY = 13
    LAUNCH_FAILURE = 14
    INVALID_ARGUMENT = 15


# The statuses that say an argument was wrong (as opposed to the machine or
# the driver): their exceptions are also ValueErrors.
ARGUMENT_STATUSES = frozenset({
    Status.INVALID_SHAPE, Status.INVALID_STRIDE, Status.INVALID_DTYPE,
    Status.UNALIGNED, Status.GROUPS_DO_NOT_DIVIDE_HEADS,
    Status.UNSUPPORTED_CHUNK, Status.NULL_POINTER, Status.NOT_DEVICE_POINTER,
    Status.WORKSPACE_TOO_SMALL, Status.INVALID_ARGUMENT})


class Mamba2Error(RuntimeError):
    """A tilec_mamba2 call failed.

    ``status`` is the tilec_mamba2_status (a Status), ``status_name`` its
    name as tilec_mamba2_status_name gives it (e.g.
    ``"TILEC_MAMBA2_ERROR_INVALID_DTYPE"``) and ``message`` what
    tilec_mamba2_last_error said (or, for the checks the Python layer makes
    itself, its own words)."""

    def __init__(self, status, status_name, message):
        super().__init__(f"{status_name}: {message}")
        known = status in Status._value2member_map_
        self.status = Status(status) if known else status
        self.status_name = status_name
        self.message = message


class Mamba2ArgumentError(Mamba2Error, ValueError):
    """A tilec_mamba2 call rejected an argument (shape, stride, dtype,
    alignment, device, ...)."""


def error_for(status, status_name, message):
    """The exception for a failed call: a Mamba2ArgumentError for a bad
    argument, else a Mamba2Error."""
    cls = Mamba2ArgumentError if status in ARGUMENT_STATUSES else Mamba2Error
    return cls(status, status_name, message)


class TorchVersionError(RuntimeError):
    """The installed torch is too old for the PyTorch custom op."""
