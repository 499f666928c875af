import sys

from server_stub.serve import main

sys.exit(main())
