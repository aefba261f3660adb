"""Benchmark suites, one package each, found through benchmarker/registry.py (see suites/base.py)."""
