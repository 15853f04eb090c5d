"""loopback: the whole system as real processes on one machine, for the demo, end-to-end tests and benchmarks.

:mod:`loopback.processes` starts and stops child processes, :mod:`loopback.stack` a configured hub,
simulator and agent, :mod:`loopback.demo` the ``sdlc-hub demo`` program.
"""
