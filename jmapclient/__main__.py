"""``python -m jmapclient``: the same command line as ``mailadmin``."""

from jmapclient.cli import main

raise SystemExit(main())
