"""Benchmarks, run as scripts (``python benchmarks/NAME.py``). A regular package, so that ``benchmarks.NAME``
from the repository root is this folder and not the ``benchmarks`` package pysbd installs beside itself."""
