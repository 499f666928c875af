"""Benchmarks that print figures (run as scripts from the repository root), and the load they share with tests."""
