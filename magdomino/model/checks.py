"""Transition module: the checks live in :mod:`magdomino.checks`."""

from magdomino.checks import (  # noqa: F401
    FileChecks,
    check_choice,
    check_count,
    check_number,
    check_probability,
    check_seed,
    is_whole,
)
