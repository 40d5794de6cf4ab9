"""Runs on Temporal: the executor that runs each run as a workflow (`TemporalExecutor`), and the
address that chooses it (`temporal://host:port/namespace`, `parse_target`)."""

from gui.temporal.executor import TemporalExecutor, TemporalUnavailableError
from gui.temporal.signing import StepKeyError
from gui.temporal.target import ExecutorAddressError, TemporalTarget, parse_target

__all__ = ["ExecutorAddressError", "parse_target", "StepKeyError", "TemporalExecutor", "TemporalTarget",
           "TemporalUnavailableError"]
