"""The directory test (issue #29): will this LDAP, SQL or OpenID Connect directory let people log in?

Two layers, one core for the command line and the console:

- :mod:`~jmapclient.dirtest.lint`: offline checks of the settings alone, run on every save;
- :mod:`~jmapclient.dirtest.live`: opt-in checks against the directory's real server, from this
  machine, each a :class:`~jmapclient.dirtest.steps.Step` passed, failed or skipped with its reason
  and its fix.

The drivers (ldap3, psycopg, PyMySQL, joserfc) load only inside a live check of their kind: the
command line's ``--help`` and the console's start never pay for them.
"""
