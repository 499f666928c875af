"""``python -m mailadmin``: the same command line as ``mailadmin``."""

from mailadmin.main import main

raise SystemExit(main())
