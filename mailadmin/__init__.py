"""The ``mailadmin`` front door: the console script, above the console, the stub and the client.

It dispatches the command line: nothing → the console (``tui``); ``demo`` → the bundled
stub (``server_stub``) with the console on it; ``serve`` → the stub alone; every other
command → the object commands of ``mailadmin.cli``. It is the only package that knows
all three, so none of them needs to import another one above it.
"""
