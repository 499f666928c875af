"""``python -m jmapclient``: the object commands alone (the console, demo and serve are ``mailadmin``'s)."""

from jmapclient.cli import main

raise SystemExit(main())
