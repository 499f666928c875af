"""What the test packages share: the stub, transports, the frozen clock and the console builders.

Tests import these modules (and, from ``bench/``, what benchmarks share with them: ``serve_process``,
``mailadmin serve`` as a real process on loopback; ``pty_terminal``, the console in a pseudo-terminal);
fixtures stay in ``conftest.py`` files and reach tests by injection.
No test imports another test module or a conftest (``tests/test_test_layout.py`` checks that).

- ``clock``: the one frozen "now" of the suite.
- ``transport``: ``FlakyTransport`` (a switchable in-process connection) and ``CountingTransport``.
- ``stub``: the in-process stub driven by an ``httpx.AsyncClient`` (``make_stub``, ``running_stub``).
- ``console``: the console app against the in-process stub (``make_console``, ``make_world``).
- ``directory_steps`` / ``inbox_steps``: Pilot steps of the directory and DMARC console tests.
- ``dmarc_xml`` / ``dmarc_corpus`` / ``cli_fields``: DMARC report builders and expected figures.
- ``fault_server`` / ``fuzz_stub`` / ``fuzz_oracle`` / ``fuzz_strategies``: the reliability harnesses.
"""
