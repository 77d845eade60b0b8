"""Benchmark scripts, each run as a file; a package so that they import one another as `bench.<script>`."""
