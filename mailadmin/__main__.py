"""``python -m mailadmin``: the same command line as ``mailadmin``."""

from mailadmin.entry import main

raise SystemExit(main())
