"""Benchmarks (not tests): `bench/run.py` measures, prints figures and never asserts a timing."""
