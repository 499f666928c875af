"""Directories as code: a snapshot file of every directory, and a plan that brings a server to it.

- :mod:`~jmapclient.ascode.ndjson`: the file, in the server's own command-line client's NDJSON
  format (a file of either tool reads in the other), with secrets left out and marked;
- :mod:`~jmapclient.ascode.plan`: which file object is which server object, and the minimal
  change for each (create, update by :func:`jmapclient.patch.compute_patch`, unchanged, destroy);
- :mod:`~jmapclient.ascode.runner`: reading every object from a server, and running a plan in
  batches within the server's limits, one outcome per object.

Unlike the server's client, ``apply`` never destroys a type's objects to create them again: ids,
and the links other objects hold to them, are kept; a linked object is never destroyed.
"""
